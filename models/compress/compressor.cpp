#include "models/compress/compressor.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <fmt/format.h>

#include "models/compress/fp16.hpp"
#include "models/compress/wire_fields.hpp"

#if defined(__F16C__) && defined(__AVX__)
#include <immintrin.h>
#endif
#include "models/core/seed.hpp"

namespace pssim::models {
namespace {

constexpr std::size_t kHeader = 5;        // kind byte + u32 n
constexpr std::size_t kSparseHeader = 9;  // + u32 count
constexpr std::uint8_t kBitmapFlag = 0x80;

using wire::get_f32;
using wire::get_u32;
using wire::get_u64;
using wire::put_f32;
using wire::put_u32;
using wire::put_u64;

// ---- bit packing, LSB first -------------------------------------------------------------

class BitWriter {
 public:
  explicit BitWriter(std::uint8_t* p) : p_(p) {}
  /// Appends the low `bits` (<= 32) bits of v.
  void put(std::uint64_t v, unsigned bits) {
    acc_ |= v << fill_;
    fill_ += bits;
    while (fill_ >= 8) {
      *p_++ = std::uint8_t(acc_);
      acc_ >>= 8;
      fill_ -= 8;
    }
  }
  void flush() {
    if (fill_ > 0) *p_++ = std::uint8_t(acc_);
    acc_ = 0, fill_ = 0;
  }

 private:
  std::uint8_t* p_;
  std::uint64_t acc_ = 0;
  unsigned fill_ = 0;
};

// Reads only bytes it needs: the caller has checked that the region holds every field.
class BitReader {
 public:
  explicit BitReader(const std::uint8_t* p) : p_(p) {}
  std::uint32_t get(unsigned bits) {
    while (fill_ < bits) {
      acc_ |= std::uint64_t(*p_++) << fill_;
      fill_ += 8;
    }
    const auto v = std::uint32_t(acc_ & ((std::uint64_t{1} << bits) - 1));
    acc_ >>= bits;
    fill_ -= bits;
    return v;
  }

