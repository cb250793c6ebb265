#include "sim/training/server_rule.hpp"

#include <algorithm>

namespace pssim::training {

OptimizerRule::OptimizerRule(const models::OptimizerSpec& optimizer, std::optional<double> delay_compensation)
    : optimizer_(optimizer), delay_compensation_(delay_compensation) {}

void OptimizerRule::add_part(const std::vector<Range>& ranges) {
  auto& part = optimizers_.emplace_back();
  for (const auto& r : ranges)
    part.emplace_back(optimizer_, static_cast<std::size_t>(r.begin), static_cast<std::size_t>(r.size()));
}

// The new slice starts as a copy of the current one; each range's optimizer steps it.
void OptimizerRule::step(const PartUpdate& u, const std::vector<float>& gradient) {
  std::copy(u.now.begin(), u.now.end(), u.next.begin());
  std::size_t at = 0;
  for (auto& opt : optimizers_[u.part]) {
    const std::size_t len = opt.length();
    opt.step(u.next.subspan(at, len), std::span<const float>(gradient.data() + at, len), u.lr);
    at += len;
  }
}

void OptimizerRule::apply_mean(const PartUpdate& u, std::vector<float>& mean) { step(u, mean); }

void OptimizerRule::apply_one(const PartUpdate& u, std::size_t, std::vector<float>& grad, const SliceRef& computed_on) {
  if (delay_compensation_ && computed_on) {
    // DC-ASGD: g + lambda g * g * (w_now - w_then), element-wise.
    const auto lambda = static_cast<float>(*delay_compensation_);
    const std::vector<float>& then = *computed_on;
    for (std::size_t i = 0; i < grad.size(); ++i) grad[i] += lambda * grad[i] * grad[i] * (u.now[i] - then[i]);
  }
  step(u, grad);
}

}  // namespace pssim::training
