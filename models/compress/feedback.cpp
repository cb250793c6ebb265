#include "models/compress/feedback.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::models {
namespace {

void check_sizes(const char* who, std::size_t n, std::size_t g, std::size_t decoded) {
  if (g != n || decoded != n) {
    throw std::invalid_argument(fmt::format(
        "{}::step: the stream holds {} elements but got a gradient of {} and an output of {}; "
        "use one {} per (worker, shard) slice",
        who, n, g, decoded, who));
  }
}

}  // namespace

ErrorFeedback::ErrorFeedback(std::size_t n) : e_(n, 0.0f) {}

std::vector<std::uint8_t> ErrorFeedback::step(const Compressor& c, std::span<const float> g,
                                              std::span<float> decoded, std::uint64_t seed) {
  check_sizes("ErrorFeedback", e_.size(), g.size(), decoded.size());
  // e holds a = g + e during the step, then a - decode(sent): no second buffer.
  for (std::size_t i = 0; i < e_.size(); ++i) e_[i] += g[i];
  auto bytes = c.encode(e_, seed);
  c.decode(bytes, decoded);
  for (std::size_t i = 0; i < e_.size(); ++i) e_[i] -= decoded[i];
  return bytes;
}

MomentumCorrection::MomentumCorrection(std::size_t n, double momentum)
    : momentum_(momentum), u_(n, 0.0f), v_(n, 0.0f) {
  if (!(momentum >= 0 && momentum < 1)) {
    throw std::invalid_argument(fmt::format(
        "MomentumCorrection: momentum {} must be in [0, 1) (DGC uses the optimizer's, e.g. 0.9)",
        momentum));
  }
}

std::vector<std::uint8_t> MomentumCorrection::step(const Compressor& c,
                                                   std::span<const float> g,
                                                   std::span<float> decoded,
                                                   std::uint64_t seed) {
  const CompressorKind kind = c.spec().kind;
  if (kind != CompressorKind::topk && kind != CompressorKind::dgc &&
      kind != CompressorKind::threshold) {
    throw std::invalid_argument(fmt::format(
        "momentum correction needs a sparsifying compressor (topk, dgc or threshold), not '{}'; "
        "use error feedback with it instead",
        to_string(kind)));
  }
  check_sizes("MomentumCorrection", v_.size(), g.size(), decoded.size());
  const auto m = float(momentum_);
  for (std::size_t i = 0; i < v_.size(); ++i) {
    u_[i] = m * u_[i] + g[i];
    v_[i] += u_[i];
  }
  auto bytes = c.encode(v_, seed);
  c.decode(bytes, decoded, sent_);
  for (std::size_t i = 0; i < v_.size(); ++i) v_[i] -= decoded[i];
  for (std::uint32_t i : sent_) u_[i] = 0.0f;
  return bytes;
}

}  // namespace pssim::models
