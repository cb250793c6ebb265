// Learning-rate schedules: a factor on the base learning rate as a function of the
// optimizer step (step, cosine) or of the evaluations so far (plateau), with PyTorch
// 1.13's rules, so that recipes written for PyTorch carry over:
//   step     factor(t) = gamma ^ floor(t / step_size)                         (StepLR)
//   cosine   factor(t) = m + (1 - m) (1 + cos(pi min(t, T) / T)) / 2,  m = min_factor
//            (CosineAnnealingLR's closed form with eta_min = m x lr; after T steps the
//            rate stays at its minimum instead of rising again)
//   plateau  factor = gamma ^ (reductions): an evaluation's metric (lower is better)
//            that is not below best x (1 - threshold) is a bad one; after more than
//            `patience` bad ones in a row the factor is multiplied by gamma and the count
//            restarts (ReduceLROnPlateau, mode min, threshold_mode rel, cooldown 0)
// t counts steps from 0 (the first update uses factor(0) = 1). Pure functions and a small
// state object: O(1) per call.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace pssim::models {

struct LrScheduleSpec {
  enum class Kind { none, step, cosine, plateau } kind = Kind::none;
  std::int64_t step_size = 1;   ///< step: steps between decays (>= 1)
  double gamma = 0.1;           ///< step, plateau: factor of each decay, in (0, 1]
  std::int64_t period = 1;      ///< cosine: T, steps from the full rate to the minimum (>= 1)
  double min_factor = 0;        ///< cosine: the minimum as a share of the rate, in [0, 1]
  std::int64_t patience = 0;    ///< plateau: bad evaluations tolerated before a decay
  double threshold = 1e-4;      ///< plateau: relative improvement that counts
};

/// "none" | "step" | "cosine" | "plateau"; throws std::invalid_argument listing them.
LrScheduleSpec::Kind parse_lr_schedule_kind(std::string_view name);

/// The factor of step t for step and cosine (1 for none and plateau, whose factor comes
/// from PlateauTracker).
double schedule_factor(const LrScheduleSpec& spec, std::int64_t t);

/// ReduceLROnPlateau's state: feed it every evaluation's metric in order.
class PlateauTracker {
 public:
  explicit PlateauTracker(const LrScheduleSpec& spec) : spec_(spec) {}
  /// Records one evaluation; returns true when it decayed the factor.
  bool observe(double metric);
  double factor() const { return factor_; }

 private:
  LrScheduleSpec spec_;
  double best_ = std::numeric_limits<double>::infinity();
  std::int64_t bad_ = 0;
  double factor_ = 1.0;
};

}  // namespace pssim::models