 private:
  const std::uint8_t* p_;
  std::uint64_t acc_ = 0;
  unsigned fill_ = 0;
};

constexpr std::size_t bytes_for_bits(std::uint64_t bits) { return std::size_t((bits + 7) / 8); }

/// ceil(log2 n): the bits an index in [0, n) really needs (0 for n <= 1).
unsigned index_bits(std::size_t n) { return n <= 1 ? 0u : unsigned(std::bit_width(n - 1)); }

/// Bits of one qsgd field: sign + ceil(log2(s + 1)) level bits.
unsigned qsgd_field_bits(std::int64_t levels) {
  return 1u + unsigned(std::bit_width(std::uint64_t(levels)));
}

std::size_t index_list_bytes(std::size_t n, std::size_t c) {
  return bytes_for_bits(std::uint64_t(c) * index_bits(n));
}
bool use_bitmap(std::size_t n, std::size_t c) {
  return bytes_for_bits(n) < index_list_bytes(n, c);
}
std::size_t index_set_bytes(std::size_t n, std::size_t c, bool bitmap) {
  return bitmap ? bytes_for_bits(n) : index_list_bytes(n, c);
}
std::size_t sparse_size(std::size_t n, std::size_t c) {
  return kSparseHeader + index_set_bytes(n, c, use_bitmap(n, c)) + 4 * c;
}

bool is_sparse(CompressorKind k) {
  return k == CompressorKind::topk || k == CompressorKind::dgc || k == CompressorKind::threshold;
}

// ---- selection ----------------------------------------------------------------------------

/// |x| with NaN as the largest magnitude: a diverged gradient is always sent.
float magnitude(float x) {
  return std::isnan(x) ? std::numeric_limits<float>::infinity() : std::fabs(x);
}

/// Strict total order "a before b": larger magnitude first, lower index on ties — so the
/// top k is one well-defined set whatever nth_element's implementation does.
struct ByMagnitude {
  const float* x;
  bool operator()(std::uint32_t a, std::uint32_t b) const {
    const float ma = magnitude(x[a]), mb = magnitude(x[b]);
    return ma > mb || (ma == mb && a < b);
  }
};

/// Keeps the k first of `idx` in ByMagnitude order; leaves them in increasing index order.
void keep_top_k(std::span<const float> x, std::vector<std::uint32_t>& idx, std::size_t k) {
  if (idx.size() > k) {
    std::nth_element(idx.begin(), idx.begin() + std::ptrdiff_t(k), idx.end(),
                     ByMagnitude{x.data()});
    idx.resize(k);
  }
  std::sort(idx.begin(), idx.end());
}

/// Partial Fisher-Yates: the first k entries of a uniformly shuffled 0..n-1. The
/// permutation is kept in an array when k is a large part of n, else as a hash map of the
/// displaced entries (O(k) memory); both give the same indices for the same engine.
std::vector<std::uint32_t> draw_random_k(std::size_t n, std::size_t k, std::uint64_t seed) {
  Engine engine(derive_seed(seed, "randomk"));
  std::vector<std::uint32_t> out(k);
  if (k * 8 >= n) {
    std::vector<std::uint32_t> a(n);
    std::iota(a.begin(), a.end(), 0u);
    for (std::size_t i = 0; i < k; ++i) {
      boost::random::uniform_int_distribution<std::uint64_t> pick(i, n - 1);
      std::swap(a[i], a[std::size_t(pick(engine))]);
      out[i] = a[i];
    }
    return out;
  }
  std::unordered_map<std::uint32_t, std::uint32_t> moved;
  moved.reserve(2 * k);
  auto at = [&](std::uint32_t pos) {
    const auto it = moved.find(pos);
    return it == moved.end() ? pos : it->second;
  };
  for (std::size_t i = 0; i < k; ++i) {
    boost::random::uniform_int_distribution<std::uint64_t> pick(i, n - 1);
    const auto j = std::uint32_t(pick(engine));
    const std::uint32_t vi = at(std::uint32_t(i)), vj = at(j);
    out[i] = vj;
    moved[j] = vi;  // position i is never read again (later draws start above i)
  }
  return out;
}

// ---- header ---------------------------------------------------------------------------------

std::vector<std::uint8_t> start_message(CompressorKind kind, std::size_t n, std::size_t size,
                                        bool bitmap = false) {
  std::vector<std::uint8_t> out(size, 0);
  out[0] = std::uint8_t(std::uint8_t(kind) | (bitmap ? kBitmapFlag : 0));
  put_u32(out.data() + 1, std::uint32_t(n));
  return out;
}

std::string kind_name(std::uint8_t code) {
  if (code <= std::uint8_t(CompressorKind::threshold)) {
    return std::string(to_string(CompressorKind(code)));
  }
  return fmt::format("unknown code {}", code);
}

/// Checks the header against this compressor and n; returns the bitmap flag.
bool check_header(std::span<const std::uint8_t> bytes, CompressorKind kind, std::size_t n) {
  const std::size_t need = is_sparse(kind) ? kSparseHeader : kHeader;
  if (bytes.size() < need) {
    throw std::invalid_argument(fmt::format(
        "compressed {} message of {} bytes is shorter than its {}-byte header; the message is "
        "truncated or not a compressor message",
        to_string(kind), bytes.size(), need));
  }
  const std::uint8_t code = bytes[0] & std::uint8_t(~kBitmapFlag);
  const bool bitmap = (bytes[0] & kBitmapFlag) != 0;
  if (code != std::uint8_t(kind)) {
    throw std::invalid_argument(fmt::format(
        "compressed message was encoded by '{}' but this compressor is '{}'; decode with the "
        "spec it was encoded with",
        kind_name(code), to_string(kind)));
  }
  if (bitmap && !is_sparse(kind)) {
    throw std::invalid_argument(fmt::format(
        "compressed {} message has the bitmap flag set, which only sparse kinds use; the "
        "header is damaged",
        to_string(kind)));
  }
  const std::uint32_t n_msg = get_u32(bytes.data() + 1);
  if (n_msg != n) {
    throw std::invalid_argument(fmt::format(
        "compressed {} message holds {} elements but the output has {}; decode into the slice "
        "it was encoded from",
        to_string(kind), n_msg, n));
  }
  return bitmap;
}

void check_size(std::span<const std::uint8_t> bytes, CompressorKind kind, std::size_t n,
                std::size_t expected, std::string_view what = {}) {
  if (bytes.size() != expected) {
    throw std::invalid_argument(fmt::format(
        "compressed {} message for n = {}{} must be {} bytes, got {}; it is {}", to_string(kind),
        n, what, expected, bytes.size(), bytes.size() < expected ? "truncated" : "too long"));
  }
}

// ---- per-kind encoders ------------------------------------------------------------------------

std::vector<std::uint8_t> encode_sparse(CompressorKind kind, std::span<const float> x,
                                        const std::vector<std::uint32_t>& idx) {
  const std::size_t n = x.size(), c = idx.size();
  const bool bitmap = use_bitmap(n, c);
  const std::size_t set_bytes = index_set_bytes(n, c, bitmap);
  auto out = start_message(kind, n, kSparseHeader + set_bytes + 4 * c, bitmap);
  put_u32(out.data() + kHeader, std::uint32_t(c));
  std::uint8_t* p = out.data() + kSparseHeader;
  if (bitmap) {
    for (std::uint32_t i : idx) p[i >> 3] |= std::uint8_t(1u << (i & 7u));
  } else {
    BitWriter w(p);
    const unsigned bits = index_bits(n);
    for (std::uint32_t i : idx) w.put(i, bits);
    w.flush();
  }
  p += set_bytes;
  for (std::uint32_t i : idx) {
    put_f32(p, x[i]);
    p += 4;
  }
  return out;
}

/// Bits of magnitude(x) as an unsigned integer: the order of non-negative floats (and of
/// +inf, which NaN maps to) is the order of their bit patterns.
std::uint32_t magnitude_key(float x) { return std::bit_cast<std::uint32_t>(magnitude(x)); }

/// The k-th largest magnitude key (1 <= k <= n), by radix selection on the high then the
/// low 16 bits: two counting passes instead of a comparison-based selection.
std::uint32_t kth_largest_key(std::span<const float> x, std::size_t k) {
  std::vector<std::uint32_t> count(1u << 16);
  for (float v : x) ++count[magnitude_key(v) >> 16];
  std::uint32_t high = 0xffff;
  for (;; --high) {  // the bin holding the k-th largest, counting from the top
    if (count[high] >= k) break;
    k -= count[high];
  }
  std::fill(count.begin(), count.end(), 0u);
  for (float v : x) {
    const std::uint32_t key = magnitude_key(v);
    if ((key >> 16) == high) ++count[key & 0xffff];
  }
  std::uint32_t low = 0xffff;
  for (;; --low) {
    if (count[low] >= k) break;
    k -= count[low];
  }
  return (high << 16) | low;
}

// The same set as keep_top_k over all indices: every magnitude above the k-th largest,
// then, in index order, those equal to it until there are k.
std::vector<std::uint8_t> encode_topk(std::span<const float> x, double ratio) {
  const std::size_t n = x.size(), k = sparse_k(ratio, n);
  std::vector<std::uint32_t> idx;
  if (k > 0) {
    const std::uint32_t kth = kth_largest_key(x, k);
    std::size_t above = 0;
    for (float v : x) above += magnitude_key(v) > kth;
    std::size_t ties = k - above;  // entries equal to the k-th to take, lowest index first
    idx.reserve(k);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t key = magnitude_key(x[i]);
      if (key > kth || (key == kth && ties > 0 && ties--)) idx.push_back(std::uint32_t(i));
    }
  }
  return encode_sparse(CompressorKind::topk, x, idx);
}

std::vector<std::uint8_t> encode_dgc(std::span<const float> x, const CompressorSpec& spec,
                                     std::uint64_t seed) {
  const std::size_t n = x.size();
  const std::size_t k = sparse_k(spec.ratio, n);
  std::vector<std::uint32_t> idx;
  if (n > 0) {
    const auto wanted = std::size_t(std::ceil(spec.dgc_sample * double(n)));
    const std::size_t m = std::min(n, std::max<std::size_t>(wanted, 1000));
    std::vector<float> sample(m);
    if (m == n) {
      for (std::size_t i = 0; i < n; ++i) sample[i] = magnitude(x[i]);
    } else {
      // With replacement, as DGC's reference implementation (torch.randint) does.
      Engine engine(derive_seed(seed, "dgc"));
      boost::random::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
      for (auto& s : sample) s = magnitude(x[std::size_t(pick(engine))]);
    }
    // ceil(k m / n) in exact integer arithmetic (k m can exceed 2^53).
    __extension__ using U128 = unsigned __int128;
    auto ks = std::size_t((U128(k) * m + n - 1) / n);
    ks = std::clamp<std::size_t>(ks, 1, m);
    std::nth_element(sample.begin(), sample.begin() + std::ptrdiff_t(ks - 1), sample.end(),
                     std::greater<float>());
    const float threshold = sample[ks - 1];
    for (std::size_t i = 0; i < n; ++i) {
      if (magnitude(x[i]) >= threshold) idx.push_back(std::uint32_t(i));
    }
    if (idx.size() > 2 * k) keep_top_k(x, idx, k);
  }
  return encode_sparse(CompressorKind::dgc, x, idx);
}

std::vector<std::uint8_t> encode_threshold(std::span<const float> x, double threshold) {
  std::vector<std::uint32_t> idx;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (double(magnitude(x[i])) >= threshold) idx.push_back(std::uint32_t(i));
  }
  return encode_sparse(CompressorKind::threshold, x, idx);
}

