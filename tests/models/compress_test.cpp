// Gradient compressors: wire formats and sizes, what each kind keeps, unbiasedness of
// randomk and qsgd, fp16 rounding, error feedback and momentum correction invariants,
// determinism, and the errors for bad bytes and specs.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "models/compress/compressor.hpp"
#include "models/compress/feedback.hpp"
#include "models/compress/fp16.hpp"
#include "models/core/seed.hpp"

using namespace pssim::models;

namespace {

const CompressorKind kAllKinds[] = {CompressorKind::none,    CompressorKind::fp16,
                                    CompressorKind::topk,    CompressorKind::dgc,
                                    CompressorKind::randomk, CompressorKind::qsgd,
                                    CompressorKind::sign,    CompressorKind::threshold};

std::vector<float> normal_vector(std::size_t n, std::uint64_t seed, double sd = 1.0) {
  Engine engine(seed);
  boost::random::normal_distribution<double> normal(0.0, sd);
  std::vector<float> x(n);
  for (auto& v : x) v = float(normal(engine));
  return x;
}

Compressor make(CompressorKind kind, double ratio = 0.01) {
  CompressorSpec s;
  s.kind = kind;
  s.ratio = ratio;
  s.threshold = 1.0;
  return Compressor(s);
}

std::vector<float> roundtrip(const Compressor& c, std::span<const float> x, std::uint64_t seed) {
  std::vector<float> out(x.size(), -1.0f);
  c.decode(c.encode(x, seed), out);
  return out;
}

std::uint32_t u32_at(const std::vector<std::uint8_t>& b, std::size_t at) {
  return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
         std::uint32_t(b[at + 3]) << 24;
}

std::size_t ceil8(std::uint64_t bits) { return std::size_t((bits + 7) / 8); }
std::size_t log2_ceil(std::size_t n) { return n <= 1 ? 0 : std::size_t(std::bit_width(n - 1)); }

// The formulas of the header, written out again independently of the implementation.
std::size_t sparse_bytes(std::size_t n, std::size_t c) {
  return 9 + std::min(ceil8(std::uint64_t(c) * log2_ceil(n)), ceil8(n)) + 4 * c;
}
std::size_t expected_k(double ratio, std::size_t n) {
  if (n == 0) return 0;
  return std::clamp<std::size_t>(std::size_t(std::llround(ratio * double(n))), 1, n);
}

}  // namespace

TEST_CASE("compressor kinds parse, print and list the valid names", "[compress]") {
  for (auto k : kAllKinds) CHECK(parse_compressor_kind(to_string(k)) == k);
  REQUIRE_THROWS_AS(parse_compressor_kind("top-k"), std::invalid_argument);
  REQUIRE_THROWS_WITH(
      parse_compressor_kind("top-k"),
      Catch::Contains("'top-k'") &&
          Catch::Contains("none, fp16, topk, dgc, randomk, qsgd, sign, threshold"));
}

TEST_CASE("validate names the field and the fix", "[compress]") {
  CompressorSpec ok;
  CHECK_NOTHROW(validate(ok));
  auto bad = [](auto edit) {
    CompressorSpec s;
    edit(s);
    return s;
  };
  REQUIRE_THROWS_WITH(validate(bad([](auto& s) { s.ratio = 0; }), "compression.push"),
                      Catch::StartsWith("compression.push.ratio: 0 must be in (0, 1]"));
  REQUIRE_THROWS_WITH(validate(bad([](auto& s) { s.ratio = 1.5; })),
                      Catch::StartsWith("compression.ratio: 1.5"));
  REQUIRE_THROWS_WITH(validate(bad([](auto& s) { s.ratio = std::nan(""); })),
                      Catch::Contains("ratio"));
  REQUIRE_THROWS_WITH(validate(bad([](auto& s) { s.levels = 0; }), "compression.pull"),
                      Catch::StartsWith("compression.pull.levels: 0 must be between 1 and"));
  REQUIRE_THROWS_WITH(validate(bad([](auto& s) { s.levels = kMaxQsgdLevels + 1; })),
                      Catch::Contains("levels"));
  REQUIRE_THROWS_WITH(validate(bad([](auto& s) { s.threshold = -1; })),
                      Catch::StartsWith("compression.threshold: -1 must be finite and >= 0"));
  REQUIRE_THROWS_WITH(validate(bad([](auto& s) { s.threshold = INFINITY; })),
                      Catch::Contains("threshold"));
  REQUIRE_THROWS_WITH(validate(bad([](auto& s) { s.dgc_sample = 0; })),
                      Catch::StartsWith("compression.dgc_sample: 0 must be in (0, 1]"));
  // The constructor validates too.
  REQUIRE_THROWS_AS(Compressor(bad([](auto& s) { s.levels = -3; })), std::invalid_argument);
}

