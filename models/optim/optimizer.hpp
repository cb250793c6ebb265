// SliceOptimizer: an optimizer for ONE slice [offset, offset + length) of the flat
// parameter vector, with its state (momentum buffer, Adam moments) and step counter
// sliced the same way — so S parameter-server shards each own one and update their slice
// independently; one slice covering [0, num_params) is the single-process optimizer.
//
// Update rules are PyTorch 1.13's (torch.optim.SGD with dampening 0, torch.optim.Adam
// with amsgrad off, torch.optim.AdamW), in float32 with double scalar coefficients:
//   SGD:       g = grad + wd * p;  with momentum mu: b = g on the first step, else
//              b = mu * b + g;  g = nesterov ? g + mu * b : b;   p -= lr_t * g
//   Adam:      g = grad + wd * p;  m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
//              p -= lr_t / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
//   AdamW:     as Adam with wd = 0 in g, and p *= 1 - lr_t * wd first (decoupled decay).
// Learning rate of step t (t = 0, 1, ...): lr_t = lr * min(1, (t + 1) / warmup_steps)
// (linear warm-up; warmup_steps 0 = none), where `lr` is passed per call so the
// simulator can scale it (e.g. for staleness) — or taken from the spec.
// Cost: O(length) per step, one pass; state: 0 (SGD), 1 (momentum) or 2 (Adam) floats per
// parameter of the slice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pssim::models {

enum class OptimizerKind { sgd, adam, adamw };

/// Scenario keys (suggested): training.optimizer.{kind, lr, momentum, nesterov,
/// weight_decay, warmup_steps, beta1, beta2, eps}.
struct OptimizerSpec {
  OptimizerKind kind = OptimizerKind::sgd;
  double lr = 0.05;
  double momentum = 0.0;       ///< SGD only; 0 = plain SGD
  bool nesterov = false;       ///< SGD only; needs momentum > 0
  double weight_decay = 0.0;   ///< L2 coefficient (coupled for sgd/adam, decoupled for adamw)
  std::int64_t warmup_steps = 0;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  ///< Adam / AdamW
};

/// "sgd" | "adam" | "adamw" -> kind; throws std::invalid_argument listing the known kinds.
OptimizerKind parse_optimizer_kind(std::string_view name);
std::string_view to_string(OptimizerKind kind);
/// Throws std::invalid_argument naming the field (training.optimizer.*) and the fix.
void validate(const OptimizerSpec& spec);

class SliceOptimizer {
 public:
  SliceOptimizer(const OptimizerSpec& spec, std::size_t offset, std::size_t length);

  /// One update of the slice. `params` and `grad` are the slice itself (length()
  /// elements), `lr` the base learning rate of this step before warm-up.
  void step(std::span<float> params, std::span<const float> grad, double lr);
  void step(std::span<float> params, std::span<const float> grad) { step(params, grad, spec_.lr); }
  /// Same, given the FULL parameter and gradient vectors: updates [offset, offset+length).
  void step_full(std::span<float> params, std::span<const float> grad, double lr);

  /// The learning rate the next step() will apply for base rate `lr` (warm-up included).
  double next_lr(double lr) const;
  std::int64_t steps() const { return steps_; }
  std::size_t offset() const { return offset_; }
  std::size_t length() const { return length_; }
  const OptimizerSpec& spec() const { return spec_; }
  /// Momentum buffer (SGD) or first moment (Adam); empty before it exists.
  std::span<const float> first_state() const { return m_; }
  /// Adam's second moment; empty otherwise.
  std::span<const float> second_state() const { return v_; }
  std::size_t state_bytes() const { return (m_.size() + v_.size()) * sizeof(float); }

 private:
  OptimizerSpec spec_;
  std::size_t offset_, length_;
  std::int64_t steps_ = 0;
  std::vector<float> m_, v_;
};

/// Splits [0, n) into `shards` contiguous slices of near-equal length (the first n %
/// shards get one more), as (offset, length) pairs. Throws if shards < 1 or shards > n.
std::vector<std::pair<std::size_t, std::size_t>> split_slices(std::size_t n, std::size_t shards);

}  // namespace pssim::models
