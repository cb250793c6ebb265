#include "sim/ps/ps_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::ps {

PsEngine::PsEngine(Simulator& sim, net::Transport& transport, ComputeModel& compute, PsConfig config, PsLayout layout,
                   PsObserver* observer, PsMath* math)
    : sim_(sim), transport_(transport), compute_(compute), config_(config), observer_(observer), math_(math) {
  const std::size_t n = layout.worker_hosts.size(), s = layout.shards.size();
  if (n == 0 || s == 0) throw std::invalid_argument("a PS system needs workers and shards");
  if (layout.shard_hosts.size() != s) throw std::invalid_argument("one host per shard");
  if (config.mode == PsConfig::Mode::Sync && config.backup_workers >= static_cast<std::int64_t>(n))
    throw std::invalid_argument("backup workers must be fewer than workers");
  workers_.resize(n);
  for (std::size_t w = 0; w < n; ++w) {
    Worker& worker = workers_[w];
    worker.engine = this;
    worker.index = w;
    worker.host = layout.worker_hosts[w];
    worker.held.assign(s, -1);
    worker.used.assign(s, -1);
    if (math) worker.held_slices.assign(s, nullptr);
    worker.state_since = sim.now();
    all_workers_.push_back(w);
  }
  const auto sized = [&](const std::vector<double>& v, const char* what) {
    if (!v.empty() && v.size() != s) throw std::invalid_argument(fmt::format("{} needs one size per shard", what));
  };
  sized(config.push_bytes, "push_bytes");
  sized(config.pull_bytes, "pull_bytes");
  shards_.resize(s);
  for (std::size_t k = 0; k < s; ++k) {
    ShardState& shard = shards_[k];
    shard.engine = this;
    shard.index = k;
    shard.host = layout.shard_hosts[k];
    shard.bytes = layout.shards[k].bytes();
    shard.params = layout.shards[k].params;
    shard.push_bytes = config.push_bytes.empty() ? shard.bytes : config.push_bytes[k];
    shard.pull_bytes = config.pull_bytes.empty() ? shard.bytes : config.pull_bytes[k];
    total_params_ += static_cast<double>(shard.params);
  }
}

std::uint64_t PsEngine::new_message(const Message& m) {
  const StoredMessage head{static_cast<std::uint32_t>(m.worker), static_cast<std::uint32_t>(m.shard), m.kind, m.version,
                           m.clock};
  std::size_t i;
  if (!free_messages_.empty()) {
    i = free_messages_.back();
    free_messages_.pop_back();
    messages_[i] = head;
  } else {
    i = messages_.size();
    messages_.push_back(head);
    if (math_) message_refs_.emplace_back();
  }
  if (math_) message_refs_[i] = {m.slice, m.gradient, m.computed_on};
  return i;
}

void PsEngine::start() {
  for (auto& shard : shards_) {
    if (math_) shard.current = math_->initial_slice(shard.index);
    for (std::size_t w = 0; w < workers_.size(); ++w) send_slice(shard, w, shard.current, shard.bytes);
  }
}

// ---- time split ----------------------------------------------------------------------------

void PsEngine::account(Worker& w) {
  const TimeNs now = sim_.now();
  const TimeNs spent = now - w.state_since;
  if (spent == 0) return;
  switch (w.state) {
    case WorkerState::Computing: w.stats.computing += spent; break;
    case WorkerState::Pushing: w.stats.pushing += spent; break;
    case WorkerState::Pulling: w.stats.pulling += spent; break;
    case WorkerState::Blocked: w.stats.blocked += spent; break;
  }
  if (observer_) observer_->on_worker_state(static_cast<std::int64_t>(w.index), w.state, w.state_since, now);
  w.state_since = now;
}

void PsEngine::set_flags(Worker& w) {
  const WorkerState next = w.computing              ? WorkerState::Computing
                           : w.pushes_in_flight > 0 ? WorkerState::Pushing
                           : w.pulls_in_flight > 0  ? WorkerState::Pulling
                                                    : WorkerState::Blocked;
  if (next == w.state) return;
  account(w);
  w.state = next;
}

void PsEngine::finish() {
  for (auto& w : workers_) account(w);
}

// ---- messages ------------------------------------------------------------------------------

