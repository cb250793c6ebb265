// IDX files (the MNIST / Fashion-MNIST format), gzip-compressed or raw.
//
// Format: 4-byte magic 0x00 0x00 <type> <ndims>, then ndims big-endian uint32 sizes, then
// the data in C order. Only type 0x08 (unsigned byte) occurs in these datasets and only it
// is accepted: images have ndims 3 (magic 0x00000803), labels ndims 1 (0x00000801).
// Compressed and raw files are told apart by content (zlib reads raw files unchanged).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pssim::models {

struct IdxArray {
  std::vector<std::uint32_t> dims;  ///< e.g. {60000, 28, 28}
  std::vector<std::uint8_t> data;   ///< product(dims) bytes, C order
};

/// Reads an IDX file of unsigned bytes with `expected_ndims` dimensions. `missing_hint`
/// is appended to the message when the file does not exist (e.g. which Debian package
/// provides it). Throws DataError naming the file, what its header claims and what it
/// holds, for: a missing, unreadable or non-regular file; a wrong magic number; sizes whose
/// product overflows; a file that holds fewer bytes than its header claims (truncated) or
/// more (trailing data); a damaged gzip stream.
///
/// Memory: a raw file is checked against its size before anything is allocated; a gzip
/// file whose claim exceeds what its size can decompress to (zlib's 1032:1) is rejected at
/// once, and otherwise its buffer grows with the data actually decompressed (at most twice
/// what was read), so a lying header costs neither memory nor time.
IdxArray read_idx(const std::string& path, int expected_ndims, const std::string& missing_hint = "");

/// Writes an IDX file of unsigned bytes (gzip-compressed when `gzip`). For tests and tools.
void write_idx(const std::string& path, const std::vector<std::uint32_t>& dims,
               const std::vector<std::uint8_t>& data, bool gzip);

}  // namespace pssim::models
