// LocalStepsRule: a worker's computation is H optimizer steps on H consecutive batches of
// its own data, starting from the parameters it holds (Local SGD / FedAvg: McMahan et al.
// 2017; Lin et al. 2020).
//
// Each worker has its own optimizer (training.optimizer's rule; its state, e.g. momentum,
// persists across computations, made at its first one) at the rates LearningRate gives
// for its steps t = iteration x H + k (captured when the computation starts). Each step's
// gradient is clipped when clip_norm is set. What the worker hands back is hand_back() of
// the parameters it started from and those it reached: the change w_H - w_0 here (what the
// servers average and add, MeanChangeRule); a scheme that needs something else of the same
// steps overrides it. Loss: the mean of the H losses.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/optim/optimizer.hpp"
#include "sim/training/learning_rate.hpp"
#include "sim/training/worker_rule.hpp"

namespace pssim::training {

class LocalStepsRule : public WorkerRule {
 public:
  /// `steps` >= 1 per computation, for `workers` workers.
  LocalStepsRule(std::int64_t steps, const models::OptimizerSpec& optimizer, const LearningRatePolicy& rates,
                 std::int64_t workers);

  std::int64_t batches_per_computation() const final { return steps_; }
  double step_rate(std::int64_t step) const final { return rate_.at(step); }
  void observe_evaluation(double test_loss) final { rate_.observe(test_loss); }
  double run(std::size_t worker, std::span<const float> params, const Work& work, StepTools& tools,
             std::span<float> out) final;

 protected:
  /// What a worker hands back of steps that took it from `start` to `end` (each
  /// [parameters]): the change end - start.
  virtual void hand_back(std::span<const float> start, std::span<const float> end, std::span<float> out) const;

 private:
  std::int64_t steps_;
  models::OptimizerSpec optimizer_;
  LearningRate rate_;
  std::vector<std::optional<models::SliceOptimizer>> optimizers_;  // per worker, made on first use
};

}  // namespace pssim::training
