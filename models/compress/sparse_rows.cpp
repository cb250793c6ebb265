#include "models/compress/sparse_rows.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/compress/wire_fields.hpp"

namespace pssim::models {
namespace {

constexpr std::uint8_t kRowsKind = 8;
constexpr std::size_t kHeader = 9;  // kind, n, c

using wire::get_f32;
using wire::get_u32;
using wire::put_f32;
using wire::put_u32;

void check_share(std::size_t n, const TableShare& s) {
  if (s.width < 1 || s.begin < 0 || s.end < s.begin || s.at + static_cast<std::size_t>(s.end - s.begin) > n)
    throw std::invalid_argument("sparse rows: the table share does not fit the slice");
}

// Slice indices [first, last) of row r's elements inside the share (empty if none).
std::pair<std::size_t, std::size_t> row_span(const TableShare& s, std::int64_t r) {
  const std::int64_t a = std::max(r * s.width, s.begin), b = std::min((r + 1) * s.width, s.end);
  if (a >= b) return {0, 0};
  return {s.at + static_cast<std::size_t>(a - s.begin), s.at + static_cast<std::size_t>(b - s.begin)};
}

}  // namespace

std::size_t sparse_rows_bytes(std::int64_t rows, std::int64_t row_elements, std::int64_t other_elements) {
  return kHeader + 4 * static_cast<std::size_t>(rows + row_elements + other_elements);
}

std::vector<std::uint8_t> encode_sparse_rows(std::span<const float> slice, const TableShare& share,
                                             std::span<const std::int32_t> rows) {
  check_share(slice.size(), share);
  std::vector<std::int32_t> sent;
  std::int64_t elements = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0 && rows[i] <= rows[i - 1]) throw std::invalid_argument("sparse rows: row ids must increase");
    const auto [a, b] = row_span(share, rows[i]);
    if (a < b) sent.push_back(rows[i]), elements += static_cast<std::int64_t>(b - a);
  }
  const auto held = share.end - share.begin;
  const auto other = static_cast<std::int64_t>(slice.size()) - held;
  std::vector<std::uint8_t> out(sparse_rows_bytes(static_cast<std::int64_t>(sent.size()), elements, other));
  out[0] = kRowsKind;
  put_u32(out.data() + 1, static_cast<std::uint32_t>(slice.size()));
  put_u32(out.data() + 5, static_cast<std::uint32_t>(sent.size()));
  std::uint8_t* p = out.data() + kHeader;
  for (std::int32_t r : sent) put_u32(p, static_cast<std::uint32_t>(r)), p += 4;
  const auto put = [&p](float v) { put_f32(p, v), p += 4; };
  for (std::int32_t r : sent) {
    const auto [a, b] = row_span(share, r);
    for (std::size_t i = a; i < b; ++i) put(slice[i]);
  }
  for (std::size_t i = 0; i < slice.size(); ++i)
    if (i < share.at || i >= share.at + static_cast<std::size_t>(held)) put(slice[i]);
  return out;
}

void decode_sparse_rows(std::span<const std::uint8_t> bytes, const TableShare& share, std::span<float> slice,
                        bool keep_unsent, float unsent) {
  check_share(slice.size(), share);
  if (bytes.size() < kHeader || bytes[0] != kRowsKind || get_u32(bytes.data() + 1) != slice.size())
    throw std::invalid_argument("sparse rows: not a rows message for this slice");
  const std::size_t c = get_u32(bytes.data() + 5);
  if (c > (bytes.size() - kHeader) / 4) throw std::invalid_argument("sparse rows: truncated message");
  const std::uint8_t* ids = bytes.data() + kHeader;
  const auto held = static_cast<std::size_t>(share.end - share.begin);
  std::size_t values = 0;
  for (std::size_t i = 0; i < c; ++i) {
    const auto [a, b] = row_span(share, static_cast<std::int32_t>(get_u32(ids + 4 * i)));
    if (a >= b) throw std::invalid_argument("sparse rows: a row outside the share");
    values += b - a;
  }
  if (bytes.size() != kHeader + 4 * (c + values + slice.size() - held))
    throw std::invalid_argument("sparse rows: the message size does not match its rows");
  if (!keep_unsent) std::fill(slice.begin() + static_cast<std::ptrdiff_t>(share.at),
                              slice.begin() + static_cast<std::ptrdiff_t>(share.at + held), unsent);
  const std::uint8_t* p = ids + 4 * c;
  const auto get = [&p] {
    const float v = get_f32(p);
    p += 4;
    return v;
  };
  for (std::size_t i = 0; i < c; ++i) {
    const auto [a, b] = row_span(share, static_cast<std::int32_t>(get_u32(ids + 4 * i)));
    for (std::size_t k = a; k < b; ++k) slice[k] = get();
  }
  for (std::size_t i = 0; i < slice.size(); ++i)
    if (i < share.at || i >= share.at + held) slice[i] = get();
}

}  // namespace pssim::models
