#include "sim/training/learning_rate.hpp"

#include <algorithm>

namespace pssim::training {

double LearningRate::staleness_factor(std::int64_t tau) const {
  switch (policy_.staleness) {
    case LearningRatePolicy::Staleness::None: return 1.0;
    case LearningRatePolicy::Staleness::Inverse: return 1.0 / static_cast<double>(std::max<std::int64_t>(tau, 1));
    case LearningRatePolicy::Staleness::InversePlusOne:
      return 1.0 / (1.0 + policy_.staleness_coefficient * static_cast<double>(tau));  // c = 1: 1 / (1 + tau) exactly
  }
  return 1.0;
}

double LearningRate::at(std::int64_t t, std::int64_t tau) const {
  double scale = policy_.scale;
  if (policy_.warmup_updates > 0 && t < policy_.warmup_updates)
    scale = 1.0 + (scale - 1.0) * static_cast<double>(t) / static_cast<double>(policy_.warmup_updates);
  return base_ * scale * models::schedule_factor(policy_.schedule, t) * plateau_.factor() * staleness_factor(tau);
}

}  // namespace pssim::training