std::vector<std::uint8_t> encode_randomk(std::span<const float> x, double ratio,
                                         std::uint64_t seed) {
  const std::size_t n = x.size(), k = sparse_k(ratio, n);
  auto out = start_message(CompressorKind::randomk, n, kHeader + 8 + 4 * k);
  put_u64(out.data() + kHeader, seed);
  std::uint8_t* p = out.data() + kHeader + 8;
  // Raw values: the n / k scaling is applied on decode, so the wire keeps x exactly.
  for (std::uint32_t i : draw_random_k(n, k, seed)) {
    put_f32(p, x[i]);
    p += 4;
  }
  return out;
}

std::vector<std::uint8_t> encode_qsgd(std::span<const float> x, std::int64_t levels,
                                      std::uint64_t seed) {
  const std::size_t n = x.size();
  const unsigned field = qsgd_field_bits(levels);
  auto out = start_message(CompressorKind::qsgd, n,
                           kHeader + 4 + bytes_for_bits(std::uint64_t(n) * field));
  double sum_sq = 0;
  for (float v : x) sum_sq += double(v) * double(v);
  const double norm = std::sqrt(sum_sq);
  // Round the norm UP to float32: then r = s|x|/norm <= s for every element (no clamping,
  // so no bias), and the decoder uses exactly the norm the levels were computed with.
  float norm_f = float(norm);
  if (double(norm_f) < norm) {
    norm_f = std::nextafter(norm_f, std::numeric_limits<float>::infinity());
  }
  put_f32(out.data() + kHeader, norm_f);
  const bool usable = std::isfinite(norm_f) && norm_f > 0;
  const auto s = double(levels);
  Engine engine(derive_seed(seed, "qsgd"));
  boost::random::uniform_01<double> unit;
  BitWriter w(out.data() + kHeader + 4);
  for (float v : x) {
    std::uint64_t level = 0;
    const double u = unit(engine);  // one draw per element, whatever the data
    if (usable) {
      const double r = s * double(std::fabs(v)) / double(norm_f);
      const double fl = std::floor(r);
      level = std::uint64_t(fl) + (u < r - fl ? 1 : 0);
      level = std::min(level, std::uint64_t(levels));
    }
    w.put((level << 1) | (v < 0 ? 1u : 0u), field);
  }
  w.flush();
  return out;
}

