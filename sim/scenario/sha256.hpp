// SHA-256 (FIPS 180-4) of bytes and files: the content fingerprint of the files a
// scenario reads (input_files.hpp). The hex digest is what `sha256sum FILE` prints.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pssim::scenario {

class Sha256 {
 public:
  Sha256();
  /// Adds bytes to the message. O(bytes).
  void update(const void* data, std::size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  /// The digest of everything added, as 64 lower-case hex digits. The object is spent.
  std::string hex_digest();

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes added
};

/// The hex SHA-256 of a file's bytes. Throws std::runtime_error naming the file when it
/// cannot be read.
std::string sha256_of_file(const std::string& path);

}  // namespace pssim::scenario