void PsEngine::on_delivered(std::uint64_t tag) {
  const StoredMessage& head = messages_[tag];
  Message m{head.kind, head.worker, head.shard, head.version, head.clock, nullptr, nullptr, nullptr};
  if (math_) {  // the pool slot must not keep slices alive
    StoredRefs& refs = message_refs_[tag];
    m.slice = std::move(refs.slice);
    m.gradient = std::move(refs.gradient);
    m.computed_on = std::move(refs.computed_on);
  }
  free_messages_.push_back(static_cast<std::uint32_t>(tag));
  if (m.kind == Message::Kind::Pull) receive_pull(m);
  else receive_push(m);
}

void PsEngine::send_slice(ShardState& s, std::size_t worker, SliceRef slice, double bytes) {
  Worker& w = workers_[worker];
  const auto tag = new_message({Message::Kind::Pull, static_cast<std::int64_t>(worker),
                                static_cast<std::int64_t>(s.index), s.version, 0, std::move(slice), nullptr, nullptr});
  ++w.pulls_in_flight;
  set_flags(w);
  totals_.pull_bytes += bytes;
  transport_.send(s.host, w.host, bytes, this, tag);
}

void PsEngine::send_pulls(ShardState& s, const std::vector<std::size_t>& workers) {
  if (!math_) {
    for (std::size_t w : workers) send_slice(s, w, nullptr, s.pull_bytes);
    return;
  }
  auto messages = math_->pull_messages(s.index, s.current, workers);
  for (std::size_t i = 0; i < workers.size(); ++i)
    send_slice(s, workers[i], std::move(messages[i].held), messages[i].bytes.value_or(s.pull_bytes));
}

void PsEngine::receive_pull(const Message& m) {
  Worker& w = workers_[static_cast<std::size_t>(m.worker)];
  const auto s = static_cast<std::size_t>(m.shard);
  --w.pulls_in_flight;
  const std::int64_t before = w.held[s];
  switch (config_.mode) {
    case PsConfig::Mode::Async:  // every answer counts: it follows one of our pushes
      ++w.ready;
      break;
    case PsConfig::Mode::Sync:   // newer than what the last computation used
      if (before <= w.used[s] && m.version > w.used[s]) ++w.ready;
      break;
    case PsConfig::Mode::Ssp: {  // recent enough for the next clock
      const std::int64_t threshold = ssp_threshold(w);
      if (before < threshold && m.version >= threshold) ++w.ready;
      break;
    }
  }
  if (m.version > before) {
    w.held[s] = m.version;
    if (math_) w.held_slices[s] = m.slice;
  }
  set_flags(w);
  try_start(w);
}

std::int64_t PsEngine::ssp_threshold(const Worker& w) const {
  // Clock c needs every shard at version >= c - s, and some slice at all (version 0).
  return std::max<std::int64_t>(0, w.iteration - config_.staleness);
}

void PsEngine::try_start(Worker& w) {
  if (w.computing || finished_ || w.ready < static_cast<std::int64_t>(shards_.size())) return;
  w.used = w.held;
  w.computing = true;
  if (observer_) observer_->on_compute_start(static_cast<std::int64_t>(w.index), w.iteration);
  if (math_) {
    w.ticket = math_->start_gradient(w.index, w.iteration, w.held_slices);
    if (math_->needs_computed_on()) w.used_slices = w.held_slices;
    // Sync and async never compute twice on the same slices: let them go (memory). SSP
    // may start its next clock on the slices it holds.
    if (config_.mode != PsConfig::Mode::Ssp) std::fill(w.held_slices.begin(), w.held_slices.end(), nullptr);
  }
  ++w.iteration;
  switch (config_.mode) {
    case PsConfig::Mode::Async:
    case PsConfig::Mode::Sync: w.ready = 0; break;
    case PsConfig::Mode::Ssp: {
      const std::int64_t threshold = ssp_threshold(w);
      w.ready = std::count_if(w.held.begin(), w.held.end(), [&](std::int64_t v) { return v >= threshold; });
      break;
    }
  }
  set_flags(w);
  Worker* p = &w;
  const double codec = (config_.push_codec_seconds + config_.pull_codec_seconds) * total_params_;
  sim_.schedule_after(compute_.next_duration(w.index, config_.flops_per_iteration) + seconds_to_ns(codec),
                      [p] { p->engine->finish_compute(*p); });
}

