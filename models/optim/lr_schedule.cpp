#include "models/optim/lr_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace pssim::models {

LrScheduleSpec::Kind parse_lr_schedule_kind(std::string_view name) {
  if (name == "none") return LrScheduleSpec::Kind::none;
  if (name == "step") return LrScheduleSpec::Kind::step;
  if (name == "cosine") return LrScheduleSpec::Kind::cosine;
  if (name == "plateau") return LrScheduleSpec::Kind::plateau;
  throw std::invalid_argument("unknown learning-rate schedule '" + std::string(name) +
                              "' (known: none, step, cosine, plateau)");
}

double schedule_factor(const LrScheduleSpec& spec, std::int64_t t) {
  switch (spec.kind) {
    case LrScheduleSpec::Kind::step:
      return std::pow(spec.gamma, static_cast<double>(t / std::max<std::int64_t>(spec.step_size, 1)));
    case LrScheduleSpec::Kind::cosine: {
      const double T = static_cast<double>(std::max<std::int64_t>(spec.period, 1));
      const double x = std::min(static_cast<double>(t), T) / T;
      return spec.min_factor + (1.0 - spec.min_factor) * (1.0 + std::cos(std::numbers::pi * x)) / 2.0;
    }
    case LrScheduleSpec::Kind::none:
    case LrScheduleSpec::Kind::plateau:
      return 1.0;
  }
  return 1.0;
}

bool PlateauTracker::observe(double metric) {
  if (spec_.kind != LrScheduleSpec::Kind::plateau) return false;
  if (metric < best_ * (1.0 - spec_.threshold)) {
    best_ = metric;
    bad_ = 0;
    return false;
  }
  if (++bad_ <= spec_.patience) return false;
  factor_ *= spec_.gamma;
  bad_ = 0;
  return true;
}

}  // namespace pssim::models
