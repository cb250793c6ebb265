// WorkerRule: what one computation of a worker turns the parameters it holds into, the
// worker side of a scheme's math (the update side is ServerRule, server_rule.hpp).
//
//   GradientRule    the gradient of one batch at the held parameters: every scheme that
//                   exchanges gradients (the default).
//   LocalStepsRule  H optimizer steps on H consecutive batches, starting from the held
//                   parameters, with the worker's own optimizer (training.optimizer's rule,
//                   its state kept per worker across computations); hands back the change
//                   w_H - w_0 (local SGD), or what a subclass makes of the steps (a scheme's
//                   own file: EASGD hands back w_H, its replica).
//
// ModelGradients runs a rule: it draws the batches (batches_per_computation() of them, from
// the worker's sampler), their dropout seeds and their rates (step_rate(), read when the
// computation starts, in simulation order), then calls run() on the job pool. A worker's
// jobs run one at a time, so a rule's per-worker state needs no lock.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/data/training_data.hpp"
#include "models/nets/network.hpp"

namespace pssim::training {

/// What one computation works on: its batches, in order, with the dropout seed and the
/// rate of each step.
struct Work {
  std::vector<std::vector<std::int64_t>> batches;  ///< the items of each batch
  std::vector<std::uint64_t> dropout;              ///< per batch
  std::vector<double> lr;                          ///< per batch: step_rate() of its step
};

/// What run() computes with: the model, the data, and the calling thread's buffers.
struct StepTools {
  const models::Network& network;
  const models::TrainingData& data;
  models::Workspace& workspace;
  models::Batch& batch;            ///< each step's batch; the last one's after run()
  std::vector<float>& parameters;  ///< [parameters] the thread's own: the worker's steps move it
  std::optional<double> clip_norm;  ///< clip each gradient to this global L2 norm
};

class WorkerRule {
 public:
  virtual ~WorkerRule() = default;

  /// Batches one computation reads: its compute time and its samples scale with them.
  virtual std::int64_t batches_per_computation() const { return 1; }
  /// The rate of a worker's step `step` (counted over its computations: iteration x
  /// batches_per_computation() + k); 0 for a rule that takes no steps of its own.
  virtual double step_rate(std::int64_t /*step*/) const { return 0; }
  /// An evaluation's held-out loss, for a plateau schedule of the rule's rates.
  virtual void observe_evaluation(double /*test_loss*/) {}
  /// Runs on the job pool: what worker `worker`'s computation `work` makes of `params`
  /// [parameters], written to `out` [parameters]; returns the mean training loss of its
  /// batches.
  virtual double run(std::size_t worker, std::span<const float> params, const Work& work, StepTools& tools,
                     std::span<float> out) = 0;
};

/// The gradient of the computation's one batch at `params` (clipped when asked).
class GradientRule final : public WorkerRule {
 public:
  double run(std::size_t worker, std::span<const float> params, const Work& work, StepTools& tools,
             std::span<float> out) override;
};

}  // namespace pssim::training
