// PsProtocol under failures: workers and server hosts that go down and come back, and
// checkpoints. The semantics are stated in ps_protocol.hpp; this file holds what only
// dynamics need (the all-reduce ring's rebuild is the AllReducer's, all_reducer.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/ps/ps_protocol.hpp"

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
  if (math_.gradients) math_.gradients->cancel(w.compute.ticket);
  w.parts.used_slices.clear();
  activity(w).computing = false;
  time_.stats(w.index).lost_compute += ran;
  ++ledger_.failures().abandoned;
  update_time(w);
}

// ---- workers ---------------------------------------------------------------------------------

void PsProtocol::worker_down(std::size_t index) {
  Worker& w = workers_.at(index);
  if (!w.life.up) return;
  w.life.up = false;
  ++w.life.crashes;
  ++time_.stats(index).crashes;
  abandon_compute(w);
  transport_.cancel_host(w.host);  // its pushes and the slices on their way to it (on_cancelled)
  activity(w).down = true;
  update_time(w);
  std::erase(live_workers_, index);
  w.life.down_since = sim_.now();
  if (config_.failure_timeout == 0) {
    detect_failure(w);
    return;
  }
  Worker* p = &w;
  sim_.schedule_after(config_.failure_timeout, [p] { p->engine->detect_failure(*p); });
}

// After the detection delay: barriers stop waiting for a worker down for that long (an
// earlier crash's detection finds it back, or down since later, and does nothing).
void PsProtocol::detect_failure(Worker& w) {
  const std::size_t index = w.index;
  if (w.life.up || !w.life.member || sim_.now() < w.life.down_since + config_.failure_timeout) return;
  w.life.member = false;
  // A ring rebuilt since the crash (another worker came back) has left it out already.
  const bool in_ring = all_reducer_ && all_reducer_->in_ring(index);
  const char* note = in_ring                        ? "the ring is rebuilt without it"
                     : all_reducer_                 ? "the ring was rebuilt without it already"
                     : policy_->waits_for_members() ? "barriers stop waiting for it"
                                                    : "nothing waited for it (async)";
  report_event("failure_detected", worker_name(index), kNoValue, note);
  update_members();
  if (in_ring) all_reducer_->rebuild();
}

void PsProtocol::update_members() {
  members_ = std::count_if(workers_.begin(), workers_.end(), [](const Worker& w) { return w.life.member; });
  for (auto& s : shards_)
    if (s.up) policy_->members_changed(s);
}

void PsProtocol::worker_up(std::size_t index) {
  Worker& w = workers_.at(index);
  if (w.life.up) return;
  w.life.up = true;
  w.life.member = true;
  activity(w).down = false;
  update_time(w);
  live_workers_.insert(std::lower_bound(live_workers_.begin(), live_workers_.end(), index), index);
  members_ = std::count_if(workers_.begin(), workers_.end(), [](const Worker& x) { return x.life.member; });
  // It holds nothing: what it receives next counts; it joins at the oldest open clock.
  Worker::Parts& held = w.parts;
  std::fill(held.held.begin(), held.held.end(), -1);
  std::fill(held.used.begin(), held.used.end(), -1);
  std::fill(held.held_incarnation.begin(), held.held_incarnation.end(), 0);
  std::fill(held.used_incarnation.begin(), held.used_incarnation.end(), 0);
  if (math_.store) std::fill(held.held_slices.begin(), held.held_slices.end(), nullptr);
  held.ready = 0;
  w.compute.iteration = least_updates();
  for (auto& s : shards_)
    if (s.up) send_slice(s, index, math_.store ? math_.store->current(s.index) : nullptr, s.bytes);
  // The ring takes it in and hands it a copy of the replica (from a peer; the copy's
  // transfer is not timed); it computes for the round the new ring runs first.
  if (all_reducer_) all_reducer_->rebuild();
}

// ---- servers and checkpoints ------------------------------------------------------------------

