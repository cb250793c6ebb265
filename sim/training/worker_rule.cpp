#include "sim/training/worker_rule.hpp"

#include "models/optim/clip_norm.hpp"

namespace pssim::training {

double GradientRule::run(std::size_t, std::span<const float> params, const Work& work, StepTools& tools,
                         std::span<float> out) {
  tools.data.fill_batch(work.batches[0], tools.batch);
  const double loss = tools.network.loss_and_gradient(params, tools.batch.view(), out, tools.workspace, work.dropout[0]);
  if (tools.clip_norm) models::clip_global_norm(out, *tools.clip_norm);
  return loss;
}

}  // namespace pssim::training
