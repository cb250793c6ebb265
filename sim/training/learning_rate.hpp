// LearningRate: the learning rate of every update of a run, in one place, for the
// servers' optimizers (ModelParameters) and the workers' local steps (ModelGradients in
// local SGD).
//
//   lr(t, tau) = optimizer lr x scaling(t) x schedule(t) x plateau x staleness(tau)
//   scaling    linear scaling (Goyal et al. 2017): `scale`, ramped linearly from 1 over
//              `warmup_updates` steps
//   schedule   step or cosine (models/optim/lr_schedule.hpp) of step t
//   plateau    ReduceLROnPlateau's factor, moved by observe() at evaluations
//   staleness  1, 1/max(tau, 1) or 1/(1 + c tau)
// The optimizer's own warm-up (warmup_steps) applies on top, inside SliceOptimizer. t is
// the step of whoever applies the rate: a part's update count at a server, a worker's
// local step count in local SGD. The factors multiply in this order (a factor of exactly
// 1 leaves the rate's bits unchanged).
//
// Thread safety: at() is read by the simulation thread only (local SGD captures its
// rates when a computation starts), so a plateau decision made at an evaluation takes
// effect at the same simulated instant on any number of threads.
#pragma once

#include <cstdint>
#include <optional>

#include "models/optim/lr_schedule.hpp"

namespace pssim::training {

struct LearningRatePolicy {
  enum class Staleness { None, Inverse, InversePlusOne } staleness = Staleness::None;
  double staleness_coefficient = 1.0;  ///< c of InversePlusOne: 1 / (1 + c tau)
  double scale = 1.0;               ///< linear scaling factor (1: none)
  std::int64_t warmup_updates = 0;  ///< ramp from 1 to scale over this many steps
  std::optional<double> delay_compensation;  ///< DC-ASGD lambda (used by ModelParameters)
  models::LrScheduleSpec schedule;  ///< kind none: constant
};

class LearningRate {
 public:
  LearningRate(double base, const LearningRatePolicy& policy) : base_(base), policy_(policy), plateau_(policy.schedule) {}

  /// The rate of step t for a gradient of staleness tau.
  double at(std::int64_t t, std::int64_t tau = 0) const;
  double staleness_factor(std::int64_t tau) const;
  /// An evaluation's held-out loss (plateau schedules); returns true when it lowered the rate.
  bool observe(double test_loss) { return plateau_.observe(test_loss); }
  const LearningRatePolicy& policy() const { return policy_; }

 private:
  double base_;
  LearningRatePolicy policy_;
  models::PlateauTracker plateau_;
};

}  // namespace pssim::training