std::vector<std::uint8_t> encode_sign(std::span<const float> x) {
  const std::size_t n = x.size();
  auto out = start_message(CompressorKind::sign, n, kHeader + 4 + bytes_for_bits(n));
  double l1 = 0;
  for (float v : x) l1 += std::fabs(double(v));
  put_f32(out.data() + kHeader, n == 0 ? 0.0f : float(l1 / double(n)));
  std::uint8_t* p = out.data() + kHeader + 4;
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] < 0) p[i >> 3] |= std::uint8_t(1u << (i & 7u));
  }
  return out;
}

// ---- per-kind decoders ------------------------------------------------------------------------

void decode_sparse(std::span<const std::uint8_t> bytes, CompressorKind kind, bool bitmap,
                   std::span<float> out, std::vector<std::uint32_t>* carried) {
  const std::size_t n = out.size();
  const std::uint32_t c = get_u32(bytes.data() + kHeader);
  if (c > n) {
    throw std::invalid_argument(fmt::format(
        "compressed {} message claims {} entries for n = {}; the header is damaged or the "
        "message belongs to a larger slice",
        to_string(kind), c, n));
  }
  const std::size_t set_bytes = index_set_bytes(n, c, bitmap);
  check_size(bytes, kind, n, kSparseHeader + set_bytes + 4 * std::size_t(c),
             fmt::format(" and {} entries ({})", c, bitmap ? "bitmap" : "index list"));
  const std::uint8_t* set = bytes.data() + kSparseHeader;
  const std::uint8_t* values = set + set_bytes;
  std::fill(out.begin(), out.end(), 0.0f);
  if (carried) carried->clear();
  auto damaged = [&](const std::string& what) {
    return std::invalid_argument(fmt::format("compressed {} message for n = {}: {}",
                                             to_string(kind), n, what));
  };
  if (bitmap) {
    std::size_t ones = 0;
    for (std::size_t b = 0; b < set_bytes; ++b) ones += std::size_t(std::popcount(set[b]));
    if (ones != c) {
      throw damaged(fmt::format("the bitmap has {} bits set, the count says {}", ones, c));
    }
    if (n % 8 != 0 && (set[set_bytes - 1] >> (n % 8)) != 0) {
      throw damaged("the bitmap has bits set beyond element n - 1");
    }
    std::size_t j = 0;
    for (std::size_t b = 0; b < set_bytes; ++b) {
      for (unsigned bits = set[b]; bits != 0; bits &= bits - 1) {
        const std::size_t i = 8 * b + std::size_t(std::countr_zero(bits));
        out[i] = get_f32(values + 4 * j++);
        if (carried) carried->push_back(std::uint32_t(i));
      }
    }
    return;
  }
  BitReader r(set);
  const unsigned bits = index_bits(n);
  std::int64_t previous = -1;
  for (std::size_t j = 0; j < c; ++j) {
    const std::uint32_t i = r.get(bits);
    if (i >= n || std::int64_t(i) <= previous) {
      throw damaged(fmt::format("index {} of entry {} is out of range or not increasing", i, j));
    }
    previous = i;
    out[i] = get_f32(values + 4 * j);
    if (carried) carried->push_back(i);
  }
}

}  // namespace