void PsEngine::finish_compute(Worker& w) {
  w.computing = false;
  ++w.stats.iterations;
  const std::int64_t clock = w.iteration - 1;
  const std::vector<GradientRef> parts = math_ ? math_->gradient(w.ticket) : std::vector<GradientRef>{};
  for (auto& s : shards_) {
    const GradientRef gradient = parts.empty() ? nullptr : parts[s.index];
    const SliceRef computed_on = w.used_slices.empty() ? nullptr : w.used_slices[s.index];
    const auto tag = new_message({Message::Kind::Push, static_cast<std::int64_t>(w.index),
                                  static_cast<std::int64_t>(s.index), w.used[s.index], clock, nullptr, gradient,
                                  computed_on});
    ++w.pushes_in_flight;
    const double bytes = gradient && gradient->wire_bytes ? *gradient->wire_bytes : s.push_bytes;
    totals_.push_bytes += bytes;
    transport_.send(w.host, s.host, bytes, this, tag);
  }
  w.used_slices.clear();
  set_flags(w);
  try_start(w);  // SSP may go on at once
}

void PsEngine::receive_push(const Message& m) {
  Worker& w = workers_[static_cast<std::size_t>(m.worker)];
  --w.pushes_in_flight;
  set_flags(w);
  ShardState& s = shards_[static_cast<std::size_t>(m.shard)];
  const auto n = static_cast<std::int64_t>(workers_.size());
  GradientRecord g{sim_.now(), m.worker, m.shard, m.clock, m.version, true};
  switch (config_.mode) {
    case PsConfig::Mode::Async:
      if (observer_) observer_->on_gradient(g);
      s.async_queue.push_back({m.worker, m.version, m.gradient, m.computed_on});
      if (!s.applying) begin_apply(s);
      return;
    case PsConfig::Mode::Sync: {
      const std::int64_t needed = n - config_.backup_workers;
      ensure_slot(s, 0);
      g.accepted = m.version == s.version && !s.applying && s.collected.front() < needed;
      if (observer_) observer_->on_gradient(g);
      if (!g.accepted) {
        ++s.dropped_this_round;  // late: the round went ahead without it
        ++totals_.gradients_dropped;
        return;
      }
      ++s.collected.front();
      record_staleness(0);
      if (m.gradient) {
        math_->accumulate(s.index, s.version, static_cast<std::size_t>(m.worker), m.gradient, 0);
        s.loss_sum.front() += m.gradient->loss;
        s.samples.front() += m.gradient->samples;
        note_loss(m.gradient);
      }
      if (s.collected.front() == needed) begin_apply(s);
      return;
    }
    case PsConfig::Mode::Ssp: {
      const auto slot = static_cast<std::size_t>(m.clock - s.version);
      ensure_slot(s, slot);
      const std::int64_t tau = m.clock - m.version;  // the update for clock c is version c
      if (observer_) observer_->on_gradient(g);
      if (m.gradient) {
        math_->accumulate(s.index, m.clock, static_cast<std::size_t>(m.worker), m.gradient, tau);
        s.loss_sum[slot] += m.gradient->loss;
        s.samples[slot] += m.gradient->samples;
        note_loss(m.gradient);
      }
      ++s.collected[slot];
      s.staleness_sum[slot] += static_cast<double>(tau);
      s.staleness_max[slot] = std::max(s.staleness_max[slot], tau);
      record_staleness(tau);
      if (slot == 0 && s.collected.front() == n && !s.applying) begin_apply(s);
      return;
    }
  }
}

// ---- applying updates ----------------------------------------------------------------------

void PsEngine::ensure_slot(ShardState& s, std::size_t slot) {
  while (s.collected.size() <= slot) {
    s.collected.push_back(0);
    s.staleness_sum.push_back(0);
    s.staleness_max.push_back(0);
    s.loss_sum.push_back(0);
    s.samples.push_back(0);
  }
}

// A training loss that is NaN or infinite ends the run: the model diverged.
void PsEngine::note_loss(const GradientRef& g) {
  if (std::isfinite(g->loss) || diverged_at_) return;
  diverged_at_ = totals_.updates + 1;
  finished_ = true;
}

void PsEngine::begin_apply(ShardState& s) {
  s.applying = true;
  s.apply_started = sim_.now();
  if (config_.mode == PsConfig::Mode::Async) {
    s.applying_now = std::move(s.async_queue.front());
    s.async_queue.pop_front();
  }
  // Compression work of the update: decoding its pushes, encoding the pulls it answers.
  const bool async = config_.mode == PsConfig::Mode::Async;
  const double gradients = async ? 1.0 : static_cast<double>(s.collected.front());
  const double answers = async ? 1.0 : static_cast<double>(workers_.size());
  double seconds = (config_.push_codec_seconds * gradients + config_.pull_codec_seconds * answers) *
                   static_cast<double>(s.params);
  if (config_.apply_bandwidth) seconds += s.bytes / *config_.apply_bandwidth;
  const TimeNs duration = seconds_to_ns(seconds);
  if (duration == 0) {
    finish_apply(s);
    return;
  }
  ShardState* p = &s;
  sim_.schedule_after(duration, [p] { p->engine->finish_apply(*p); });
}

