// Stateful wrappers around a Compressor for one stream — a (worker, shard) push or a
// (shard, worker) pull — that keep what compression dropped and send it later.
//
// ErrorFeedback (Stich et al. 2018; Karimireddy et al. 2019, EF-SignSGD):
//     a = g + e;  sent = encode(a);  d = decode(sent);  e <- a - d.
//   Invariant (exact in real arithmetic, float rounding only):
//     sum over steps of d_t  +  e_T  =  sum over steps of g_t.
//   Nothing is lost, only delayed. EF's convergence guarantee needs a contractive
//   compressor, E||C(a) - a||^2 <= (1 - delta) ||a||^2: topk, dgc, threshold, sign, fp16,
//   none are; randomk with its n/k scaling is not (its error is (n/k - 1)||a||^2 in
//   expectation), nor is qsgd when sqrt(n) > s — with those the residual can grow.
//
// MomentumCorrection (Deep Gradient Compression, Lin et al. 2018, with momentum factor
// masking), for the sparsifying kinds topk, dgc and threshold:
//     u <- m u + g;  v <- v + u;  sent = encode(v);  d = decode(sent);
//     v <- v - d  (= v with the sent coordinates zeroed: sparse values are exact);
//     u <- u with the sent coordinates zeroed.
//   Invariant: sum over steps of d_t  +  v_T  =  sum over steps of u_t, where u_t is the
//   momentum right after "u <- m u + g" of step t (before masking) — the velocity the
//   worker would have applied without compression is delayed, never lost; masking u only
//   stops a sent coordinate's stale momentum from being sent twice.
//   With m = 0 it reduces to error feedback.
//
// Both: O(n) per step on top of the compressor, one n-float residual (two for momentum
// correction); step() throws std::invalid_argument if g or decoded does not have n elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "models/compress/compressor.hpp"

namespace pssim::models {

class ErrorFeedback {
 public:
  /// Residual of n elements, starting at zero.
  explicit ErrorFeedback(std::size_t n);

  /// Returns the bytes of encode(g + e, seed) and writes their decoding into `decoded`
  /// (n elements); updates e.
  std::vector<std::uint8_t> step(const Compressor& c, std::span<const float> g,
                                 std::span<float> decoded, std::uint64_t seed);

  /// e: what has been accumulated and not yet transmitted (n elements).
  std::span<const float> residual() const { return e_; }
  std::size_t size() const { return e_.size(); }

 private:
  std::vector<float> e_;  // [n]
};

class MomentumCorrection {
 public:
  /// Momentum factor m in [0, 1); throws std::invalid_argument otherwise.
  MomentumCorrection(std::size_t n, double momentum);

  /// Same contract as ErrorFeedback::step. Throws std::invalid_argument unless the
  /// compressor is topk, dgc or threshold (masking needs coordinates that were sent exactly).
  std::vector<std::uint8_t> step(const Compressor& c, std::span<const float> g,
                                 std::span<float> decoded, std::uint64_t seed);

  /// v: accumulated velocity not yet transmitted (n elements).
  std::span<const float> residual() const { return v_; }
  /// u: the momentum after masking (n elements).
  std::span<const float> momentum_buffer() const { return u_; }
  double momentum() const { return momentum_; }
  std::size_t size() const { return v_.size(); }

 private:
  double momentum_;
  std::vector<float> u_, v_;        // [n] each
  std::vector<std::uint32_t> sent_;  // scratch: coordinates of the last message
};

}  // namespace pssim::models
