// Sparse embedding rows on the wire: the rows of an embedding table a batch reads, with
// their ids, and everything else of the slice whole. Lossless.
//
// A slice (one part of the flat parameter vector) may hold a share of an embedding table:
// slice elements [at, at + end - begin) are table elements [begin, end), row-major with
// `width` elements per row (a share may start or end inside a row). Wire format, fields
// little-endian as in compressor.hpp:
//   byte 0      kind code 8 (rows)
//   bytes 1-4   n, the slice's element count (u32)
//   bytes 5-8   c, the rows sent (u32)
//   4c bytes    their row ids (u32), increasing
//   then        each sent row's elements inside the share (float32), in row order
//   then        the slice's elements outside the share (float32), in slice order
// Size: 9 + 4c + 4e + 4o bytes for e row elements and o other elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pssim::models {

struct TableShare {
  std::size_t at = 0;      ///< slice index of table element `begin`
  std::int64_t begin = 0;  ///< first table element held
  std::int64_t end = 0;    ///< one past the last
  std::int64_t width = 1;  ///< elements per table row
};

/// Bytes of a message sending `rows` rows with `row_elements` elements between them, and
/// `other_elements` elements outside the table.
std::size_t sparse_rows_bytes(std::int64_t rows, std::int64_t row_elements, std::int64_t other_elements);

/// Encodes `slice` sending only the table rows in `rows` (increasing, distinct; rows with
/// no element in the share are skipped). Throws std::invalid_argument for rows out of
/// order or a share outside the slice.
std::vector<std::uint8_t> encode_sparse_rows(std::span<const float> slice, const TableShare& share,
                                             std::span<const std::int32_t> rows);

/// Decodes into `slice` (of the encoded length): the sent rows and the other elements are
/// written; elements of rows not sent are set to `unsent` (0 for a gradient) unless
/// `keep_unsent`, which leaves them (a worker's copy of parameters). Throws
/// std::invalid_argument for a message that does not match the share.
void decode_sparse_rows(std::span<const std::uint8_t> bytes, const TableShare& share, std::span<float> slice,
                        bool keep_unsent = false, float unsent = 0.0f);

}  // namespace pssim::models
