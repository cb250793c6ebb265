#include "models/train/train_loop.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "models/core/seed.hpp"
#include "models/nets/build_network.hpp"
#include "models/optim/clip_norm.hpp"

namespace pssim::models {

TrainResult train_single_process(const TrainConfig& config, const TrainingData& data,
                                 const std::function<void(const TrainPoint&)>& on_point) {
  if (config.epochs < 1 && config.max_steps < 1) {
    throw std::invalid_argument("training: set training.epochs >= 1 or training.max_steps >= 1");
  }
  NetworkSpec spec = config.model;
  data.adapt(spec);
  const auto net = build_network<float>(spec);
  auto ws = net->make_workspace();
  auto eval_ws = net->make_workspace();
  auto params = net->init_params(derive_seed(config.seed, "init"));
  std::vector<float> grad(net->num_params());
  SliceOptimizer opt(config.optimizer, 0, params.size());
  PlateauTracker plateau(config.schedule);

  std::vector<std::int64_t> items(std::size_t(data.num_train_items()));
  std::iota(items.begin(), items.end(), 0);
  BatchSampler sampler(std::move(items), data.spec().batch_size, derive_seed(config.seed, "sampler"));
  const auto per_epoch = sampler.batches_per_epoch();
  std::int64_t total = config.epochs > 0 ? config.epochs * per_epoch
                                         : std::numeric_limits<std::int64_t>::max();
  if (config.max_steps > 0) total = std::min(total, config.max_steps);

  TrainResult result;
  result.network = net->describe();
  result.num_params = std::int64_t(net->num_params());
  const auto seq = data.task() == TaskKind::language_model ? data.spec().seq_len : 0;
  result.flops_per_sample = net->flops_per_sample(seq);

  const auto t0 = std::chrono::steady_clock::now();
  double loss_sum = 0;
  std::int64_t loss_steps = 0, samples = 0;
  auto emit = [&](std::int64_t step) {
    TrainPoint p;
    p.step = step;
    p.epoch = double(step) / double(per_epoch);
    p.samples = samples;
    p.train_loss = loss_steps ? loss_sum / double(loss_steps) : std::nan("");
    p.eval = data.evaluate(*net, params, *eval_ws);
    p.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    loss_sum = 0, loss_steps = 0;
    plateau.observe(p.eval.loss);
    result.curve.push_back(p);
    if (on_point) on_point(p);
  };
  emit(0);
  Batch batch;
  for (std::int64_t step = 1; step <= total; ++step) {
    data.fill_batch(sampler.next(), batch);
    const float loss = net->loss_and_gradient(params, batch.view(), grad, *ws,
                                              derive_seed(config.seed, "dropout", std::uint64_t(step)));
    if (!std::isfinite(loss)) {
      // The scenario's learning rate is at fault: an input problem for the caller.
      throw std::invalid_argument(fmt::format(
          "training diverged: loss {} at step {}; lower training.optimizer.lr (now {})", loss,
          step, config.optimizer.lr));
    }
    if (config.clip_norm) clip_global_norm(grad, *config.clip_norm);
    // Step `step` is the schedule's t = step - 1 (the first update runs at the full rate).
    opt.step(params, grad, config.optimizer.lr * schedule_factor(config.schedule, step - 1) * plateau.factor());
    loss_sum += loss, ++loss_steps, samples += batch.size;
    if ((config.eval_every > 0 && step % config.eval_every == 0) || step == total) emit(step);
  }
  result.params = std::move(params);
  return result;
}

TrainResult train_single_process(const TrainConfig& config,
                                 const std::function<void(const TrainPoint&)>& on_point) {
  const auto data = TrainingData::load(config.data, config.seed);
  return train_single_process(config, data, on_point);
}

}  // namespace pssim::models