TEST_CASE("encoded sizes: fixed_size matches encode and the formulas", "[compress]") {
  // 2^20 + 3: a realistic shard, not a power of two (20-bit ... 21-bit indices).
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000),
                        std::size_t((1u << 20) + 3)}) {
    const auto x = normal_vector(n, 42 + n);
    const std::size_t k = expected_k(0.01, n);
    for (auto kind : kAllKinds) {
      CAPTURE(n, to_string(kind));
      const auto c = make(kind);
      const auto bytes = c.encode(x, 7);
      const auto fixed = c.fixed_size(n);
      REQUIRE(bytes.size() >= 5);
      CHECK(bytes[0] == (std::uint8_t(kind) | (bytes[0] & 0x80)));
      CHECK(u32_at(bytes, 1) == n);
      switch (kind) {
        case CompressorKind::none: CHECK(*fixed == 5 + 4 * n); break;
        case CompressorKind::fp16: CHECK(*fixed == 5 + 2 * n); break;
        case CompressorKind::topk:
        case CompressorKind::dgc: CHECK(*fixed == sparse_bytes(n, k)); break;
        case CompressorKind::randomk: CHECK(*fixed == 13 + 4 * k); break;
        case CompressorKind::qsgd:  // s = 7: 1 sign + 3 level bits
          CHECK(*fixed == 9 + ceil8(4 * std::uint64_t(n)));
          break;
        case CompressorKind::sign: CHECK(*fixed == 9 + ceil8(n)); break;
        case CompressorKind::threshold: CHECK(!fixed.has_value()); break;
      }
      if (kind == CompressorKind::threshold || kind == CompressorKind::dgc) {
        // Data-dependent count c in the header; the size is the sparse formula at c.
        const std::size_t count = u32_at(bytes, 5);
        CHECK(bytes.size() == sparse_bytes(n, count));
        if (kind == CompressorKind::dgc) {
          CHECK(count <= 2 * k);
          if (n > 0) CHECK(count >= 1);
          // n <= 1000: the "sample" is the whole vector, so exactly k (normal data, no ties).
          if (n <= 1000) CHECK(bytes.size() == *fixed);
        }
      } else {
        CHECK(bytes.size() == *fixed);
      }
      std::vector<float> out(n);
      CHECK_NOTHROW(c.decode(bytes, out));
    }
  }
  // Worked numbers (see the header): topk 1% of 2^20 = 10,486 entries, 20-bit indices:
  // 9 + ceil(10486 * 20 / 8) = 26,215 + 4 * 10,486 = 68,168 bytes.
  CHECK(*make(CompressorKind::topk).fixed_size(1u << 20) == 68168);
  // n = 1000, k = 10, 10-bit indices: 9 + 13 + 40.
  CHECK(*make(CompressorKind::topk).fixed_size(1000) == 62);
  // n = 1: k = 1, zero-bit index: 9 + 0 + 4.
  CHECK(*make(CompressorKind::topk).fixed_size(1) == 13);
  // qsgd with s = 8 levels needs 4 level bits: 1 + 4 = 5 bits per element.
  CompressorSpec q;
  q.kind = CompressorKind::qsgd, q.levels = 8;
  CHECK(*Compressor(q).fixed_size(1000) == 9 + 625);
  q.levels = 1;  // ternary: 2 bits per element
  CHECK(*Compressor(q).fixed_size(1000) == 9 + 250);
}

TEST_CASE("topk wire format, byte by byte", "[compress]") {
  // n = 5, ratio 0.4 -> k = 2. |x| = 1 3 2 3 0: the tie at 3 keeps indices 1 and 3. Indices
  // need ceil(log2 5) = 3 bits: 1 | 3 << 3 = 0x19 in one byte; the bitmap would also take one
  // byte, and a tie goes to the index list (flag clear).
  const std::vector<float> x{1.0f, -3.0f, 2.0f, 3.0f, 0.0f};
  const auto bytes = make(CompressorKind::topk, 0.4).encode(x, 0);
  std::vector<std::uint8_t> expected{2, 5, 0, 0, 0, 2, 0, 0, 0, 0x19};
  for (float v : {-3.0f, 3.0f}) {
    const auto b = std::bit_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) expected.push_back(std::uint8_t(b >> (8 * i)));
  }
  CHECK(bytes == expected);
}

TEST_CASE("topk keeps exactly the k largest magnitudes, ties to the lower index", "[compress]") {
  Engine engine(5);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 1 + std::size_t(trial) * 37 % 500;
    boost::random::uniform_int_distribution<int> level(-6, 6);
    std::vector<float> x(n);
    for (auto& v : x) v = float(level(engine)) * 0.25f;  // 13 values: many ties
    const double ratio = 0.02 + 0.03 * (trial % 10);
    const std::size_t k = expected_k(ratio, n);
    // Reference: a stable sort by magnitude keeps lower indices first among equals.
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return std::fabs(x[a]) > std::fabs(x[b]); });
    std::vector<std::uint32_t> want(order.begin(), order.begin() + std::ptrdiff_t(k));
    std::sort(want.begin(), want.end());

    const auto c = make(CompressorKind::topk, ratio);
    const auto bytes = c.encode(x, 0);
    std::vector<float> out(n);
    std::vector<std::uint32_t> carried;
    c.decode(bytes, out, carried);
    CAPTURE(n, k, trial);
    CHECK(carried == want);
    std::set<std::uint32_t> kept(want.begin(), want.end());
    for (std::size_t i = 0; i < n; ++i) {
      if (kept.count(std::uint32_t(i))) CHECK(out[i] == x[i]);  // exact
      else CHECK(out[i] == 0.0f);
    }
  }
}