// ---- public -------------------------------------------------------------------------------------

CompressorKind parse_compressor_kind(std::string_view name) {
  for (auto k : {CompressorKind::none, CompressorKind::fp16, CompressorKind::topk,
                 CompressorKind::dgc, CompressorKind::randomk, CompressorKind::qsgd,
                 CompressorKind::sign, CompressorKind::threshold}) {
    if (name == to_string(k)) return k;
  }
  throw std::invalid_argument(fmt::format(
      "compression kind '{}' is unknown; known kinds: none, fp16, topk, dgc, randomk, qsgd, "
      "sign, threshold",
      name));
}

std::string_view to_string(CompressorKind kind) {
  switch (kind) {
    case CompressorKind::none: return "none";
    case CompressorKind::fp16: return "fp16";
    case CompressorKind::topk: return "topk";
    case CompressorKind::dgc: return "dgc";
    case CompressorKind::randomk: return "randomk";
    case CompressorKind::qsgd: return "qsgd";
    case CompressorKind::sign: return "sign";
    case CompressorKind::threshold: return "threshold";
  }
  return "?";
}

void validate(const CompressorSpec& s, std::string_view where) {
  auto fail = [&](std::string_view field, const std::string& msg) {
    throw std::invalid_argument(fmt::format("{}.{}: {}", where, field, msg));
  };
  if (!(s.ratio > 0 && s.ratio <= 1)) {
    fail("ratio", fmt::format("{} must be in (0, 1]: the fraction of elements topk, dgc and "
                              "randomk send (e.g. 0.01)", s.ratio));
  }
  if (s.levels < 1 || s.levels > kMaxQsgdLevels) {
    fail("levels", fmt::format("{} must be between 1 and {}: qsgd's quantization levels s "
                               "(7 = 4 bits per element, 1 = ternary)", s.levels, kMaxQsgdLevels));
  }
  if (!(s.threshold >= 0) || !std::isfinite(s.threshold)) {
    fail("threshold", fmt::format("{} must be finite and >= 0: elements with |x| >= threshold "
                                  "are sent", s.threshold));
  }
  if (!(s.dgc_sample > 0 && s.dgc_sample <= 1)) {
    fail("dgc_sample", fmt::format("{} must be in (0, 1]: the fraction of elements dgc samples "
                                   "to estimate its threshold (e.g. 0.01)", s.dgc_sample));
  }
}

