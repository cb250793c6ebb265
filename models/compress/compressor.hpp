// Gradient compressors with real wire encodings. The parameter-server simulation
// compresses one shard's slice of a gradient (push) or of a parameter delta (pull); the
// network model charges the size of the bytes encode() really produces, and the receiver
// really decodes them, so the convergence effect and the traffic come from the same bytes.
//
// Wire formats. All multi-byte fields are little-endian; bit fields are packed LSB first
// (bit q of the stream is bit q % 8 of byte q / 8); the last byte is zero-padded.
// Every message starts with the same 5-byte header:
//   byte 0     kind code (0 none, 1 fp16, 2 topk, 3 dgc, 4 randomk, 5 qsgd, 6 sign,
//              7 threshold) | 0x80 when a sparse message uses the bitmap layout
//   bytes 1-4  n, the element count (u32)
// n is on the wire although the receiver knows it from the shard layout, because it
// makes a message self-describing and lets decode() reject bytes meant for another slice
// (for sign or qsgd, two n's can give the same payload size). Cost: 4 bytes per message.
//
//   kind       payload after the header                            total bytes
//   none       n float32                                           5 + 4n
//   fp16       n binary16 (round to nearest even)                  5 + 2n
//   topk,      c (u32), the index set, c float32 values in         9 + I(n, c) + 4c
//   dgc,       increasing index order; the index set is either
//   threshold  c indices of w = ceil(log2 n) bits (0 if n = 1)
//              each, increasing, or an n-bit bitmap, whichever
//              takes fewer bytes (indices on a tie):
//              I(n, c) = min(ceil(c*w / 8), ceil(n / 8))
//   randomk    the 8-byte seed the indices are drawn from, then   13 + 4k
//              k float32 values in draw order (indices not sent:
//              the receiver redraws them from the seed: the first
//              k of a partial Fisher-Yates shuffle of 0..n-1, step
//              i swapping i with uniform_int_distribution<u64>(i, n-1)
//              over mt19937_64(derive_seed(seed, "randomk")))
//   qsgd       norm (float32), then per element 1 sign bit        9 + ceil(n (1 + b) / 8),
//              (bit 0 of the field, 1 = negative) and a b-bit    b = ceil(log2(s + 1))
//              level (bits 1..b)
//   sign       scale = ||x||_1 / n (float32), then 1 bit per      9 + ceil(n / 8)
//              element (1 = negative)
// where k = min(n, max(1, round(ratio * n))) (0 if n = 0), c the number of entries sent.
// With the defaults: topk at ratio 0.01 on n = 2^20 sends 10,486 entries of 20-bit
// indices + float32 = 68,168 bytes (1.6 % of 4n); qsgd s = 7 is 4 bits per element.
//
// What each kind does to x (n floats):
//   none       x exactly.
//   fp16       x rounded to binary16: relative error <= 2^-11 in [2^-14, 65504], overflow
//              to ±inf, NaN stays NaN.
//   topk       the k largest |x_i| exactly, zeros elsewhere; ties go to the lower index
//              (NaN counts as the largest magnitude, so a diverged gradient stays visible).
//   dgc        Deep Gradient Compression's threshold estimate (Lin et al. 2018): draw
//              m = min(n, max(ceil(dgc_sample * n), 1000)) elements uniformly with
//              replacement (all n, no draw, when m = n), take the ceil(k m / n)-th largest
//              |x| of the sample as the threshold and send every |x_i| >= threshold; when
//              that is more than 2k entries, send the exact top-k of them instead.
//              c varies with the data: 1 <= c <= 2k for n >= 1.
//   randomk    k distinct indices uniform at random (partial Fisher-Yates), values scaled by
//              n / k on decode: UNBIASED, E[decode] = x, variance x_i^2 (n/k - 1).
//   qsgd       QSGD (Alistarh et al. 2017) with s levels: norm = ||x||_2 (rounded up to
//              float32 so every level fits), r_i = s |x_i| / norm, level l_i = floor(r_i)
//              + 1 with probability r_i - floor(r_i), else floor(r_i); decode
//              sign_i * norm * l_i / s. UNBIASED; |decode_i - x_i| < norm / s.
//   sign       scaled sign (EF-SignSGD, Karimireddy et al. 2019): decode ±||x||_1 / n;
//              zero counts as positive. Biased; use it with error feedback.
//   threshold  every |x_i| >= threshold exactly, zeros elsewhere (c data-dependent).
// Non-finite inputs are not an error: they give non-finite outputs (an infinite or NaN
// norm decodes to NaN), so the simulator's divergence check still sees them.
//
// Costs: none, fp16, sign, qsgd, threshold O(n); topk O(n) (radix selection of the k-th
// magnitude, two counting passes);
// dgc O(m + n) (+ O(c) selection on fallback); randomk O(k) expected (hash map when
// k < n / 8, else an n-element array). Randomness: Boost.Random mt19937_64 seeded by
// derive_seed(seed, kind name) with Boost distributions, so same input + seed = same bytes
// on any platform. A Compressor is immutable: encode/decode are const and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace pssim::models {