TEST_CASE("topk picks the bitmap only when it is smaller", "[compress]") {
  const auto x = normal_vector(64, 3);
  // n = 64, k = 32: 32 six-bit indices = 24 bytes > 8-byte bitmap.
  auto dense = make(CompressorKind::topk, 0.5).encode(x, 0);
  CHECK((dense[0] & 0x80) != 0);
  CHECK(dense.size() == 9 + 8 + 4 * 32);
  // k = 1: 1 byte of index < 8-byte bitmap.
  auto sparse = make(CompressorKind::topk, 1.0 / 64).encode(x, 0);
  CHECK((sparse[0] & 0x80) == 0);
  CHECK(sparse.size() == 9 + 1 + 4);
  // n = 16 (4-bit indices): k = 4 is 2 bytes either way (tie -> indices), k = 5 is 3 > 2.
  const auto y = normal_vector(16, 4);
  CHECK((make(CompressorKind::topk, 4.0 / 16).encode(y, 0)[0] & 0x80) == 0);
  CHECK((make(CompressorKind::topk, 5.0 / 16).encode(y, 0)[0] & 0x80) != 0);
  // Both layouts decode to the same thing.
  for (double r : {0.5, 1.0 / 64}) {
    const auto out = roundtrip(make(CompressorKind::topk, r), x, 0);
    std::size_t nonzero = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (out[i] != 0) {
        ++nonzero;
        CHECK(out[i] == x[i]);
      }
    }
    CHECK(nonzero == expected_k(r, 64));
  }
}

TEST_CASE("threshold keeps |x| >= threshold exactly", "[compress]") {
  const std::vector<float> x{0.5f, -1.0f, 1.5f, -0.99f, 1.0f, 0.0f, -7.0f};
  const auto c = make(CompressorKind::threshold);  // threshold 1.0
  const auto out = roundtrip(c, x, 0);
  CHECK(out == std::vector<float>{0.0f, -1.0f, 1.5f, 0.0f, 1.0f, 0.0f, -7.0f});
  // Nothing above the threshold: an empty message of 9 bytes still decodes to zeros.
  const std::vector<float> small{0.1f, -0.2f};
  CHECK(c.encode(small, 0).size() == 9);
  CHECK(roundtrip(c, small, 0) == std::vector<float>{0.0f, 0.0f});
}

TEST_CASE("dgc: sampled threshold, exact on the whole vector, fallback to top-k", "[compress]") {
  // n <= 1000: the sample is the whole vector, so dgc is exactly topk.
  const auto x = normal_vector(1000, 11);
  CHECK(roundtrip(make(CompressorKind::dgc, 0.05), x, 3) ==
        roundtrip(make(CompressorKind::topk, 0.05), x, 3));
  // n = 200,000 with the default 1% sample (2,000 draws): the estimate lands near k and
  // keeps a top set (every kept magnitude >= every dropped one).
  const auto y = normal_vector(200000, 12);
  const auto c = make(CompressorKind::dgc, 0.01);
  const std::size_t k = 2000;
  for (std::uint64_t seed : {1, 2, 3}) {
    std::vector<float> out(y.size());
    std::vector<std::uint32_t> carried;
    c.decode(c.encode(y, seed), out, carried);
    CAPTURE(seed, carried.size());
    CHECK(carried.size() >= k / 2);  // binomial spread of the sampled quantile is ~5%
    CHECK(carried.size() <= 2 * k);
    float min_kept = INFINITY, max_dropped = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      if (out[i] != 0) {
        min_kept = std::min(min_kept, std::fabs(y[i]));
        CHECK(out[i] == y[i]);
      } else {
        max_dropped = std::max(max_dropped, std::fabs(y[i]));
      }
    }
    CHECK(min_kept >= max_dropped);
  }
  // All magnitudes equal: every element passes the threshold (> 2k), so DGC falls back to
  // the exact top-k, which for ties is the k lowest indices.
  std::vector<float> flat(5000, 1.0f);
  for (std::size_t i = 0; i < flat.size(); i += 2) flat[i] = -1.0f;
  std::vector<float> out(flat.size());
  std::vector<std::uint32_t> carried;
  c.decode(c.encode(flat, 9), out, carried);
  REQUIRE(carried.size() == 50);
  for (std::uint32_t i = 0; i < 50; ++i) CHECK(carried[i] == i);
}

