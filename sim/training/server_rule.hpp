// ServerRule: how a part of the parameters combines what the workers send, the update side
// of a scheme's math (the worker side is WorkerRule, worker_rule.hpp).
//
//   OptimizerRule   training.optimizer on the mean of a clock's gradients (sync, SSP,
//                   all-reduce) or on one gradient (async, with delay compensation): the
//                   default.
//   MeanChangeRule  adds the mean of the workers' parameter changes (local SGD:
//                   mean_change_rule.hpp).
//   A scheme's own rule lives in its file (EASGD's elastic pull: sim/schemes/easgd.cpp).
//
// ModelParameters (model_parameters.hpp) keeps the parts' slices, collects contributions,
// averages them in worker order (weighted by staleness or samples) and gives each update
// its rate (learning_rate.hpp); a rule writes the part's new slice from the current one.
// A slice handed to workers never changes: every update writes a new one.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/optim/optimizer.hpp"
#include "sim/training/parts.hpp"
#include "sim/training/slices.hpp"

namespace pssim::training {

/// One update of a part: the slice it starts from and the slice it writes (both the part's
/// length), and its rate.
struct PartUpdate {
  std::size_t part = 0;
  std::span<const float> now;
  std::span<float> next;
  double lr = 0;  ///< optimizer lr x scaling x schedule x plateau x staleness (learning_rate.hpp)
};

class ServerRule {
 public:
  virtual ~ServerRule() = default;

  /// The store's parts, in order, before any update: part p holds `ranges` of the flat
  /// parameter vector.
  virtual void add_part(const std::vector<Range>& /*ranges*/) {}
  /// An averaged update: `mean` [part length] is the mean of a clock's contributions (the
  /// rule may overwrite it).
  virtual void apply_mean(const PartUpdate& u, std::vector<float>& mean) = 0;
  /// Worker `worker`'s contribution `value` [part length] alone (a copy the rule may
  /// overwrite), computed on `computed_on` (null unless needs_computed_on()).
  virtual void apply_one(const PartUpdate& u, std::size_t worker, std::vector<float>& value,
                         const SliceRef& computed_on) = 0;
  /// True when apply_one() needs the slice a contribution was computed on.
  virtual bool needs_computed_on() const { return false; }
  /// What worker `worker` is sent of part p now, when its update prepared something for it
  /// (taken: asked once); null: the part's current slice.
  virtual SliceRef take_answer(std::size_t /*part*/, std::size_t /*worker*/) { return nullptr; }
  /// Part p went back to a checkpoint: what its updates prepared for workers is void.
  virtual void restored(std::size_t /*part*/) {}
};

/// training.optimizer at the servers: one SliceOptimizer per range of a part (its state
/// sliced the same way). Delay compensation (DC-ASGD, Zheng et al. 2017) adds
/// lambda g*g*(w_now - w_then) to a gradient applied alone.
class OptimizerRule final : public ServerRule {
 public:
  OptimizerRule(const models::OptimizerSpec& optimizer, std::optional<double> delay_compensation);
  void add_part(const std::vector<Range>& ranges) override;
  void apply_mean(const PartUpdate& u, std::vector<float>& mean) override;
  void apply_one(const PartUpdate& u, std::size_t worker, std::vector<float>& value,
                 const SliceRef& computed_on) override;
  bool needs_computed_on() const override { return delay_compensation_.has_value(); }

 private:
  void step(const PartUpdate& u, const std::vector<float>& gradient);

  models::OptimizerSpec optimizer_;
  std::optional<double> delay_compensation_;
  std::vector<std::vector<models::SliceOptimizer>> optimizers_;  // per part, per range
};

}  // namespace pssim::training
