// Files that appear complete or not at all.
//
// AtomicFile writes into a temporary file next to the destination
// ("<name>.tmp.<pid>.<n>") and, on commit(), flushes it to disk and renames it over the
// destination. A crash or kill before commit() leaves at most a temporary file whose name
// says it is incomplete; readers never see a half-written result under the real name.
#pragma once

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pssim::output {

/// An output file or directory that cannot be created or written. The message names the
/// path and the operating system's reason.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AtomicFile {
 public:
  /// Opens a temporary file in the destination's directory. Throws OutputError.
  explicit AtomicFile(std::filesystem::path destination);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFile();

  void write(std::string_view text);
  /// Flushes, syncs and renames onto the destination. Throws OutputError.
  void commit();

  const std::filesystem::path& destination() const { return destination_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::filesystem::path destination_;
  std::filesystem::path temporary_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

/// Writes `content` to `path` atomically (AtomicFile in one call).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Creates `dir` (and parents) if needed and checks that files can be created in it.
/// Throws OutputError naming the directory and the reason.
void prepare_output_directory(const std::filesystem::path& dir);

}  // namespace pssim::output
