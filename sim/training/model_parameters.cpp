#include "sim/training/model_parameters.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>

#include "models/core/seed.hpp"

namespace pssim::training {

ModelParameters::ModelParameters(const std::vector<float>& initial, std::vector<Part> parts,
                                 const ModelParametersConfig& config, std::unique_ptr<ServerRule> rule,
                                 parallel::JobPool& pool)
    : config_(config), rule_(std::move(rule)), rate_(config.optimizer.lr, config.lr), pool_(pool) {
  if (!rule_) throw std::invalid_argument("a parameter store needs a server rule");
  const auto n = static_cast<std::int64_t>(initial.size());
  std::int64_t covered = 0;
  for (const auto& part : parts) {
    PartState p;
    p.ranges = part.ranges;
    for (const auto& r : part.ranges) {
      if (r.begin < 0 || r.end > n || r.begin >= r.end) throw std::invalid_argument("part range outside the parameters");
      p.length += static_cast<std::size_t>(r.size());
      covered += r.size();
    }
    rule_->add_part(part.ranges);
    parts_.push_back(std::move(p));
  }
  if (covered != n) throw std::invalid_argument("the parts do not cover the parameters exactly once");
  // A few spare buffers per thread: enough to recycle in steady state.
  const std::size_t spare = 2 * static_cast<std::size_t>(pool_.threads()) + 2;
  for (auto& p : parts_) {
    const std::size_t length = p.length;
    p.slices = std::make_unique<BufferPool<std::vector<float>>>(spare, [length] { return new std::vector<float>(length); });
  }
  // Version 0: the initial vector cut into the parts' slices.
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    auto slice = new_slice(k);
    std::size_t at = 0;
    for (const auto& r : parts_[k].ranges) {
      std::copy(initial.begin() + r.begin, initial.begin() + r.end, slice->begin() + static_cast<std::ptrdiff_t>(at));
      at += static_cast<std::size_t>(r.size());
    }
    current_.push_back(std::move(slice));
  }
  if (config.pull.enabled())
    for (std::size_t k = 0; k < parts_.size(); ++k) {
      pull_.emplace_back(config.pull, static_cast<std::size_t>(config.workers), current_[k]);
      pull_seeds_.push_back(models::derive_seed(config.seed, "pull", k));
    }
  pulls_sent_.assign(parts_.size(), 0);
  scratch_.resize(pool_.threads());
}

std::vector<ParameterStore::PullMessage> ModelParameters::pull_messages(std::size_t part,
                                                                        const std::vector<std::size_t>& workers) {
  const SliceRef& current = current_.at(part);
  std::vector<PullMessage> out(workers.size(), PullMessage{current, std::nullopt});
  if (pull_.empty()) {
    for (std::size_t i = 0; i < workers.size(); ++i)
      if (SliceRef answer = rule_->take_answer(part, workers[i])) out[i].held = std::move(answer);
    return out;
  }
  // Workers' copies are independent: encode them in parallel, seeded by message number.
  const std::uint64_t first = pulls_sent_[part];
  pulls_sent_[part] += workers.size();
  std::vector<std::shared_ptr<parallel::JobPool::Ticket>> tickets;
  tickets.reserve(workers.size());
  for (std::size_t i = 0; i < workers.size(); ++i)
    tickets.push_back(pool_.submit([this, part, &current, &workers, &out, first, i](unsigned thread) {
      const std::uint64_t seed = models::derive_seed(pull_seeds_[part], "message", first + i);
      const auto m = pull_[part].encode(workers[i], current, new_slice(part), scratch_[thread], seed);
      out[i] = PullMessage{m.held, static_cast<double>(m.bytes)};
    }));
  for (const auto& t : tickets) pool_.wait(t);
  return out;
}

void ModelParameters::accumulate(std::size_t part, std::int64_t clock, std::size_t worker, const GradientRef& g,
                                 std::int64_t tau) {
  parts_.at(part).pending[clock].push_back({worker, g, tau});
}

void ModelParameters::discard(std::size_t part, std::int64_t clock, std::size_t worker) {
  auto& pending = parts_.at(part).pending;
  const auto it = pending.find(clock);
  if (it == pending.end()) return;
  std::erase_if(it->second, [worker](const PartState::Contribution& c) { return c.worker == worker; });
}

void ModelParameters::restore(std::size_t part, SliceRef slice, std::int64_t updates) {
  if (!slice || slice->size() != parts_.at(part).length) throw std::invalid_argument("restoring a slice of another part");
  current_[part] = std::move(slice);
  parts_[part].updates = updates;
  rule_->restored(part);
}

template <typename Write>
SliceRef ModelParameters::update(std::size_t part, double lr, Write write) {
  PartState& p = parts_[part];
  auto next = new_slice(part);
  write(PartUpdate{part, *current_[part], *next, lr});
  ++p.updates;
  current_[part] = std::move(next);
  return current_[part];
}

SliceRef ModelParameters::apply_average(std::size_t part, std::int64_t clock, std::int64_t count) {
  PartState& p = parts_.at(part);
  const auto it = p.pending.find(clock);
  if (it == p.pending.end() || count < 1 || static_cast<std::int64_t>(it->second.size()) != count)
    throw std::logic_error("applying a clock whose gradients are not all there");
  auto contributions = std::move(it->second);
  p.pending.erase(it);
  std::sort(contributions.begin(), contributions.end(),
            [](const auto& a, const auto& b) { return a.worker < b.worker; });
  std::vector<float> mean(p.length, 0.0f);
  if (config_.weight_by_samples) {
    std::int64_t total = 0;
    for (const auto& c : contributions) total += c.gradient->samples;
    if (total < 1) throw std::logic_error("a sample-weighted average of gradients without samples");
    for (const auto& c : contributions) {
      const auto weight = static_cast<float>(rate_.staleness_factor(c.tau) * static_cast<double>(c.gradient->samples) /
                                             static_cast<double>(total));
      const float* src = c.gradient->values.data();
      for (std::size_t i = 0; i < p.length; ++i) mean[i] += weight * src[i];
    }
    return update(part, learning_rate(p, 0), [&](const PartUpdate& u) { rule_->apply_mean(u, mean); });
  }
  for (const auto& c : contributions) {
    // The staleness factor scales each gradient inside the average (SSP).
    const auto weight = static_cast<float>(rate_.staleness_factor(c.tau));
    const float* src = c.gradient->values.data();
    if (weight == 1.0f)
      for (std::size_t i = 0; i < p.length; ++i) mean[i] += src[i];
    else
      for (std::size_t i = 0; i < p.length; ++i) mean[i] += weight * src[i];
  }
  const float inverse = 1.0f / static_cast<float>(count);
  for (float& x : mean) x *= inverse;
  return update(part, learning_rate(p, 0), [&](const PartUpdate& u) { rule_->apply_mean(u, mean); });
}

SliceRef ModelParameters::apply_one(std::size_t part, std::size_t worker, const GradientRef& g, std::int64_t tau,
                                    const SliceRef& computed_on) {
  PartState& p = parts_.at(part);
  // A copy: the rule may change it (delay compensation), and the contribution is shared.
  std::vector<float>& value = p.scratch;  // reused: no allocation per update
  value.assign(g->values.begin(), g->values.end());
  return update(part, learning_rate(p, tau),
                [&](const PartUpdate& u) { rule_->apply_one(u, worker, value, computed_on); });
}

}  // namespace pssim::training