TEST_CASE("randomk: k distinct indices redrawn from the seed, the pinned draw", "[compress]") {
  // n = 1000, k = 10 uses the hash-map path; ratio 0.5 the array path. Both must be the
  // partial Fisher-Yates the header documents (the receiver relies on it).
  for (double ratio : {0.01, 0.5}) {
    const std::size_t n = 1000, k = expected_k(ratio, n);
    const auto x = normal_vector(n, 8);
    const auto c = make(CompressorKind::randomk, ratio);
    const std::uint64_t seed = 1234;
    const auto bytes = c.encode(x, seed);
    std::vector<float> out(n);
    std::vector<std::uint32_t> carried;
    c.decode(bytes, out, carried);
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    Engine engine(derive_seed(seed, "randomk"));
    for (std::size_t i = 0; i < k; ++i) {
      boost::random::uniform_int_distribution<std::uint64_t> pick(i, n - 1);
      std::swap(perm[i], perm[std::size_t(pick(engine))]);
    }
    perm.resize(k);
    CHECK(carried == perm);
    CHECK(std::set<std::uint32_t>(carried.begin(), carried.end()).size() == k);
    // The wire holds the seed and the raw values; decode scales by n / k.
    CHECK(bytes.size() == 13 + 4 * k);
    std::size_t nonzero = 0;
    for (std::size_t j = 0; j < k; ++j) {
      CHECK(out[carried[j]] == float(double(x[carried[j]]) * double(n) / double(k)));
    }
    for (float v : out) nonzero += v != 0;
    CHECK(nonzero == k);
  }
}

// Unbiasedness, statistically. For T independent seeds the mean of decode_i has standard
// error se_i = sqrt(Var_i / T). We assert |mean_i - x_i| <= 5 se_i for every element (a
// correct implementation fails one of 64 elements with probability ~4e-5; the seeds are
// fixed, so the outcome is reproducible), and that the same criterion REJECTS the obvious
// biased variant, so the test has the power to catch one.
TEST_CASE("randomk is unbiased: the mean decode over seeds converges to x", "[compress]") {
  const std::size_t n = 64, trials = 4000;
  const auto x = normal_vector(n, 21);
  for (double ratio : {8.0 / 64, 4.0 / 64}) {  // array path and hash-map path
    const auto c = make(CompressorKind::randomk, ratio);
    const double p = double(expected_k(ratio, n)) / double(n);  // inclusion probability
    std::vector<double> sum(n, 0.0);
    std::vector<float> out(n);
    for (std::size_t t = 0; t < trials; ++t) {
      c.decode(c.encode(x, 1000 + t), out);
      for (std::size_t i = 0; i < n; ++i) sum[i] += out[i];
    }
    std::size_t biased_rejected = 0;
    double z2 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      // decode_i = x_i / p with probability p, else 0: Var = x_i^2 (1/p - 1).
      const double se = std::fabs(x[i]) * std::sqrt((1 / p - 1) / double(trials));
      const double mean = sum[i] / double(trials);
      CAPTURE(ratio, i, x[i], mean, se);
      CHECK(std::fabs(mean - x[i]) <= 5 * se);
      z2 += ((mean - x[i]) / se) * ((mean - x[i]) / se);
      // Without the n / k scaling the mean would be p x_i: |p x_i - x_i| = 7/8 |x_i| ~ 21 se.
      if (std::fabs(mean * p - x[i]) > 5 * se) ++biased_rejected;
    }
    CHECK(biased_rejected == n);
    // The variance formula holds too (uniform inclusion): mean z^2 ~ 1 (sd ~0.18).
    CHECK(z2 / double(n) > 0.5);
    CHECK(z2 / double(n) < 2.0);
  }
}

TEST_CASE("qsgd is unbiased: the mean decode over seeds converges to x", "[compress]") {
  const std::size_t n = 64, trials = 4000;
  const auto x = normal_vector(n, 22);
  for (std::int64_t s : {7, 1}) {
    CompressorSpec spec;
    spec.kind = CompressorKind::qsgd, spec.levels = s;
    const Compressor c(spec);
    float norm = 0;
    std::vector<double> sum(n, 0.0);
    std::vector<float> out(n);
    for (std::size_t t = 0; t < trials; ++t) {
      const auto bytes = c.encode(x, 5000 + t);
      std::memcpy(&norm, bytes.data() + 5, 4);
      c.decode(bytes, out);
      for (std::size_t i = 0; i < n; ++i) sum[i] += out[i];
    }
    std::size_t biased_rejected = 0;
    for (std::size_t i = 0; i < n; ++i) {
      // decode_i = sign norm l / s with l = floor(r) + Bernoulli(q), r = s|x_i|/norm,
      // q = r - floor(r): Var = (norm / s)^2 q (1 - q). A tiny absolute slack covers float
      // rounding of the decoded values when q = 0 (variance 0).
      const double r = double(s) * std::fabs(x[i]) / norm;
      const double q = r - std::floor(r);
      const double se = norm / double(s) * std::sqrt(q * (1 - q) / double(trials));
      const double slack = 1e-6 * norm;
      const double mean = sum[i] / double(trials);
      CAPTURE(s, i, x[i], mean, se);
      CHECK(std::fabs(mean - x[i]) <= 5 * se + slack);
      // Deterministic rounding to the nearest level (a biased QSGD) misses by
      // |q - round(q)| norm / s, ~15 se for a typical q.
      const double nearest = std::copysign(norm * std::round(r) / double(s), x[i]);
      if (std::fabs(nearest - x[i]) > 5 * se + slack) ++biased_rejected;
    }
    CAPTURE(s, biased_rejected);
    CHECK(biased_rejected >= n * 3 / 4);
  }
}

