// Sparse embedding rows on the wire (models/compress/sparse_rows.hpp).
#include <vector>

#include <catch2/catch.hpp>

#include "models/compress/sparse_rows.hpp"

using namespace pssim::models;

TEST_CASE("sparse rows: size formula, round trip, partial rows at the share's ends", "[sparse_rows]") {
  // A slice of 14 elements: 2 others, then table elements 3 .. 12 of rows of width 4 (row 0:
  // table element 3 at slice 2; row 1: slice 3 .. 6; row 2: slice 7 .. 10; row 3: table
  // element 12 at slice 11), then 2 others.
  std::vector<float> slice(14);
  for (std::size_t i = 0; i < slice.size(); ++i) slice[i] = static_cast<float>(i) + 0.5f;
  const TableShare share{2, 3, 13, 4};
  const std::vector<std::int32_t> rows = {0, 2, 3, 7};  // row 7 is outside the share: skipped
  const auto bytes = encode_sparse_rows(slice, share, rows);
  // 3 rows sent with 1 + 4 + 1 elements, 4 other elements: 9 + 4 x (3 + 6 + 4) = 61.
  CHECK(bytes.size() == 61);
  CHECK(sparse_rows_bytes(3, 6, 4) == 61);
  std::vector<float> got(14, -1.0f);
  decode_sparse_rows(bytes, share, got);
  for (std::size_t i = 0; i < 14; ++i) {
    const bool row1 = i >= 3 && i < 7;  // slice elements of row 1 (table 4 .. 7): not sent
    INFO("element " << i);
    CHECK(got[i] == (row1 ? 0.0f : slice[i]));
  }
  std::vector<float> kept(14, -1.0f);
  decode_sparse_rows(bytes, share, kept, true);
  for (std::size_t i = 3; i < 7; ++i) CHECK(kept[i] == -1.0f);
  CHECK(kept[2] == slice[2]);
  CHECK(kept[7] == slice[7]);
}

TEST_CASE("sparse rows reject what does not fit", "[sparse_rows]") {
  std::vector<float> slice(8, 1.0f);
  const TableShare share{0, 0, 8, 4};
  CHECK_THROWS_AS(encode_sparse_rows(slice, share, std::vector<std::int32_t>{1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(encode_sparse_rows(slice, TableShare{4, 0, 8, 4}, std::vector<std::int32_t>{0}),
                  std::invalid_argument);
  auto bytes = encode_sparse_rows(slice, share, std::vector<std::int32_t>{1});
  std::vector<float> out(8);
  bytes.pop_back();
  CHECK_THROWS_AS(decode_sparse_rows(bytes, share, out), std::invalid_argument);
  std::vector<float> wrong(9);
  CHECK_THROWS_AS(decode_sparse_rows(encode_sparse_rows(slice, share, std::vector<std::int32_t>{1}), share, wrong),
                  std::invalid_argument);
}
