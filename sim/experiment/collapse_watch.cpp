#include "sim/experiment/collapse_watch.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pssim::experiment {
namespace {

// Accuracy above 1.5 x chance is learning; at most 1.2 x chance is back at chance (for 10
// classes: 15 % and 12 %). The gap keeps a run hovering near one threshold from flipping.
constexpr double kAboveChance = 1.5;
constexpr double kAtChance = 1.2;

}  // namespace

CollapseWatch::CollapseWatch(const scenario::CollapseConfig& config, std::int64_t classes)
    : config_(config), chance_(classes > 1 ? 1.0 / static_cast<double>(classes) : 0.0) {}

void CollapseWatch::observe_update(double train_loss) {
  if (std::isnan(train_loss)) return;
  loss_sum_ += train_loss;
  ++loss_count_;
}

std::optional<std::string> CollapseWatch::check(double test_loss, double test_accuracy) {
  const double train_loss = loss_count_ > 0 ? loss_sum_ / static_cast<double>(loss_count_) : std::nan("");
  loss_sum_ = 0;
  loss_count_ = 0;
  if (!initial_loss_) {  // the initial parameters: the reference, nothing to judge yet
    initial_loss_ = test_loss;
    return std::nullopt;
  }
  if (config_.loss_factor > 0 && std::isfinite(*initial_loss_) && *initial_loss_ > 0 &&
      train_loss > config_.loss_factor * *initial_loss_)
    return fmt::format("training loss {:.4g} above {:g} x the initial loss {:.4g}", train_loss, config_.loss_factor,
                       *initial_loss_);
  if (chance_ > 0 && config_.chance_evaluations > 0) {
    const bool was_above = best_accuracy_ >= kAboveChance * chance_;
    evaluations_at_chance_ = was_above && test_accuracy <= kAtChance * chance_ ? evaluations_at_chance_ + 1 : 0;
    best_accuracy_ = std::max(best_accuracy_, test_accuracy);
    if (evaluations_at_chance_ >= config_.chance_evaluations)
      return fmt::format("test accuracy back at chance ({:.2f} %, chance {:.2f} %) for {} evaluations after {:.2f} %",
                         100 * test_accuracy, 100 * chance_, evaluations_at_chance_, 100 * best_accuracy_);
  }
  return std::nullopt;
}

}  // namespace pssim::experiment