TEST_CASE("decompression error within each kind's bound", "[compress]") {
  const auto x = normal_vector(5000, 31, 3.0);
  SECTION("none is exact") { CHECK(roundtrip(make(CompressorKind::none), x, 0) == x); }
  SECTION("qsgd: |decode - x| <= norm / s, levels within s") {
    for (std::int64_t s : {1, 7, 255}) {
      CompressorSpec spec;
      spec.kind = CompressorKind::qsgd, spec.levels = s;
      const Compressor c(spec);
      double sum_sq = 0;
      for (float v : x) sum_sq += double(v) * v;
      const double bound = std::sqrt(sum_sq) / double(s) * (1 + 1e-6);
      for (std::uint64_t seed : {1, 2}) {
        const auto out = roundtrip(c, x, seed);
        double worst = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
          worst = std::max(worst, std::fabs(double(out[i]) - x[i]));
          CHECK((out[i] == 0 || std::signbit(out[i]) == std::signbit(x[i])));
        }
        CAPTURE(s, worst, bound);
        CHECK(worst <= bound);
      }
    }
    // A zero vector quantizes to zeros (norm 0).
    CompressorSpec spec;
    spec.kind = CompressorKind::qsgd;
    CHECK(roundtrip(Compressor(spec), std::vector<float>(9, 0.0f), 1) ==
          std::vector<float>(9, 0.0f));
  }
  SECTION("sign decodes to +-scale, scale = ||x||_1 / n") {
    double l1 = 0;
    for (float v : x) l1 += std::fabs(v);
    const float scale = float(l1 / double(x.size()));
    const auto out = roundtrip(make(CompressorKind::sign), x, 0);
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(out[i] == (x[i] < 0 ? -scale : scale));
  }
  SECTION("fp16 through the compressor is float_to_half, specials included") {
    std::vector<float> y;  // magnitudes 1e-9 .. 1e6 of both signs, then inf, NaN, -0
    for (std::size_t i = 0; i < x.size(); ++i) {
      y.push_back(float(x[i] * std::pow(10.0, -9.0 + 15.0 * double(i) / double(x.size()))));
    }
    y.insert(y.end(), {INFINITY, -INFINITY, std::numeric_limits<float>::quiet_NaN(), -0.0f});
    const auto out = roundtrip(make(CompressorKind::fp16), y, 0);
    for (std::size_t i = 0; i < y.size(); ++i) {
      const float want = half_to_float(float_to_half(y[i]));
      if (std::isnan(want)) CHECK(std::isnan(out[i]));
      else CHECK(std::bit_cast<std::uint32_t>(out[i]) == std::bit_cast<std::uint32_t>(want));
    }
  }
}

TEST_CASE("fp16 messages are float_to_half bit for bit (vectorized path included)", "[compress][fp16]") {
  // Encode runs 8 elements at a time in hardware where the CPU has F16C, the rest with
  // float_to_half; both must give the same bytes. Inputs: every half, the midpoints
  // between neighbouring halves and their float neighbours, float subnormals, overflow,
  // and NaNs with payloads (signaling ones too).
  std::vector<float> y;
  for (std::uint32_t h = 0; h < 0x10000; ++h) y.push_back(half_to_float(std::uint16_t(h)));
  for (std::uint16_t h = 0; h < 0x7bff; ++h) {
    const auto mid = float((double(half_to_float(h)) + double(half_to_float(std::uint16_t(h + 1)))) / 2);
    for (float m : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) y.insert(y.end(), {m, -m});
  }
  for (std::uint32_t bits : {0x00000001u, 0x00400000u, 0x807fffffu, 0x477ff000u, 0x477fefffu, 0x7f7fffffu,
                             0x7f800001u, 0x7fa00000u, 0xffc00123u, 0x7fffffffu})
    y.push_back(std::bit_cast<float>(bits));
  const Compressor c = make(CompressorKind::fp16);
  const auto bytes = c.encode(y, 0);
  REQUIRE(bytes.size() == 5 + 2 * y.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::uint16_t want = float_to_half(y[i]);
    const auto got = std::uint16_t(bytes[5 + 2 * i] | (bytes[6 + 2 * i] << 8));
    if (got != want && bad++ == 0)
      FAIL_CHECK(fmt::format("{:#010x}: encoded {:#06x}, float_to_half {:#06x}", std::bit_cast<std::uint32_t>(y[i]),
                             got, want));
  }
  CHECK(bad == 0);
  // Decoding is exact: half_to_float of each half sent (all quiet: the encoder quiets NaNs).
  std::vector<float> out(y.size());
  c.decode(bytes, out);
  bad = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    bad += std::bit_cast<std::uint32_t>(out[i]) != std::bit_cast<std::uint32_t>(half_to_float(float_to_half(y[i])));
  CHECK(bad == 0);
}