std::size_t sparse_k(double ratio, std::size_t n) {
  if (n == 0) return 0;
  const auto k = std::size_t(std::llround(ratio * double(n)));
  return std::clamp<std::size_t>(k, 1, n);
}

Compressor::Compressor(CompressorSpec spec) : spec_(spec) { validate(spec_); }

std::vector<std::uint8_t> Compressor::encode(std::span<const float> values,
                                             std::uint64_t seed) const {
  if (values.size() > kMaxCompressElements) {
    throw std::invalid_argument(fmt::format(
        "cannot compress {} elements in one message (at most {}); split the slice",
        values.size(), kMaxCompressElements));
  }
  const std::size_t n = values.size();
  switch (spec_.kind) {
    case CompressorKind::none: {
      auto out = start_message(spec_.kind, n, kHeader + 4 * n);
      for (std::size_t i = 0; i < n; ++i) put_f32(out.data() + kHeader + 4 * i, values[i]);
      return out;
    }
    case CompressorKind::fp16: {
      auto out = start_message(spec_.kind, n, kHeader + 2 * n);
      std::size_t i = 0;
#if defined(__F16C__) && defined(__AVX__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      // The hardware conversion rounds to nearest even and quiets NaNs as float_to_half
      // does (tests/models/compress_test.cpp compares the two bit for bit): 10x faster.
      for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(values.data() + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out.data() + kHeader + 2 * i), h);
      }
#endif
      for (; i < n; ++i) {
        const std::uint16_t h = float_to_half(values[i]);
        out[kHeader + 2 * i] = std::uint8_t(h);
        out[kHeader + 2 * i + 1] = std::uint8_t(h >> 8);
      }
      return out;
    }
    case CompressorKind::topk: return encode_topk(values, spec_.ratio);
    case CompressorKind::dgc: return encode_dgc(values, spec_, seed);
    case CompressorKind::randomk: return encode_randomk(values, spec_.ratio, seed);
    case CompressorKind::qsgd: return encode_qsgd(values, spec_.levels, seed);
    case CompressorKind::sign: return encode_sign(values);
    case CompressorKind::threshold: return encode_threshold(values, spec_.threshold);
  }
  throw std::logic_error("Compressor::encode: unknown kind");
}

void Compressor::decode(std::span<const std::uint8_t> bytes, std::span<float> out) const {
  decode_impl(bytes, out, nullptr);
}

void Compressor::decode(std::span<const std::uint8_t> bytes, std::span<float> out,
                        std::vector<std::uint32_t>& carried) const {
  decode_impl(bytes, out, &carried);
}

