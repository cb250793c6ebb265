#include "sim/training/model_gradients.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/compress/sparse_rows.hpp"
#include "models/core/seed.hpp"

namespace pssim::training {

ModelGradients::ModelGradients(const models::Network& network, const models::TrainingData& data,
                               std::vector<Part> parts, const ModelGradientsConfig& config,
                               std::unique_ptr<WorkerRule> rule, parallel::JobPool& pool)
    : network_(network), data_(data), config_(config), rule_(std::move(rule)), pool_(pool), parts_(std::move(parts)) {
  if (!rule_) throw std::invalid_argument("a gradient source needs a worker rule");
  const auto n = static_cast<std::int64_t>(network.num_params());
  std::int64_t covered = 0;
  for (const auto& p : parts_)
    for (const auto& r : p.ranges) {
      if (r.begin < 0 || r.end > n || r.begin >= r.end) throw std::invalid_argument("part range outside the parameters");
      covered += r.size();
    }
  if (covered != n) throw std::invalid_argument("the parts do not cover the parameters exactly once");
  // A few spare buffers per thread: enough to recycle in steady state.
  const std::size_t spare = 2 * static_cast<std::size_t>(pool_.threads()) + 2;
  for (const auto& p : parts_) {
    const auto length = static_cast<std::size_t>(p.params);
    buffers_.push_back(std::make_unique<BufferPool<GradientData>>(
        spare, [length] { return new GradientData{std::vector<float>(length), 0, 0, std::nullopt}; }));
  }

  const models::Partition partition = data.partition(config.workers, models::derive_seed(config.seed, "partition"));
  for (std::int64_t w = 0; w < config.workers; ++w) {
    samplers_.emplace_back(partition[static_cast<std::size_t>(w)], config.batch_size,
                           models::derive_seed(config.seed, "sampler", static_cast<std::uint64_t>(w)));
    dropout_seeds_.push_back(models::derive_seed(config.seed, "dropout", static_cast<std::uint64_t>(w)));
  }
  next_.resize(static_cast<std::size_t>(config.workers));
  batch_.assign(static_cast<std::size_t>(config.workers), config.batch_size);
  threads_.resize(pool_.threads());
  for (auto& t : threads_) t.workspace = network.make_workspace();

  if (config.push.enabled()) {
    std::vector<std::size_t> lengths;
    for (const auto& p : parts_) lengths.push_back(static_cast<std::size_t>(p.params));
    for (std::int64_t w = 0; w < config.workers; ++w) {
      push_.emplace_back(config.push, lengths);
      push_seeds_.push_back(models::derive_seed(config.seed, "push", static_cast<std::uint64_t>(w)));
    }
  }
  if (rule_->batches_per_computation() > 1 && config.sparse_embedding)
    throw std::invalid_argument("a computation of several batches has no one set of embedding rows to pull");
  if (const auto& table = config.sparse_embedding) {
    if (config.push.enabled()) throw std::invalid_argument("sparse embedding rows and push compression do not combine");
    const std::int64_t lo = table->offset, hi = table->offset + table->rows * table->width;
    if (table->rows < 1 || table->width < 1 || lo < 0 || hi > n)
      throw std::invalid_argument("the embedding table is outside the parameters");
    for (const auto& p : parts_) {
      PartRows pr{0, 0, p.params};
      for (const auto& r : p.ranges) {
        const std::int64_t a = std::max(r.begin, lo), b = std::min(r.end, hi);
        if (a >= b) continue;
        if (pr.end > pr.begin) throw std::invalid_argument("a part holds two separate pieces of the embedding table");
        pr.begin = a - lo, pr.end = b - lo;
        pr.other -= b - a;
      }
      part_rows_.push_back(pr);
    }
  }
}

ModelGradients::~ModelGradients() {
  // Jobs still queued reference this object: run them out before members go.
  const auto wait = [this](const std::shared_ptr<parallel::JobPool::Ticket>& t) {
    try {
      pool_.wait(t);
    } catch (...) {
    }
  };
  for (auto& [id, p] : pending_) wait(p.ticket);
  for (auto& t : cancelled_) wait(t);
}

std::span<const float> ModelGradients::params_view(const std::vector<SliceRef>& slices,
                                                   std::vector<float>& buffer) const {
  if (parts_.size() == 1 && parts_[0].ranges.size() == 1) return *slices[0];  // the slice is the vector
  buffer.resize(network_.num_params());
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    std::size_t at = 0;
    for (const auto& r : parts_[p].ranges) {
      std::copy_n(slices[p]->begin() + static_cast<std::ptrdiff_t>(at), r.size(), buffer.begin() + r.begin);
      at += static_cast<std::size_t>(r.size());
    }
  }
  return buffer;
}

