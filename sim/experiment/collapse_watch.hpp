// CollapseWatch: whether a run whose training loss stayed finite has failed anyway
// (training.collapse). A NaN or infinite loss is divergence, which the protocol sees in the
// gradient that carries it; a collapse shows only over time:
//   - the training loss, averaged over an evaluation interval, rises above `loss_factor`
//     times the loss of the initial parameters (a classifier of C classes starts near
//     ln C: ten times that predicts worse than chance with confidence);
//   - a classifier's test accuracy, once trained above 1.5 x chance (1 / classes), is back
//     at chance (at most 1.2 x chance) for `chance_evaluations` evaluations in a row (the
//     initial parameters' accuracy does not count as trained).
// The experiment feeds it the training losses of part 0's updates and every evaluation,
// and stops the run when check() gives a reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/scenario/scenario.hpp"

namespace pssim::experiment {

class CollapseWatch {
 public:
  /// `classes`: of a classifier (chance = 1 / classes); 0 for a language model (the
  /// accuracy rule does not apply).
  CollapseWatch(const scenario::CollapseConfig& config, std::int64_t classes);

  /// The mean training loss of one update of part 0 (NaN without math: ignored).
  void observe_update(double train_loss);

  /// An evaluation: the loss of the held-out data and the test accuracy. The first one is
  /// of the initial parameters and sets the reference loss. Returns why the run collapsed,
  /// in words, or nullopt.
  std::optional<std::string> check(double test_loss, double test_accuracy);

 private:
  scenario::CollapseConfig config_;
  double chance_ = 0;                      // 0: no accuracy rule
  std::optional<double> initial_loss_;
  double loss_sum_ = 0;
  std::int64_t loss_count_ = 0;
  double best_accuracy_ = 0;
  std::int64_t evaluations_at_chance_ = 0;
};

}  // namespace pssim::experiment
