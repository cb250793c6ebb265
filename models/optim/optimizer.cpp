#include "models/optim/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "models/core/eigen_types.hpp"

namespace pssim::models {

OptimizerKind parse_optimizer_kind(std::string_view name) {
  if (name == "sgd") return OptimizerKind::sgd;
  if (name == "adam") return OptimizerKind::adam;
  if (name == "adamw") return OptimizerKind::adamw;
  throw std::invalid_argument(fmt::format(
      "training.optimizer.kind '{}' is unknown; known kinds: sgd (with momentum, nesterov), "
      "adam, adamw",
      name));
}

std::string_view to_string(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::sgd: return "sgd";
    case OptimizerKind::adam: return "adam";
    case OptimizerKind::adamw: return "adamw";
  }
  return "?";
}

void validate(const OptimizerSpec& s) {
  auto fail = [](const std::string& msg) {
    throw std::invalid_argument("training.optimizer: " + msg);
  };
  if (!(s.lr >= 0) || !std::isfinite(s.lr)) fail(fmt::format("lr {} must be finite and >= 0", s.lr));
  if (!(s.momentum >= 0 && s.momentum < 1)) fail(fmt::format("momentum {} must be in [0, 1)", s.momentum));
  if (s.nesterov && (s.kind != OptimizerKind::sgd || s.momentum <= 0)) {
    fail("nesterov needs kind sgd and momentum > 0");
  }
  if (s.momentum > 0 && s.kind != OptimizerKind::sgd) {
    fail("momentum applies to sgd only; adam uses beta1");
  }
  if (!(s.weight_decay >= 0)) fail(fmt::format("weight_decay {} must be >= 0", s.weight_decay));
  if (s.warmup_steps < 0) fail(fmt::format("warmup_steps {} must be >= 0", s.warmup_steps));
  if (!(s.beta1 >= 0 && s.beta1 < 1) || !(s.beta2 >= 0 && s.beta2 < 1)) {
    fail(fmt::format("beta1 {} and beta2 {} must be in [0, 1)", s.beta1, s.beta2));
  }
  if (!(s.eps > 0)) fail(fmt::format("eps {} must be > 0", s.eps));
}

SliceOptimizer::SliceOptimizer(const OptimizerSpec& spec, std::size_t offset, std::size_t length)
    : spec_(spec), offset_(offset), length_(length) {
  validate(spec);
}

double SliceOptimizer::next_lr(double lr) const {
  if (spec_.warmup_steps <= 0) return lr;
  return lr * std::min(1.0, double(steps_ + 1) / double(spec_.warmup_steps));
}

void SliceOptimizer::step(std::span<float> params, std::span<const float> grad, double lr) {
  if (params.size() != length_ || grad.size() != length_) {
    throw std::invalid_argument(fmt::format(
        "SliceOptimizer::step: slice [{}, {}) has {} elements but got {} parameters and {} "
        "gradients; pass the slice (or use step_full with the whole vectors)",
        offset_, offset_ + length_, length_, params.size(), grad.size()));
  }
  const auto n = Eigen::Index(length_);
  MapArray<float> p(params.data(), n);
  CMapArray<float> g(grad.data(), n);
  const float lr_t = float(next_lr(lr));
  const float wd = float(spec_.weight_decay);
  ++steps_;
  if (spec_.kind == OptimizerKind::sgd) {
    if (spec_.momentum == 0.0) {
      if (wd != 0) p -= lr_t * (g + wd * p);
      else p -= lr_t * g;
      return;
    }
    const float mu = float(spec_.momentum);
    if (m_.empty()) {  // PyTorch: the buffer starts as the first (decayed) gradient
      m_.resize(length_);
      MapArray<float>(m_.data(), n) = g + wd * p;
    } else {
      MapArray<float> b(m_.data(), n);
      b = mu * b + (g + wd * p);
    }
    MapArray<float> b(m_.data(), n);
    if (spec_.nesterov) p -= lr_t * ((g + wd * p) + mu * b);
    else p -= lr_t * b;
    return;
  }
  // Adam / AdamW
  if (m_.empty()) {
    m_.assign(length_, 0.0f);
    v_.assign(length_, 0.0f);
  }
  // A plain loop, not Eigen: with EIGEN_FAST_MATH (kept for the LSTM's vectorized tanh)
  // Eigen's packet sqrt is an approximation while its scalar head uses std::sqrt, so a
  // slice's result would depend on its alignment. GCC vectorizes this loop with the
  // correctly rounded vsqrtps / vdivps: every element is rounded the same way.
  float* pp = params.data();
  const float* gp = grad.data();
  float* mp = m_.data();
  float* vp = v_.data();
  const float b1 = float(spec_.beta1), b2 = float(spec_.beta2);
  const double bc1 = 1.0 - std::pow(spec_.beta1, double(steps_));
  const double bc2 = 1.0 - std::pow(spec_.beta2, double(steps_));
  const float step_size = float(double(lr_t) / bc1);
  const float inv_sqrt_bc2 = float(1.0 / std::sqrt(bc2));
  const float eps = float(spec_.eps);
  const bool decoupled = spec_.kind == OptimizerKind::adamw;
  const float keep = decoupled ? 1.0f - lr_t * wd : 1.0f;
  const float coupled = decoupled ? 0.0f : wd;
  for (std::size_t i = 0; i < length_; ++i) {
    const float p0 = pp[i] * keep;
    const float gi = gp[i] + coupled * pp[i];
    mp[i] = b1 * mp[i] + (1 - b1) * gi;
    vp[i] = b2 * vp[i] + (1 - b2) * (gi * gi);
    pp[i] = p0 - step_size * mp[i] / (std::sqrt(vp[i]) * inv_sqrt_bc2 + eps);
  }
}

void SliceOptimizer::step_full(std::span<float> params, std::span<const float> grad, double lr) {
  if (params.size() < offset_ + length_ || grad.size() < offset_ + length_) {
    throw std::invalid_argument(fmt::format(
        "SliceOptimizer::step_full: slice [{}, {}) lies outside vectors of {} / {} elements",
        offset_, offset_ + length_, params.size(), grad.size()));
  }
  step(params.subspan(offset_, length_), grad.subspan(offset_, length_), lr);
}

std::vector<std::pair<std::size_t, std::size_t>> split_slices(std::size_t n, std::size_t shards) {
  if (shards < 1 || shards > n) {
    throw std::invalid_argument(fmt::format(
        "split_slices: cannot split {} parameters into {} shards; use 1 to {} shards", n,
        shards, n));
  }
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t offset = 0;
  for (std::size_t s = 0; s < shards; ++s) {
    const std::size_t len = n / shards + (s < n % shards ? 1 : 0);
    out.emplace_back(offset, len);
    offset += len;
  }
  return out;
}

}  // namespace pssim::models