void PsProtocol::server_down(net::NodeId host) {
  bool any = false;
  for (auto& s : shards_) {
    if (s.host != host || !s.up) continue;
    any = true;
    s.up = false;
    Shard::Checkpoint& c = s.checkpoint;
    if (s.apply_event) sim_.cancel(s.apply_event);
    if (c.event) sim_.cancel(c.event);
    s.apply_event = c.event = {};
    s.applying = c.busy = c.apply_waiting = c.due = false;
    c.writing_slice.reset();
    const std::int64_t lost = ledger_.version(s.index) - c.version;
    ledger_.failures().lost_updates += lost;
    policy_->restored(s);  // what it collected is lost with it
    report_event("shard_lost", fmt::format("shard-{}", s.index), static_cast<double>(lost),
                 fmt::format("{} updates since its checkpoint at version {}", lost, c.version));
  }
  if (any) transport_.cancel_host(host);
}

void PsProtocol::server_up(net::NodeId host) {
  for (auto& s : shards_) {
    if (s.host != host || s.up || s.checkpoint.busy) continue;
    // Reading the checkpoint back takes the shard's time, as writing it did.
    s.checkpoint.busy = true;
    const TimeNs read = config_.checkpoint_bandwidth > 0 ? seconds_to_ns(s.bytes / config_.checkpoint_bandwidth) : 0;
    Shard* p = &s;
    s.checkpoint.event = sim_.schedule_after(read, [p] { p->engine->restore_shard(*p); });
  }
}

void PsProtocol::restore_shard(Shard& s) {
  Shard::Checkpoint& c = s.checkpoint;
  c.event = {};
  c.busy = false;
  c.apply_waiting = false;
  const std::size_t p = s.index;
  ledger_.restore(p, c.version);
  if (math_.store) math_.store->restore(p, c.slice, c.version);
  ++s.incarnation;  // versions of the lost state are not this shard's any more
  s.up = true;
  report_event("shard_restored", fmt::format("shard-{}", p), static_cast<double>(c.version),
               fmt::format("back at version {}", c.version));
  const training::SliceRef slice = math_.store ? math_.store->current(p) : nullptr;
  for (std::size_t w : std::vector<std::size_t>(live_workers_)) {
    forget_part(workers_[w], p);
    send_slice(s, w, slice, s.bytes);
  }
}

void PsProtocol::forget_part(Worker& w, std::size_t p) {
  if (w.parts.held[p] > w.parts.used[p]) --w.parts.ready;  // it counted toward the next computation
  w.parts.held[p] = w.parts.used[p] = -1;
  if (math_.store) w.parts.held_slices[p] = nullptr;
}

void PsProtocol::schedule_checkpoint() {
  PsProtocol* self = this;
  sim_.schedule_after(*config_.checkpoint_every, [self] {
    for (auto& s : self->shards_) {
      if (!s.up || s.checkpoint.busy) continue;
      if (s.applying) s.checkpoint.due = true;  // after the update under way
      else self->begin_checkpoint(s);
    }
    self->schedule_checkpoint();
  });
}

void PsProtocol::begin_checkpoint(Shard& s) {
  Shard::Checkpoint& c = s.checkpoint;
  c.due = false;
  c.busy = true;
  c.writing_version = ledger_.version(s.index);
  c.writing_slice = math_.store ? math_.store->current(s.index) : nullptr;
  const TimeNs write = config_.checkpoint_bandwidth > 0 ? seconds_to_ns(s.bytes / config_.checkpoint_bandwidth) : 0;
  if (write == 0) {
    finish_checkpoint(s);
    return;
  }
  Shard* p = &s;
  c.event = sim_.schedule_after(write, [p] { p->engine->finish_checkpoint(*p); });
}

void PsProtocol::finish_checkpoint(Shard& s) {
  Shard::Checkpoint& c = s.checkpoint;
  c.event = {};
  c.busy = false;
  c.version = c.writing_version;
  c.slice = std::move(c.writing_slice);
  ++ledger_.failures().checkpoints;
  if (c.apply_waiting) {
    c.apply_waiting = false;
    begin_apply(s);
  }
}

}  // namespace pssim::ps