void PsEngine::finish_apply(ShardState& s) {
  s.applying = false;
  if (observer_ && sim_.now() > s.apply_started)
    observer_->on_apply(static_cast<std::int64_t>(s.index), s.apply_started, sim_.now());
  UpdateRecord u;
  u.time = sim_.now();
  u.shard = static_cast<std::int64_t>(s.index);
  u.train_loss = std::numeric_limits<double>::quiet_NaN();
  std::int64_t samples = 0;
  if (config_.mode == PsConfig::Mode::Async) {
    auto& a = s.applying_now;
    const std::int64_t tau = s.version - a.used;
    record_staleness(tau);
    if (a.gradient) {
      note_loss(a.gradient);
      s.current = math_->apply_one(s.index, a.gradient, tau, a.computed_on);
      u.train_loss = a.gradient->loss;
      samples = a.gradient->samples;
    }
    ++s.version;
    u.worker = a.worker;
    u.gradients = 1;
    u.staleness_mean = static_cast<double>(tau);
    u.staleness_max = tau;
    a.gradient.reset();
    a.computed_on.reset();
  } else {
    u.gradients = s.collected.front();
    u.staleness_mean = s.staleness_sum.front() / static_cast<double>(u.gradients);
    u.staleness_max = s.staleness_max.front();
    if (math_) {
      s.current = math_->apply_average(s.index, s.version, u.gradients);
      u.train_loss = s.loss_sum.front() / static_cast<double>(u.gradients);
      samples = s.samples.front();
    }
    s.collected.pop_front();
    s.staleness_sum.pop_front();
    s.staleness_max.pop_front();
    s.loss_sum.pop_front();
    s.samples.pop_front();
    ++s.version;
  }
  if (s.index == 0) totals_.samples += samples;
  if (config_.stop_samples && totals_.samples >= *config_.stop_samples) finished_ = true;
  u.version = s.version;
  ++totals_.updates;
  totals_.gradients_applied += u.gradients;
  if (observer_) observer_->on_update(u);
  if (config_.stop_updates && s.version == *config_.stop_updates && ++shards_at_stop_ == static_cast<std::int64_t>(shards_.size()))
    finished_ = true;

  if (config_.mode == PsConfig::Mode::Async) {
    send_pulls(s, {static_cast<std::size_t>(s.applying_now.worker)});
    if (!s.async_queue.empty()) begin_apply(s);
    return;
  }
  clock_applied(s.version - 1, s.dropped_this_round);
  s.dropped_this_round = 0;
  send_pulls(s, all_workers_);
  // SSP: the next clock may already be complete (fast workers ran ahead).
  if (config_.mode == PsConfig::Mode::Ssp && !s.collected.empty() &&
      s.collected.front() == static_cast<std::int64_t>(workers_.size()))
    begin_apply(s);
}

void PsEngine::record_staleness(std::int64_t tau) {
  auto& h = totals_.staleness_histogram;
  if (h.size() <= static_cast<std::size_t>(tau)) h.resize(static_cast<std::size_t>(tau) + 1, 0);
  ++h[static_cast<std::size_t>(tau)];
}

void PsEngine::clock_applied(std::int64_t clock, std::int64_t dropped) {
  const auto slot = static_cast<std::size_t>(clock - first_open_clock_);
  while (shards_done_per_clock_.size() <= slot) shards_done_per_clock_.push_back(0), dropped_per_clock_.push_back(0);
  ++shards_done_per_clock_[slot];
  dropped_per_clock_[slot] += dropped;
  while (!shards_done_per_clock_.empty() &&
         shards_done_per_clock_.front() == static_cast<std::int64_t>(shards_.size())) {
    RoundRecord r;
    r.round = first_open_clock_;
    r.end = sim_.now();
    r.duration = r.end - last_round_end_;
    r.dropped = dropped_per_clock_.front();
    last_round_end_ = r.end;
    ++first_open_clock_;
    ++totals_.rounds;
    shards_done_per_clock_.pop_front();
    dropped_per_clock_.pop_front();
    if (observer_) observer_->on_round(r);
  }
}

}  // namespace pssim::ps