std::vector<float> ModelGradients::assemble(const std::vector<SliceRef>& slices) const {
  std::vector<float> buffer;
  const auto view = params_view(slices, buffer);
  return {view.begin(), view.end()};
}

// Items of the worker's next batch, drawn now if they were not yet (in simulation order).
ModelGradients::NextBatch& ModelGradients::next_batch(std::size_t worker) {
  auto& next = next_.at(worker);
  if (!next) {
    const auto items = samplers_.at(worker).next(batch_[worker]);
    next.emplace();
    next->items.assign(items.begin(), items.end());
    if (config_.sparse_embedding) {
      models::Batch batch;
      data_.fill_batch(next->items, batch);
      read_rows(batch, next->rows);
    }
  }
  return *next;
}

void ModelGradients::set_batch(std::size_t worker, std::int64_t samples) {
  if (config_.sparse_embedding || rule_->batches_per_computation() > 1)
    throw std::logic_error("adaptive batches combine with neither sparse embedding rows nor several batches per "
                           "computation");
  if (samples < 1) throw std::invalid_argument("a batch needs at least one sample");
  batch_.at(worker) = samples;
}

std::uint64_t ModelGradients::start(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held) {
  Work work;
  const std::int64_t steps = rule_->batches_per_computation();
  for (std::int64_t k = 0; k < steps; ++k) {
    work.batches.push_back(std::move(next_batch(worker).items));
    next_[worker].reset();
    // The seed of the worker's step (of its iteration, with one batch per computation).
    const std::int64_t step = iteration * steps + k;
    work.dropout.push_back(
        models::derive_seed(dropout_seeds_[worker], "iteration", static_cast<std::uint64_t>(step)));
    work.lr.push_back(rule_->step_rate(step));  // now, in simulation order
  }
  auto result = std::make_shared<std::vector<GradientRef>>();
  auto job = [this, worker, iteration, held, work = std::move(work), result](unsigned thread) {
    compute_gradient(worker, iteration, held, work, thread, *result);
  };
  const std::uint64_t id = next_ticket_++;
  pending_.emplace(id, Pending{pool_.submit(std::move(job)), std::move(result)});
  return id;
}

// Runs on the job pool. What the rule makes of the held slices, cut into the parts (each
// compressed, with push compression, into what its holder will decode).
void ModelGradients::compute_gradient(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held,
                                      const Work& work, unsigned thread, std::vector<GradientRef>& parts) {
  ThreadState& t = threads_[thread];
  const auto params = params_view(held, t.params);
  std::vector<std::shared_ptr<GradientData>> out;
  for (auto& b : buffers_) out.push_back(b->get());
  // A single contiguous part is the whole vector: computed in place.
  const bool whole = parts_.size() == 1 && parts_[0].ranges.size() == 1;
  std::vector<float>& full = whole ? out[0]->values : t.gradient;
  full.resize(network_.num_params());
  StepTools tools{network_, data_, *t.workspace, t.batch, t.local, config_.clip_norm};
  const double loss = rule_->run(worker, params, work, tools, full);
  const std::int64_t samples = t.batch.size * static_cast<std::int64_t>(work.batches.size());
  const std::uint64_t seed =
      push_.empty() ? 0 : models::derive_seed(push_seeds_[worker], "iteration", static_cast<std::uint64_t>(iteration));
  if (config_.sparse_embedding) read_rows(t.batch, t.rows);
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    GradientData& part = *out[p];
    if (!whole) {
      std::size_t at = 0;
      for (const auto& r : parts_[p].ranges) {
        std::copy_n(full.begin() + r.begin, r.size(), part.values.begin() + static_cast<std::ptrdiff_t>(at));
        at += static_cast<std::size_t>(r.size());
      }
    }
    part.loss = loss;
    part.samples = samples;
    part.wire_bytes.reset();
    if (!push_.empty())
      part.wire_bytes = static_cast<double>(push_[worker].compress(p, part.values, models::derive_seed(seed, "shard", p)));
    else if (config_.sparse_embedding && part_rows_[p].end > part_rows_[p].begin)
      part.wire_bytes = sparse_bytes(p, t.rows);
  }
  parts.assign(out.begin(), out.end());
}

