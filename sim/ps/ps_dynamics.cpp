// PsProtocol under failures: workers and server hosts that go down and come back,
// checkpoints, and the all-reduce ring rebuilt over the live workers. The semantics are
// stated in ps_protocol.hpp; this file holds what only dynamics need.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/ps/ps_protocol.hpp"
#include "sim/ps/scheme_policy.hpp"

namespace pssim::ps {

namespace {
constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
}

void PsProtocol::report_event(const char* kind, std::string target, double value, std::string note) {
  if (!observer_) return;
  observer_->on_event({sim_.now(), kind, std::move(target), value, std::move(note)});
}

std::string PsProtocol::worker_name(std::size_t w) const { return fmt::format("worker-{}", w); }

void PsProtocol::abandon_compute(Worker& w) {
  if (!activity(w).computing) return;
  const TimeNs ran = runner_.cancel(w.index);
  if (math_.gradients) math_.gradients->cancel(w.ticket);
  w.used_slices.clear();
  activity(w).computing = false;
  time_.stats(w.index).lost_compute += ran;
  ++failures_.abandoned;
  update_time(w);
}

// ---- workers ---------------------------------------------------------------------------------

void PsProtocol::worker_down(std::size_t index) {
  Worker& w = workers_.at(index);
  if (!w.up) return;
  w.up = false;
  ++w.crashes;
  ++time_.stats(index).crashes;
  abandon_compute(w);
  transport_.cancel_host(w.host);  // its pushes and the slices on their way to it (on_cancelled)
  activity(w).down = true;
  update_time(w);
  std::erase(live_workers_, index);
  w.down_since = sim_.now();
  if (config_.failure_timeout == 0) {
    detect_failure(w);
    return;
  }
  Worker* p = &w;
  sim_.schedule_after(config_.failure_timeout, [p] { p->protocol->detect_failure(*p); });
}

// After the detection delay: barriers stop waiting for a worker down for that long (an
// earlier crash's detection finds it back, or down since later, and does nothing).
void PsProtocol::detect_failure(Worker& w) {
  const std::size_t index = w.index;
  if (w.up || !w.member || sim_.now() < w.down_since + config_.failure_timeout) return;
  w.member = false;
  // A ring rebuilt since the crash (another worker came back) has left it out already.
  const bool in_ring = all_reduce_ && all_reduce_->rank_of[index] >= 0;
  const char* note = in_ring                        ? "the ring is rebuilt without it"
                     : all_reduce_                  ? "the ring was rebuilt without it already"
                     : policy_->waits_for_members() ? "barriers stop waiting for it"
                                                    : "nothing waited for it (async)";
  report_event("failure_detected", worker_name(index), kNoValue, note);
  update_members();
  if (in_ring) rebuild_ring();
}

void PsProtocol::update_members() {
  members_ = std::count_if(workers_.begin(), workers_.end(), [](const Worker& w) { return w.member; });
  for (auto& s : shards_)
    if (s.up) policy_->members_changed(s);
}

void PsProtocol::worker_up(std::size_t index) {
  Worker& w = workers_.at(index);
  if (w.up) return;
  w.up = true;
  w.member = true;
  activity(w).down = false;
  update_time(w);
  live_workers_.insert(std::lower_bound(live_workers_.begin(), live_workers_.end(), index), index);
  members_ = std::count_if(workers_.begin(), workers_.end(), [](const Worker& x) { return x.member; });
  // It holds nothing: what it receives next counts; it joins at the oldest open clock.
  std::fill(w.held.begin(), w.held.end(), -1);
  std::fill(w.used.begin(), w.used.end(), -1);
  std::fill(w.held_incarnation.begin(), w.held_incarnation.end(), 0);
  std::fill(w.used_incarnation.begin(), w.used_incarnation.end(), 0);
  if (math_.store) std::fill(w.held_slices.begin(), w.held_slices.end(), nullptr);
  w.ready = 0;
  w.iteration = least_updates();
  for (auto& s : shards_)
    if (s.up) send_slice(s, index, math_.store ? math_.store->current(s.index) : nullptr, s.bytes);
  // The ring takes it in and hands it a copy of the replica (from a peer; the copy's
  // transfer is not timed); it computes for the round the new ring runs first.
  if (all_reduce_) rebuild_ring();
}

// ---- the all-reduce ring ------------------------------------------------------------------

// The ring is rebuilt over the workers up now (after a failure is detected, or when a
// worker rejoins): a round some rank already holds the result of is complete (its update
// was applied); the next round (`open`) runs again in the new ring, with the gradients of
// the workers of the new ring that had handed theirs in and still hold the version they
// computed on. A gradient handed in by a worker that left, or that crashed since (its
// memory went with it, whether or not it is back), is discarded. Every worker of the
// new ring not holding version `open` (one that is back, or waited for a result the
// rebuild completed) is given a copy of the replica and computes for round `open`.
void PsProtocol::rebuild_ring() {
  AllReduce& a = *all_reduce_;
  const std::size_t p = a.part;
  if (a.collective) a.collective->abort();  // its messages are reported with the old ranks
  std::vector<std::size_t> behind;  // live workers to give a finished round's result
  while (!a.rounds.empty() && a.rounds.front().done > 0) {
    AllReduce::Round& r = a.rounds.front();
    const std::int64_t round = a.first_open;
    protocol::UpdateRecord u;
    u.time = sim_.now();
    u.shard = static_cast<std::int64_t>(p);
    u.gradients = static_cast<std::int64_t>(a.ranks.size());
    u.train_loss = math_.store ? r.loss / static_cast<double>(u.gradients) : std::numeric_limits<double>::quiet_NaN();
    ++versions_[p];
    updated(p, u, r.samples);
    clock_applied(p, round, 0);
    a.rounds.pop_front();
    ++a.first_open;
  }
  for (std::size_t w : live_workers_)
    if (workers_[w].held[p] < a.first_open) behind.push_back(w);

  const std::int64_t open = a.first_open;
  a.ranks = live_workers_;
  std::fill(a.rank_of.begin(), a.rank_of.end(), -1);
  for (std::size_t r = 0; r < a.ranks.size(); ++r) a.rank_of[a.ranks[r]] = static_cast<std::int64_t>(r);
  a.round_offset = open;
  for (std::size_t w = 0; w < workers_.size(); ++w)
    if (a.contributed[w] == open && (a.rank_of[w] < 0 || workers_[w].held[p] < open)) {
      if (math_.store) math_.store->discard(p, open, w);
      a.contributed[w] = -1;
      ++failures_.lost_gradients;
    }
  a.collective.reset();
  if (!a.ranks.empty()) {
    std::vector<net::NodeId> hosts;
    for (std::size_t w : a.ranks) hosts.push_back(workers_[w].host);
    const std::size_t n = a.ranks.size();
    // Racks of unequal size cannot run the hierarchical algorithm: a plain ring then.
    const bool hierarchical = a.spec.algorithm == collective::AlgorithmKind::Hierarchical;
    const auto kind = hierarchical && n % a.spec.racks != 0 ? collective::AlgorithmKind::Ring : a.spec.algorithm;
    a.collective = std::make_unique<collective::Collective>(
        sim_, transport_, hosts, collective::make_algorithm(kind, n, kind == a.spec.algorithm ? a.spec.racks : 1),
        a.elements, a.spec.chunk_bytes, static_cast<collective::Collective::Listener&>(*this));
    report_event("ring_rebuilt", "", static_cast<double>(n),
                 fmt::format("{} worker{} from round {}", n, n == 1 ? "" : "s", open));
    for (std::size_t w : a.ranks)
      if (a.contributed[w] == open) a.collective->contribute(static_cast<std::size_t>(a.rank_of[w]));
  }
  const training::SliceRef current = math_.store ? math_.store->current(p) : nullptr;
  for (std::size_t w : behind) {
    workers_[w].iteration = open;  // its next gradient is for round `open`
    receive_part(workers_[w], p, open, current);
  }
}

// ---- servers and checkpoints ------------------------------------------------------------------

void PsProtocol::server_down(net::NodeId host) {
  bool any = false;
  for (auto& s : shards_) {
    if (s.host != host || !s.up) continue;
    any = true;
    s.up = false;
    if (s.apply_event) sim_.cancel(s.apply_event);
    if (s.checkpoint_event) sim_.cancel(s.checkpoint_event);
    s.apply_event = s.checkpoint_event = {};
    s.applying = s.checkpointing = s.apply_waiting = s.checkpoint_due = false;
    s.writing_slice.reset();
    const std::int64_t lost = versions_[s.index] - s.checkpoint_version;
    failures_.lost_updates += lost;
    policy_->restored(s);  // what it collected is lost with it
    report_event("shard_lost", fmt::format("shard-{}", s.index), static_cast<double>(lost),
                 fmt::format("{} updates since its checkpoint at version {}", lost, s.checkpoint_version));
  }
  if (any) transport_.cancel_host(host);
}

void PsProtocol::server_up(net::NodeId host) {
  for (auto& s : shards_) {
    if (s.host != host || s.up || s.checkpointing) continue;
    // Reading the checkpoint back takes the shard's time, as writing it did.
    s.checkpointing = true;
    const TimeNs read = config_.checkpoint_bandwidth > 0 ? seconds_to_ns(s.bytes / config_.checkpoint_bandwidth) : 0;
    Shard* p = &s;
    s.checkpoint_event = sim_.schedule_after(read, [p] { p->protocol->restore_shard(*p); });
  }
}

void PsProtocol::restore_shard(Shard& s) {
  s.checkpoint_event = {};
  s.checkpointing = false;
  s.apply_waiting = false;
  const std::size_t p = s.index;
  const auto& stop = config_.stop.updates;
  if (stop && versions_[p] >= *stop && s.checkpoint_version < *stop) --parts_at_stop_;
  versions_[p] = s.checkpoint_version;
  if (math_.store) math_.store->restore(p, s.checkpoint_slice, s.checkpoint_version);
  ++s.incarnation;  // versions of the lost state are not this shard's any more
  s.up = true;
  report_event("shard_restored", fmt::format("shard-{}", p), static_cast<double>(s.checkpoint_version),
               fmt::format("back at version {}", s.checkpoint_version));
  const training::SliceRef slice = math_.store ? math_.store->current(p) : nullptr;
  for (std::size_t w : std::vector<std::size_t>(live_workers_)) {
    forget_part(workers_[w], p);
    send_slice(s, w, slice, s.bytes);
  }
}

void PsProtocol::forget_part(Worker& w, std::size_t p) {
  if (w.held[p] > w.used[p]) --w.ready;  // it counted toward the next computation
  w.held[p] = w.used[p] = -1;
  if (math_.store) w.held_slices[p] = nullptr;
}

void PsProtocol::schedule_checkpoint() {
  PsProtocol* self = this;
  sim_.schedule_after(*config_.checkpoint_every, [self] {
    for (auto& s : self->shards_) {
      if (!s.up || s.checkpointing) continue;
      if (s.applying) s.checkpoint_due = true;  // after the update under way
      else self->begin_checkpoint(s);
    }
    self->schedule_checkpoint();
  });
}

void PsProtocol::begin_checkpoint(Shard& s) {
  s.checkpoint_due = false;
  s.checkpointing = true;
  s.writing_version = versions_[s.index];
  s.writing_slice = math_.store ? math_.store->current(s.index) : nullptr;
  const TimeNs write = config_.checkpoint_bandwidth > 0 ? seconds_to_ns(s.bytes / config_.checkpoint_bandwidth) : 0;
  if (write == 0) {
    finish_checkpoint(s);
    return;
  }
  Shard* p = &s;
  s.checkpoint_event = sim_.schedule_after(write, [p] { p->protocol->finish_checkpoint(*p); });
}

void PsProtocol::finish_checkpoint(Shard& s) {
  s.checkpoint_event = {};
  s.checkpointing = false;
  s.checkpoint_version = s.writing_version;
  s.checkpoint_slice = std::move(s.writing_slice);
  ++failures_.checkpoints;
  if (s.apply_waiting) {
    s.apply_waiting = false;
    begin_apply(s);
  }
}

}  // namespace pssim::ps