enum class CompressorKind { none, fp16, topk, dgc, randomk, qsgd, sign, threshold };

/// "none" | "fp16" | "topk" | "dgc" | "randomk" | "qsgd" | "sign" | "threshold"; throws
/// std::invalid_argument listing them.
CompressorKind parse_compressor_kind(std::string_view name);
std::string_view to_string(CompressorKind kind);

/// Scenario keys: compression.{push,pull}.{kind, ratio, levels, threshold, sample (for
/// dgc_sample)}. All fields are checked whatever the kind (each has a valid default).
struct CompressorSpec {
  CompressorKind kind = CompressorKind::none;
  double ratio = 0.01;       ///< topk, dgc, randomk: k = max(1, round(ratio * n)), in (0, 1]
  std::int64_t levels = 7;   ///< qsgd: s levels (QSGD "4-bit" = 1 sign + 3 level bits = 7)
  double threshold = 0.0;    ///< threshold: keep |x| >= threshold; finite, >= 0
  double dgc_sample = 0.01;  ///< dgc: sampled fraction for the threshold estimate, (0, 1]
};

/// Largest qsgd `levels` accepted: levels fit 24 bits and l / s is exact in float.
inline constexpr std::int64_t kMaxQsgdLevels = (std::int64_t{1} << 24) - 1;
/// Largest n a message can carry (the header's u32 count).
inline constexpr std::size_t kMaxCompressElements = 0xffffffffu;

/// Throws std::invalid_argument naming the field as `<where>.<field>` (e.g.
/// compression.push.ratio) and the fix.
void validate(const CompressorSpec& spec, std::string_view where = "compression");

/// k of topk / dgc / randomk for n elements: min(n, max(1, round(ratio * n))), 0 if n = 0.
std::size_t sparse_k(double ratio, std::size_t n);

class Compressor {
 public:
  /// Validates the spec (throws std::invalid_argument).
  explicit Compressor(CompressorSpec spec);

  /// Encodes n = values.size() floats into the wire format above. `seed` drives the
  /// random choices (randomk indices, qsgd stochastic rounding, dgc sampling): same inputs
  /// + seed = same bytes. Throws std::invalid_argument if n > kMaxCompressElements.
  std::vector<std::uint8_t> encode(std::span<const float> values, std::uint64_t seed) const;

  /// Decodes bytes produced by encode() for n = out.size() elements into `out` (dense,
  /// every element written). Throws std::invalid_argument for bytes that do not fit n or
  /// this compressor (wrong size, kind or count in the header, indices out of range or not
  /// increasing, qsgd level above s).
  void decode(std::span<const std::uint8_t> bytes, std::span<float> out) const;
  /// Same, and also sets `carried` to the coordinates the message carries: the index set of
  /// topk / dgc / threshold (increasing), randomk's drawn indices (draw order), every
  /// coordinate 0..n-1 for the dense kinds. Used by momentum factor masking.
  void decode(std::span<const std::uint8_t> bytes, std::span<float> out,
              std::vector<std::uint32_t>& carried) const;

  /// The encoded size for n values when it does not depend on the data: every kind but
  /// threshold, which gives std::nullopt. For dgc it is the size of exactly k entries —
  /// DGC's target — which encode() matches whenever the estimate selects exactly k (e.g.
  /// n <= 1000 with distinct magnitudes); otherwise encode() sends c in [1, 2k] entries.
  /// For every other kind encode(values, seed).size() == *fixed_size(values.size()).
  std::optional<std::size_t> fixed_size(std::size_t n) const;

  const CompressorSpec& spec() const { return spec_; }

 private:
  void decode_impl(std::span<const std::uint8_t> bytes, std::span<float> out,
                   std::vector<std::uint32_t>* carried) const;

  CompressorSpec spec_;
};

}  // namespace pssim::models