void Compressor::decode_impl(std::span<const std::uint8_t> bytes, std::span<float> out,
                             std::vector<std::uint32_t>* carried) const {
  const std::size_t n = out.size();
  const CompressorKind kind = spec_.kind;
  const bool bitmap = check_header(bytes, kind, n);
  if (is_sparse(kind)) {
    decode_sparse(bytes, kind, bitmap, out, carried);
    return;
  }
  // Dense kinds carry every coordinate; randomk overwrites this with its draw.
  auto carry_all = [&] {
    if (!carried) return;
    carried->resize(n);
    std::iota(carried->begin(), carried->end(), 0u);
  };
  const std::uint8_t* p = bytes.data() + kHeader;
  switch (kind) {
    case CompressorKind::none:
      check_size(bytes, kind, n, kHeader + 4 * n);
      for (std::size_t i = 0; i < n; ++i) out[i] = get_f32(p + 4 * i);
      carry_all();
      return;
    case CompressorKind::fp16:
      check_size(bytes, kind, n, kHeader + 2 * n);
      {
        std::size_t i = 0;
#if defined(__F16C__) && defined(__AVX__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        for (; i + 8 <= n; i += 8)  // exact, as half_to_float
          _mm256_storeu_ps(out.data() + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i))));
#endif
        for (; i < n; ++i) out[i] = half_to_float(std::uint16_t(p[2 * i] | (p[2 * i + 1] << 8)));
      }
      carry_all();
      return;
    case CompressorKind::randomk: {
      const std::size_t k = sparse_k(spec_.ratio, n);
      check_size(bytes, kind, n, kHeader + 8 + 4 * k,
                 fmt::format(" and ratio {} (k = {})", spec_.ratio, k));
      const auto idx = draw_random_k(n, k, get_u64(p));
      std::fill(out.begin(), out.end(), 0.0f);
      // Unbiased: each index is drawn with probability k / n, so scale by n / k.
      const double scale = k == 0 ? 0.0 : double(n) / double(k);
      for (std::size_t j = 0; j < k; ++j) {
        out[idx[j]] = float(double(get_f32(p + 8 + 4 * j)) * scale);
      }
      if (carried) *carried = idx;
      return;
    }
    case CompressorKind::qsgd: {
      const unsigned field = qsgd_field_bits(spec_.levels);
      check_size(bytes, kind, n, kHeader + 4 + bytes_for_bits(std::uint64_t(n) * field),
                 fmt::format(" and {} levels", spec_.levels));
      const double norm = get_f32(p);
      const auto s = double(spec_.levels);
      BitReader r(p + 4);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t v = r.get(field);
        const std::uint32_t level = v >> 1;
        if (level > std::uint64_t(spec_.levels)) {
          throw std::invalid_argument(fmt::format(
              "compressed qsgd message for n = {}: element {} has level {} above s = {}; the "
              "message is damaged or was encoded with other levels",
              n, i, level, spec_.levels));
        }
        const double mag = norm * double(level) / s;
        out[i] = float((v & 1u) ? -mag : mag);
      }
      carry_all();
      return;
    }
    case CompressorKind::sign: {
      check_size(bytes, kind, n, kHeader + 4 + bytes_for_bits(n));
      const float scale = get_f32(p);
      for (std::size_t i = 0; i < n; ++i) {
        out[i] = (p[4 + (i >> 3)] >> (i & 7u)) & 1u ? -scale : scale;
      }
      carry_all();
      return;
    }
    default: break;
  }
  throw std::logic_error("Compressor::decode: unknown kind");
}

std::optional<std::size_t> Compressor::fixed_size(std::size_t n) const {
  switch (spec_.kind) {
    case CompressorKind::none: return kHeader + 4 * n;
    case CompressorKind::fp16: return kHeader + 2 * n;
    case CompressorKind::topk:
    case CompressorKind::dgc: return sparse_size(n, sparse_k(spec_.ratio, n));
    case CompressorKind::randomk: return kHeader + 8 + 4 * sparse_k(spec_.ratio, n);
    case CompressorKind::qsgd:
      return kHeader + 4 + bytes_for_bits(std::uint64_t(n) * qsgd_field_bits(spec_.levels));
    case CompressorKind::sign: return kHeader + 4 + bytes_for_bits(n);
    case CompressorKind::threshold: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace pssim::models
