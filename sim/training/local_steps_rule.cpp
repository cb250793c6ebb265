#include "sim/training/local_steps_rule.hpp"

#include <stdexcept>

#include "models/optim/clip_norm.hpp"

namespace pssim::training {

LocalStepsRule::LocalStepsRule(std::int64_t steps, const models::OptimizerSpec& optimizer,
                               const LearningRatePolicy& rates, std::int64_t workers)
    : steps_(steps), optimizer_(optimizer), rate_(optimizer.lr, rates),
      optimizers_(static_cast<std::size_t>(workers)) {
  if (steps < 1) throw std::invalid_argument("local steps: at least one per computation");
}

// `out` is the gradient buffer of each step, then what the worker hands back.
double LocalStepsRule::run(std::size_t worker, std::span<const float> params, const Work& work, StepTools& tools,
                           std::span<float> out) {
  auto& opt = optimizers_.at(worker);
  if (!opt) opt.emplace(optimizer_, 0, params.size());  // this worker's jobs run one at a time
  std::vector<float>& local = tools.parameters;
  local.assign(params.begin(), params.end());
  double loss_sum = 0;
  for (std::size_t k = 0; k < work.batches.size(); ++k) {
    tools.data.fill_batch(work.batches[k], tools.batch);
    loss_sum += tools.network.loss_and_gradient(local, tools.batch.view(), out, tools.workspace, work.dropout[k]);
    if (tools.clip_norm) models::clip_global_norm(out, *tools.clip_norm);
    opt->step(local, out, work.lr[k]);
  }
  hand_back(params, local, out);
  return loss_sum / static_cast<double>(work.batches.size());
}

void LocalStepsRule::hand_back(std::span<const float> start, std::span<const float> end, std::span<float> out) const {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = end[i] - start[i];
}

}  // namespace pssim::training