// The distinct embedding rows a batch reads: the input tokens, columns 0 .. S-1 of each
// sequence (column S is only a target).
void ModelGradients::read_rows(const models::Batch& batch, std::vector<std::int32_t>& rows) const {
  rows.clear();
  if (batch.size < 1) return;
  const auto width = static_cast<std::int64_t>(batch.tokens.size()) / batch.size;  // S + 1
  for (std::int64_t b = 0; b < batch.size; ++b)
    for (std::int64_t s = 0; s + 1 < width; ++s) rows.push_back(batch.tokens[static_cast<std::size_t>(b * width + s)]);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
}

// Size of part p's message when it carries only `rows` of its share of the table.
double ModelGradients::sparse_bytes(std::size_t part, std::span<const std::int32_t> rows) const {
  const PartRows& pr = part_rows_[part];
  const std::int64_t width = config_.sparse_embedding->width;
  std::int64_t sent = 0, elements = 0;
  for (const std::int32_t row : rows) {
    const std::int64_t a = std::max<std::int64_t>(row * width, pr.begin);
    const std::int64_t b = std::min<std::int64_t>((row + 1) * width, pr.end);
    if (a < b) ++sent, elements += b - a;
  }
  return static_cast<double>(models::sparse_rows_bytes(sent, elements, pr.other));
}

std::optional<double> ModelGradients::pull_bytes(std::size_t worker, std::size_t part) {
  if (!config_.sparse_embedding || part_rows_.at(part).end <= part_rows_[part].begin) return std::nullopt;
  return sparse_bytes(part, next_batch(worker).rows);
}

std::vector<GradientRef> ModelGradients::get(std::uint64_t ticket) {
  const auto it = pending_.find(ticket);
  if (it == pending_.end()) throw std::logic_error("gradient ticket redeemed twice or never issued");
  Pending p = std::move(it->second);
  pending_.erase(it);
  pool_.wait(p.ticket);
  return std::move(*p.result);  // the job has run: wait() synchronized with it
}

void ModelGradients::cancel(std::uint64_t ticket) {
  const auto it = pending_.find(ticket);
  if (it == pending_.end()) throw std::logic_error("gradient ticket cancelled twice or never issued");
  // A job already running must finish before this object goes (it uses its buffers).
  if (!pool_.discard(it->second.ticket)) cancelled_.push_back(std::move(it->second.ticket));
  pending_.erase(it);
  std::erase_if(cancelled_, [this](const auto& t) { return pool_.done(t); });
}

models::EvalResult ModelGradients::evaluate(const std::vector<SliceRef>& slices) {
  const std::vector<float> params = assemble(slices);
  // Batches of the training size: a workspace sized for larger evaluation batches would
  // multiply the memory of every thread.
  const std::int64_t size = config_.batch_size;
  const std::int64_t batches = data_.eval_batches(size);
  std::vector<models::BatchEval> results(static_cast<std::size_t>(batches));
  std::vector<std::shared_ptr<parallel::JobPool::Ticket>> tickets;
  for (std::int64_t b = 0; b < batches; ++b)
    tickets.push_back(pool_.submit([this, &params, &results, b, size](unsigned thread) {
      results[static_cast<std::size_t>(b)] = data_.evaluate_part(network_, params, *threads_[thread].workspace, b, size);
    }));
  for (const auto& t : tickets) pool_.wait(t);
  models::BatchEval sum;
  for (const auto& r : results) sum.loss_sum += r.loss_sum, sum.correct += r.correct, sum.count += r.count;
  return models::TrainingData::eval_result(sum);
}

}  // namespace pssim::training