TEST_CASE("fp16: every half round-trips, rounding is to nearest even", "[compress][fp16]") {
  // All 65,536 halves: half -> float -> half is the identity (NaNs stay NaN; quiet NaNs are
  // kept bit for bit, signaling ones come back quiet).
  // (Loops count failures and assert once: millions of Catch assertions would be slow.)
  std::size_t bad = 0;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(std::uint16_t(h));
    const std::uint16_t back = float_to_half(f);
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    if (nan ? !(std::isnan(f) && back == (h | 0x200)) : back != h) {
      if (bad++ == 0) FAIL_CHECK(fmt::format("half {:#06x} -> {} -> {:#06x}", h, f, back));
    }
  }
  CHECK(bad == 0);
  // Every rounding boundary: the midpoint between consecutive positive halves h, h + 1 is
  // a float (12 significant bits); it rounds to the even one, its float neighbours to the
  // nearer one. The same with the sign bit.
  for (std::uint16_t h = 0; h < 0x7bff; ++h) {
    const double a = half_to_float(h), b = half_to_float(std::uint16_t(h + 1));
    const auto mid = float((a + b) / 2);
    const std::uint16_t even = (h & 1) ? std::uint16_t(h + 1) : h;
    const bool ok = double(mid) == (a + b) / 2 && float_to_half(mid) == even &&
                    float_to_half(std::nextafter(mid, 0.0f)) == h &&
                    float_to_half(std::nextafter(mid, INFINITY)) == h + 1 &&
                    float_to_half(-mid) == (even | 0x8000);
    if (!ok && bad++ == 0) FAIL_CHECK(fmt::format("rounding between halves {:#06x} and next", h));
  }
  CHECK(bad == 0);
  // Specials and edges.
  CHECK(float_to_half(65504.0f) == 0x7bff);
  CHECK(float_to_half(std::nextafter(65520.0f, 0.0f)) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);  // halfway to 2^16: ties to even = inf
  CHECK(float_to_half(1e10f) == 0x7c00);
  CHECK(float_to_half(-INFINITY) == 0xfc00);
  CHECK(std::isnan(half_to_float(float_to_half(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isinf(half_to_float(0x7c00)));
  CHECK(float_to_half(-0.0f) == 0x8000);
  CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);  // half of it: ties to even = 0
  CHECK(float_to_half(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(float_to_half(std::ldexp(1.0f, -14)) == 0x0400);  // smallest normal
  CHECK(float_to_half(std::ldexp(1023.5f, -24)) == 0x0400);  // subnormal rounds up to normal
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
}

TEST_CASE("fp16: relative error <= 2^-11 in the normal range, agrees with _Float16",
          "[compress][fp16]") {
  Engine engine(77);
  boost::random::uniform_int_distribution<std::uint32_t> bits(0, 0xffffffffu);
  std::size_t checked = 0, compared = 0, bad_error = 0, bad_ref = 0;
  auto within = [](float f, std::uint16_t h) {
    return std::fabs(double(half_to_float(h)) - f) <= std::ldexp(std::fabs(double(f)), -11);
  };
  for (int i = 0; i < 300000; ++i) {
    const float f = std::bit_cast<float>(bits(engine));
    const std::uint16_t h = float_to_half(f);
#ifdef __FLT16_MAX__
    // The compiler's own conversion (F16C or libgcc soft-fp), round to nearest even.
    const auto ref = std::bit_cast<std::uint16_t>(static_cast<_Float16>(f));
    const bool same = std::isnan(f) ? std::isnan(half_to_float(ref)) && std::isnan(half_to_float(h))
                                    : h == ref;
    if (!same && bad_ref++ == 0) {
      FAIL_CHECK(fmt::format("{} -> {:#06x}, _Float16 {:#06x}", f, h, ref));
    }
    ++compared;
#endif
    const float a = std::fabs(f);
    if (a >= std::ldexp(1.0f, -14) && a <= 65504.0f) {
      if (!within(f, h) && bad_error++ == 0) FAIL_CHECK(fmt::format("{} -> {:#06x}", f, h));
      ++checked;
    }
  }
  CHECK(checked > 1000);  // about 1/8 of random bit patterns fall in the normal half range
  // Dense coverage of the range people use: uniform magnitudes in [1e-4, 1e4].
  for (int i = 0; i < 100000; ++i) {
    const double e = -4 + 8 * double(bits(engine)) / 4294967296.0;
    const auto f = float(std::pow(10.0, e));
    if (!within(f, float_to_half(f)) && bad_error++ == 0) FAIL_CHECK(fmt::format("{}", f));
  }
  CHECK(bad_error == 0);
  CHECK(bad_ref == 0);
#ifdef __FLT16_MAX__
  CHECK(compared == 300000);
#endif
}

TEST_CASE("error feedback: transmitted + residual = sum of gradients", "[compress][feedback]") {
  // Invariant of e <- (g + e) - decode(sent): sum_t decode_t + e_T = sum_t g_t, exactly in
  // real arithmetic. Float rounding of the two updates per step is at most one ulp of
  // |g + e| and of |decode| each, so the tolerance is 2^-22 of the sum of those magnitudes.
  const std::size_t n = 40, steps = 60;
  for (auto kind : {CompressorKind::topk, CompressorKind::sign, CompressorKind::qsgd,
                    CompressorKind::dgc, CompressorKind::threshold, CompressorKind::fp16}) {
    const auto c = make(kind, 0.1);
    ErrorFeedback ef(n);
    std::vector<double> sum_g(n, 0.0), sum_d(n, 0.0), scale(n, 0.0);
    std::vector<float> decoded(n);
    for (std::size_t t = 0; t < steps; ++t) {
      const auto g = normal_vector(n, 100 + t);
      const auto before = std::vector<float>(ef.residual().begin(), ef.residual().end());
      const auto bytes = ef.step(c, g, decoded, t);
      std::vector<float> check(n);
      c.decode(bytes, check);
      REQUIRE(check == decoded);  // `decoded` is the decoding of the returned bytes
      for (std::size_t i = 0; i < n; ++i) {
        sum_g[i] += g[i];
        sum_d[i] += decoded[i];
        scale[i] += std::fabs(double(g[i]) + before[i]) + std::fabs(decoded[i]);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      CAPTURE(to_string(kind), i);
      CHECK(std::fabs(sum_d[i] + ef.residual()[i] - sum_g[i]) <= std::ldexp(scale[i], -22));
    }
  }
  // The residual stays bounded with contractive compressors (RMS ~1 here for unit
  // gradients) and blows up with randomk's n/k scaling (expected growth (n/k - 1) = 9x in
  // squared norm per step): the caveat in feedback.hpp.
  for (auto kind : {CompressorKind::topk, CompressorKind::sign, CompressorKind::randomk}) {
    const auto c = make(kind, 0.1);
    ErrorFeedback ef(n);
    std::vector<float> decoded(n);
    for (std::size_t t = 0; t < 30; ++t) ef.step(c, normal_vector(n, 700 + t), decoded, t);
    double sq = 0;
    for (float v : ef.residual()) sq += double(v) * v;
    const double rms = std::sqrt(sq / double(n));
    CAPTURE(to_string(kind), rms);
    if (kind == CompressorKind::randomk) CHECK(rms > 1e3);
    else CHECK(rms < 3);
  }
  // Error feedback actually transmits the backlog: with topk, a coordinate never large
  // enough on its own is sent once its residual has grown.
  ErrorFeedback ef(10);
  const auto c = make(CompressorKind::topk, 0.1);  // k = 1
  std::vector<float> g(10, 0.1f), decoded(10);
  g[0] = 0.5f;
  bool sent_small = false;
  for (int t = 0; t < 20; ++t) {
    ef.step(c, g, decoded, 0);
    if (decoded[3] != 0) sent_small = true;
  }
  CHECK(sent_small);
  REQUIRE_THROWS_WITH(ef.step(c, std::vector<float>(9), decoded, 0),
                      Catch::Contains("holds 10 elements but got a gradient of 9"));
}

TEST_CASE("momentum correction: transmitted + v = sum of momenta, sent coordinates masked",
          "[compress][feedback]") {
  // Invariant of u <- m u + g; v <- v + u; v <- v - decode(sent); u masked:
  // sum_t decode_t + v_T = sum_t u_t, where u_t is the momentum right after its update
  // (before masking) — recomputed here from the exposed buffer.
  const std::size_t n = 50, steps = 60;
  const double m = 0.9;
  for (auto kind : {CompressorKind::topk, CompressorKind::dgc, CompressorKind::threshold}) {
    const auto c = make(kind, 0.1);
    MomentumCorrection mc(n, m);
    std::vector<double> sum_u(n, 0.0), sum_d(n, 0.0), scale(n, 0.0);
    std::vector<float> decoded(n);
    for (std::size_t t = 0; t < steps; ++t) {
      const auto g = normal_vector(n, 300 + t);
      std::vector<float> u(n);
      for (std::size_t i = 0; i < n; ++i) u[i] = float(m) * mc.momentum_buffer()[i] + g[i];
      const auto bytes = mc.step(c, g, decoded, t);
      std::vector<float> check(n);
      std::vector<std::uint32_t> sent;
      c.decode(bytes, check, sent);
      REQUIRE(check == decoded);
      for (std::uint32_t i : sent) {  // momentum factor masking; sent coordinates leave v
        CHECK(mc.momentum_buffer()[i] == 0.0f);
        CHECK(mc.residual()[i] == 0.0f);
      }
      for (std::size_t i = 0; i < n; ++i) {
        sum_u[i] += u[i];
        sum_d[i] += decoded[i];
        scale[i] += std::fabs(u[i]) + std::fabs(decoded[i]) + std::fabs(mc.residual()[i]);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      CAPTURE(to_string(kind), i);
      CHECK(std::fabs(sum_d[i] + mc.residual()[i] - sum_u[i]) <= std::ldexp(scale[i], -21));
    }
  }
  // m = 0 is error feedback: the same bytes, step after step.
  const auto c = make(CompressorKind::topk, 0.1);
  MomentumCorrection mc(n, 0.0);
  ErrorFeedback ef(n);
  std::vector<float> d1(n), d2(n);
  for (std::size_t t = 0; t < 10; ++t) {
    const auto g = normal_vector(n, 500 + t);
    CHECK(mc.step(c, g, d1, t) == ef.step(c, g, d2, t));
  }
  REQUIRE_THROWS_WITH(mc.step(make(CompressorKind::sign), std::vector<float>(n), d1, 0),
                      Catch::Contains("needs a sparsifying compressor") &&
                          Catch::Contains("'sign'"));
  REQUIRE_THROWS_AS(MomentumCorrection(4, 1.0), std::invalid_argument);
}

TEST_CASE("determinism: same input and seed, same bytes", "[compress]") {
  const auto x = normal_vector(20000, 41);
  for (auto kind : kAllKinds) {
    CAPTURE(to_string(kind));
    const auto a = make(kind, 0.05).encode(x, 99);
    const auto b = make(kind, 0.05).encode(x, 99);  // another object, same spec
    CHECK(a == b);
    const auto other = make(kind, 0.05).encode(x, 100);
    const bool random = kind == CompressorKind::randomk || kind == CompressorKind::qsgd ||
                        kind == CompressorKind::dgc;
    CHECK((a != other) == random);  // the seed matters exactly where it should
  }
}

TEST_CASE("bad bytes throw std::invalid_argument with a clear message", "[compress]") {
  const auto x = normal_vector(100, 51);
  for (auto kind : kAllKinds) {
    CAPTURE(to_string(kind));
    const auto c = make(kind, 0.1);
    const auto bytes = c.encode(x, 1);
    std::vector<float> out(100), wrong_n(99);
    // Truncated by one byte, and cut inside the header.
    const std::span<const std::uint8_t> cut(bytes.data(), bytes.size() - 1);
    REQUIRE_THROWS_AS(c.decode(cut, out), std::invalid_argument);
    if (kind != CompressorKind::threshold || bytes.size() > 9) {
      REQUIRE_THROWS_WITH(c.decode(cut, out), Catch::Contains("truncated"));
    }
    REQUIRE_THROWS_WITH(c.decode(std::span(bytes.data(), 3), out),
                        Catch::Contains("shorter than its"));
    REQUIRE_THROWS_WITH(c.decode(std::span<const std::uint8_t>(), out),
                        Catch::Contains("shorter than its"));
    // Too long.
    auto longer = bytes;
    longer.push_back(0);
    REQUIRE_THROWS_WITH(c.decode(longer, out), Catch::Contains("too long"));
    // Wrong n.
    REQUIRE_THROWS_WITH(c.decode(bytes, wrong_n),
                        Catch::Contains("holds 100 elements but the output has 99"));
    // Another kind's bytes.
    const auto other = kind == CompressorKind::none ? CompressorKind::fp16 : CompressorKind::none;
    REQUIRE_THROWS_WITH(make(other).decode(bytes, out),
                        Catch::Contains(fmt::format("encoded by '{}'", to_string(kind))));
  }
  // Sparse index list out of order (n = 100: 7-bit indices; swap the first two entries).
  const auto c = make(CompressorKind::topk, 0.05);  // k = 5 -> index list
  auto bytes = c.encode(x, 0);
  REQUIRE((bytes[0] & 0x80) == 0);
  std::vector<float> out(100);
  std::vector<std::uint32_t> idx;
  c.decode(bytes, out, idx);
  auto damaged = bytes;
  damaged[9] = std::uint8_t((damaged[9] & 0x80) | 0x7f);  // first index := 127 >= n
  REQUIRE_THROWS_WITH(c.decode(damaged, out), Catch::Contains("out of range or not increasing"));
  // Count larger than n.
  damaged = bytes;
  damaged[5] = 200;
  REQUIRE_THROWS_WITH(c.decode(damaged, out), Catch::Contains("claims 200 entries for n = 100"));
  // Bitmap with the wrong population.
  const auto cb = make(CompressorKind::topk, 0.5);
  auto bm = cb.encode(x, 0);
  REQUIRE((bm[0] & 0x80) != 0);
  bm[9] ^= 1;
  REQUIRE_THROWS_WITH(cb.decode(bm, out), Catch::Contains("bits set"));
  // qsgd level above s: s = 5 uses 3 level bits, so 6 and 7 do not exist.
  CompressorSpec q;
  q.kind = CompressorKind::qsgd, q.levels = 5;
  const Compressor cq(q);
  auto qb = cq.encode(x, 0);
  qb[9] = std::uint8_t((qb[9] & 0xf0) | (7 << 1));
  REQUIRE_THROWS_WITH(cq.decode(qb, out), Catch::Contains("level 7 above s = 5"));
  // randomk decoded with another ratio: the size no longer fits.
  const auto r = make(CompressorKind::randomk, 0.1).encode(x, 0);
  REQUIRE_THROWS_WITH(make(CompressorKind::randomk, 0.2).decode(r, out),
                      Catch::Contains("ratio 0.2 (k = 20)"));
}
