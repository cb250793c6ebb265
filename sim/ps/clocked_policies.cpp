#include "sim/ps/clocked_policies.hpp"

#include <algorithm>
#include <stdexcept>

namespace pssim::ps {

// ---- what sync and SSP share -------------------------------------------------------------

void ClockedPolicy::attached(std::size_t shards, std::size_t) { clocks_.assign(shards, {}); }

void ClockedPolicy::ensure_slot(Clocks& c, std::size_t slot) {
  while (c.collected.size() <= slot) {
    c.collected.push_back(0);
    c.staleness_sum.push_back(0);
    c.staleness_max.push_back(0);
    c.loss_sum.push_back(0);
    c.samples.push_back(0);
  }
}

void ClockedPolicy::collect(Shard& s, const Message& m, std::size_t slot, std::int64_t clock, std::int64_t tau) {
  Clocks& c = clocks(s);
  if (m.gradient) {
    store()->accumulate(s.index, clock, static_cast<std::size_t>(m.worker), m.gradient, tau);
    c.loss_sum[slot] += m.gradient->loss;
    c.samples[slot] += m.gradient->samples;
    note_loss(m.gradient);
  }
}

void ClockedPolicy::begin_update(Shard& s, double& gradients, double& answers) {
  gradients = static_cast<double>(clocks(s).collected.front());
  answers = static_cast<double>(workers());
}

std::int64_t ClockedPolicy::apply(Shard& s, protocol::UpdateRecord& u) {
  Clocks& c = clocks(s);
  std::int64_t samples = 0;
  u.gradients = c.collected.front();
  u.staleness_mean = c.staleness_sum.front() / static_cast<double>(u.gradients);
  u.staleness_max = c.staleness_max.front();
  if (store()) {
    store()->apply_average(s.index, version(s), u.gradients);
    u.train_loss = c.loss_sum.front() / static_cast<double>(u.gradients);
    samples = c.samples.front();
  }
  c.collected.pop_front();
  c.staleness_sum.pop_front();
  c.staleness_max.pop_front();
  c.loss_sum.pop_front();
  c.samples.pop_front();
  next_version(s);
  return samples;
}

void ClockedPolicy::after_update(Shard& s) {
  Clocks& c = clocks(s);
  clock_applied(s, version(s) - 1, c.dropped_this_round);
  c.dropped_this_round = 0;
  send_pulls(s, live_workers());
  // The next clock may already be complete (fast workers ran ahead).
  if (runs_ahead() && !c.collected.empty() && c.collected.front() >= needed()) begin_apply(s);
}

// Fewer members: the clock being collected may be complete now.
void ClockedPolicy::members_changed(Shard& s) {
  Clocks& c = clocks(s);
  if (!s.applying && !c.collected.empty() && c.collected.front() > 0 && c.collected.front() >= needed())
    begin_apply(s);
}

void ClockedPolicy::restored(Shard& s) {
  Clocks& c = clocks(s);
  c = Clocks{};
  if (store()) store()->discard_pending(s.index);
}

// ---- sync ----------------------------------------------------------------------------------

void SyncPolicy::attached(std::size_t shards, std::size_t workers) {
  if (backup_workers_ < 0 || backup_workers_ >= static_cast<std::int64_t>(workers))
    throw std::invalid_argument("backup workers must be fewer than workers");
  ClockedPolicy::attached(shards, workers);
}

// Newer than what the last computation used.
bool SyncPolicy::counts(const Worker& w, std::size_t part, std::int64_t before, std::int64_t version) const {
  return before <= w.parts.used[part] && version > w.parts.used[part];
}

std::int64_t SyncPolicy::needed() const { return std::max<std::int64_t>(1, members() - backup_workers_); }

void SyncPolicy::on_push(Shard& s, const Message& m) {
  Clocks& c = clocks(s);
  const std::int64_t needed = this->needed();
  ensure_slot(c, 0);
  protocol::GradientRecord g{now(), m.worker, m.shard, m.clock, m.version, true};
  g.accepted = m.version == version(s) && !s.applying && c.collected.front() < needed;
  report(g);
  if (!g.accepted) {
    ++c.dropped_this_round;  // late: the round went ahead without it
    count_dropped(s);
    return;
  }
  ++c.collected.front();
  record_staleness(0);
  collect(s, m, 0, version(s), 0);
  if (c.collected.front() == needed) begin_apply(s);
}

// ---- SSP -----------------------------------------------------------------------------------

// Recent enough for the next clock.
bool SspPolicy::counts(const Worker& w, std::size_t, std::int64_t before, std::int64_t version) const {
  const std::int64_t t = threshold(w);
  return before < t && version >= t;
}

std::int64_t SspPolicy::ready_after_start(const Worker& w) const {
  const std::int64_t t = threshold(w);
  return std::count_if(w.parts.held.begin(), w.parts.held.end(), [&](std::int64_t v) { return v >= t; });
}

void SspPolicy::on_push(Shard& s, const Message& m) {
  Clocks& c = clocks(s);
  if (m.clock < version(s)) {  // a clock applied without it (it was down then): too late
    report({now(), m.worker, m.shard, m.clock, m.version, false});
    ++c.dropped_this_round;
    count_dropped(s);
    return;
  }
  const auto slot = static_cast<std::size_t>(m.clock - version(s));
  ensure_slot(c, slot);
  const std::int64_t tau = m.clock - m.version;  // the update for clock c is version c
  report({now(), m.worker, m.shard, m.clock, m.version, true});
  collect(s, m, slot, m.clock, tau);
  ++c.collected[slot];
  c.staleness_sum[slot] += static_cast<double>(tau);
  c.staleness_max[slot] = std::max(c.staleness_max[slot], tau);
  record_staleness(tau);
  if (slot == 0 && c.collected.front() >= needed() && !s.applying) begin_apply(s);
}

}  // namespace pssim::ps
