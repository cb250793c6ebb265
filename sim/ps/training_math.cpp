#include "sim/ps/training_math.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "models/core/seed.hpp"

namespace pssim::ps {

TrainingMath::TrainingMath(const models::Network& network, const models::TrainingData& data, std::vector<Shard> shards,
                           const TrainingMathConfig& config)
    : network_(network), data_(data), config_(config), pool_(config.threads) {
  const auto n = static_cast<std::int64_t>(network.num_params());
  std::int64_t covered = 0;
  for (const auto& s : shards) {
    ShardMath m;
    m.ranges = s.ranges;
    for (const auto& r : s.ranges) {
      if (r.begin < 0 || r.end > n || r.begin >= r.end) throw std::invalid_argument("shard range outside the parameters");
      m.optimizers.emplace_back(config.optimizer, static_cast<std::size_t>(r.begin), static_cast<std::size_t>(r.size()));
      m.length += static_cast<std::size_t>(r.size());
      covered += r.size();
    }
    shards_.push_back(std::move(m));
  }
  if (covered != n) throw std::invalid_argument("the shards do not cover the parameters exactly once");
  // A few spare buffers per thread: enough to recycle in steady state.
  const std::size_t spare = 2 * static_cast<std::size_t>(pool_.threads()) + 2;
  for (auto& m : shards_) {
    const std::size_t length = m.length;
    m.slices = std::make_unique<BufferPool<std::vector<float>>>(spare, [length] { return new std::vector<float>(length); });
    m.gradients = std::make_unique<BufferPool<GradientData>>(
        spare, [length] { return new GradientData{std::vector<float>(length), 0, 0, std::nullopt}; });
  }

  // Version 0: the network's initialization, cut into the shards' slices.
  const std::vector<float> init = network.init_params(models::derive_seed(config.seed, "init"));
  for (std::size_t s = 0; s < shards_.size(); ++s) {
    auto slice = new_slice(s);
    std::size_t at = 0;
    for (const auto& r : shards_[s].ranges) {
      std::copy(init.begin() + r.begin, init.begin() + r.end, slice->begin() + static_cast<std::ptrdiff_t>(at));
      at += static_cast<std::size_t>(r.size());
    }
    current_.push_back(std::move(slice));
  }

  const models::Partition parts = data.partition(config.workers, models::derive_seed(config.seed, "partition"));
  for (std::int64_t w = 0; w < config.workers; ++w) {
    samplers_.emplace_back(parts[static_cast<std::size_t>(w)], config.batch_size,
                           models::derive_seed(config.seed, "sampler", static_cast<std::uint64_t>(w)));
    dropout_seeds_.push_back(models::derive_seed(config.seed, "dropout", static_cast<std::uint64_t>(w)));
  }
  threads_.resize(pool_.threads());
  for (auto& t : threads_) t.workspace = network.make_workspace();

  const CompressionConfig& c = config.compression;
  std::vector<std::size_t> lengths;
  for (const auto& m : shards_) lengths.push_back(m.length);
  if (c.push.enabled())
    for (std::int64_t w = 0; w < config.workers; ++w) {
      push_.emplace_back(c.push, lengths);
      push_seeds_.push_back(models::derive_seed(config.seed, "push", static_cast<std::uint64_t>(w)));
    }
  if (c.pull.enabled())
    for (std::size_t s = 0; s < shards_.size(); ++s) {
      pull_.emplace_back(c.pull, static_cast<std::size_t>(config.workers), current_[s]);
      pull_seeds_.push_back(models::derive_seed(config.seed, "pull", s));
    }
  pulls_sent_.assign(shards_.size(), 0);
}

TrainingMath::~TrainingMath() {
  // Jobs still queued reference this object: run them out before members go.
  for (auto& [id, p] : pending_) {
    try {
      pool_.wait(p.ticket);
    } catch (...) {
    }
  }
}

std::shared_ptr<std::vector<float>> TrainingMath::new_slice(std::size_t shard) { return shards_[shard].slices->get(); }

SliceRef TrainingMath::initial_slice(std::size_t shard) { return current_.at(shard); }

std::span<const float> TrainingMath::params_view(const std::vector<SliceRef>& slices, std::vector<float>& buffer) const {
  if (shards_.size() == 1 && shards_[0].ranges.size() == 1) return *slices[0];  // the slice is the vector
  buffer.resize(network_.num_params());
  for (std::size_t s = 0; s < shards_.size(); ++s) {
    std::size_t at = 0;
    for (const auto& r : shards_[s].ranges) {
      std::copy_n(slices[s]->begin() + static_cast<std::ptrdiff_t>(at), r.size(), buffer.begin() + r.begin);
      at += static_cast<std::size_t>(r.size());
    }
  }
  return buffer;
}

std::vector<float> TrainingMath::assemble(const std::vector<SliceRef>& slices) const {
  std::vector<float> buffer;
  const auto view = params_view(slices, buffer);
  return {view.begin(), view.end()};
}

std::uint64_t TrainingMath::start_gradient(std::size_t worker, std::int64_t iteration,
                                           const std::vector<SliceRef>& held) {
  // The batch and the dropout seed are drawn now, in simulation order.
  const auto items = samplers_.at(worker).next();
  std::vector<std::int64_t> batch(items.begin(), items.end());
  const std::uint64_t dropout =
      models::derive_seed(dropout_seeds_[worker], "iteration", static_cast<std::uint64_t>(iteration));
  auto result = std::make_shared<std::vector<GradientRef>>();
  auto job = [this, worker, iteration, held, batch = std::move(batch), dropout, result](unsigned thread) {
    compute_gradient(worker, iteration, held, batch, dropout, thread, *result);
  };
  const std::uint64_t id = next_ticket_++;
  pending_.emplace(id, Pending{pool_.submit(std::move(job)), std::move(result)});
  return id;
}

// Runs on the job pool. The gradient of the whole vector, cut into the shards' parts
// (each compressed, with push compression, into what its shard will decode).
void TrainingMath::compute_gradient(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held,
                                    const std::vector<std::int64_t>& batch, std::uint64_t dropout, unsigned thread,
                                    std::vector<GradientRef>& parts) {
  ThreadState& t = threads_[thread];
  const auto params = params_view(held, t.params);
  data_.fill_batch(batch, t.batch);
  std::vector<std::shared_ptr<GradientData>> out;
  for (auto& m : shards_) out.push_back(m.gradients->get());
  // A single contiguous shard's part is the whole vector: computed in place.
  const bool whole = shards_.size() == 1 && shards_[0].ranges.size() == 1;
  std::vector<float>& full = whole ? out[0]->values : t.gradient;
  full.resize(network_.num_params());
  const double loss = network_.loss_and_gradient(params, t.batch.view(), full, *t.workspace, dropout);
  const std::uint64_t seed =
      push_.empty() ? 0 : models::derive_seed(push_seeds_[worker], "iteration", static_cast<std::uint64_t>(iteration));
  for (std::size_t s = 0; s < shards_.size(); ++s) {
    GradientData& part = *out[s];
    if (!whole) {
      std::size_t at = 0;
      for (const auto& r : shards_[s].ranges) {
        std::copy_n(full.begin() + r.begin, r.size(), part.values.begin() + static_cast<std::ptrdiff_t>(at));
        at += static_cast<std::size_t>(r.size());
      }
    }
    part.loss = loss;
    part.samples = t.batch.size;
    part.wire_bytes.reset();
    if (!push_.empty())
      part.wire_bytes = static_cast<double>(push_[worker].compress(s, part.values, models::derive_seed(seed, "shard", s)));
  }
  parts.assign(out.begin(), out.end());
}

std::vector<PsMath::PullMessage> TrainingMath::pull_messages(std::size_t shard, const SliceRef& current,
                                                             const std::vector<std::size_t>& workers) {
  std::vector<PullMessage> out(workers.size(), PullMessage{current, std::nullopt});
  if (pull_.empty()) return out;
  // Workers' copies are independent: encode them in parallel, seeded by message number.
  const std::uint64_t first = pulls_sent_[shard];
  pulls_sent_[shard] += workers.size();
  std::vector<std::shared_ptr<JobPool::Ticket>> tickets;
  tickets.reserve(workers.size());
  for (std::size_t i = 0; i < workers.size(); ++i)
    tickets.push_back(pool_.submit([this, shard, &current, &workers, &out, first, i](unsigned thread) {
      const std::uint64_t seed = models::derive_seed(pull_seeds_[shard], "message", first + i);
      const auto m = pull_[shard].encode(workers[i], current, new_slice(shard), threads_[thread].slice, seed);
      out[i] = PullMessage{m.held, static_cast<double>(m.bytes)};
    }));
  for (const auto& t : tickets) pool_.wait(t);
  return out;
}

std::vector<GradientRef> TrainingMath::gradient(std::uint64_t ticket) {
  const auto it = pending_.find(ticket);
  if (it == pending_.end()) throw std::logic_error("gradient ticket redeemed twice or never issued");
  Pending p = std::move(it->second);
  pending_.erase(it);
  pool_.wait(p.ticket);
  return std::move(*p.result);  // the job has run: wait() synchronized with it
}

double TrainingMath::staleness_factor(std::int64_t tau) const {
  switch (config_.lr.staleness) {
    case LearningRatePolicy::Staleness::None: return 1.0;
    case LearningRatePolicy::Staleness::Inverse: return 1.0 / static_cast<double>(std::max<std::int64_t>(tau, 1));
    case LearningRatePolicy::Staleness::InversePlusOne:
      return 1.0 / (1.0 + config_.lr.staleness_coefficient * static_cast<double>(tau));  // c = 1: 1 / (1 + tau) exactly
  }
  return 1.0;
}

double TrainingMath::learning_rate(const ShardMath& s, std::int64_t tau) const {
  double scale = config_.lr.scale;
  if (config_.lr.warmup_updates > 0 && s.updates < config_.lr.warmup_updates)
    scale = 1.0 + (scale - 1.0) * static_cast<double>(s.updates) / static_cast<double>(config_.lr.warmup_updates);
  return config_.optimizer.lr * scale * staleness_factor(tau);
}

void TrainingMath::accumulate(std::size_t shard, std::int64_t clock, std::size_t worker, const GradientRef& g,
                              std::int64_t tau) {
  shards_.at(shard).pending[clock].push_back({worker, g, tau});
}

SliceRef TrainingMath::apply(std::size_t shard, std::vector<float>& grad, double lr, const SliceRef& computed_on) {
  ShardMath& s = shards_[shard];
  auto next = new_slice(shard);
  const std::vector<float>& now = *current_[shard];
  std::copy(now.begin(), now.end(), next->begin());
  if (config_.lr.delay_compensation && computed_on) {
    // DC-ASGD: g + lambda g * g * (w_now - w_then), element-wise.
    const auto lambda = static_cast<float>(*config_.lr.delay_compensation);
    const std::vector<float>& then = *computed_on;
    for (std::size_t i = 0; i < grad.size(); ++i) grad[i] += lambda * grad[i] * grad[i] * (now[i] - then[i]);
  }
  std::size_t at = 0;
  for (std::size_t k = 0; k < s.ranges.size(); ++k) {
    const auto len = static_cast<std::size_t>(s.ranges[k].size());
    s.optimizers[k].step(std::span<float>(next->data() + at, len), std::span<const float>(grad.data() + at, len), lr);
    at += len;
  }
  ++s.updates;
  current_[shard] = std::move(next);
  return current_[shard];
}

SliceRef TrainingMath::apply_average(std::size_t shard, std::int64_t clock, std::int64_t count) {
  ShardMath& s = shards_.at(shard);
  const auto it = s.pending.find(clock);
  if (it == s.pending.end() || count < 1 || static_cast<std::int64_t>(it->second.size()) != count)
    throw std::logic_error("applying a clock whose gradients are not all there");
  auto contributions = std::move(it->second);
  s.pending.erase(it);
  std::sort(contributions.begin(), contributions.end(),
            [](const auto& a, const auto& b) { return a.worker < b.worker; });
  std::vector<float> mean(s.length, 0.0f);
  for (const auto& c : contributions) {
    // The staleness factor scales each gradient inside the average (SSP).
    const auto weight = static_cast<float>(staleness_factor(c.tau));
    const float* src = c.gradient->values.data();
    if (weight == 1.0f)
      for (std::size_t i = 0; i < s.length; ++i) mean[i] += src[i];
    else
      for (std::size_t i = 0; i < s.length; ++i) mean[i] += weight * src[i];
  }
  const float inverse = 1.0f / static_cast<float>(count);
  for (float& x : mean) x *= inverse;
  return apply(shard, mean, learning_rate(s, 0), nullptr);
}

SliceRef TrainingMath::apply_one(std::size_t shard, const GradientRef& g, std::int64_t tau, const SliceRef& computed_on) {
  ShardMath& s = shards_.at(shard);
  // A copy: delay compensation modifies the gradient, and the part is shared.
  std::vector<float>& slice = s.scratch;  // reused: no allocation per update
  slice.assign(g->values.begin(), g->values.end());
  return apply(shard, slice, learning_rate(s, tau), computed_on);
}

models::EvalResult TrainingMath::evaluate(const std::vector<SliceRef>& slices) {
  const std::vector<float> params = assemble(slices);
  // Batches of the training size: a workspace sized for larger evaluation batches would
  // multiply the memory of every thread.
  const std::int64_t size = config_.batch_size;
  const std::int64_t batches = data_.eval_batches(size);
  std::vector<models::BatchEval> parts(static_cast<std::size_t>(batches));
  std::vector<std::shared_ptr<JobPool::Ticket>> tickets;
  for (std::int64_t b = 0; b < batches; ++b)
    tickets.push_back(pool_.submit([this, &params, &parts, b, size](unsigned thread) {
      parts[static_cast<std::size_t>(b)] = data_.evaluate_part(network_, params, *threads_[thread].workspace, b, size);
    }));
  for (const auto& t : tickets) pool_.wait(t);
  models::BatchEval sum;
  for (const auto& p : parts) sum.loss_sum += p.loss_sum, sum.correct += p.correct, sum.count += p.count;
  return models::TrainingData::eval_result(sum);
}

}  // namespace pssim::ps
