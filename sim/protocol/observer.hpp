// What a training protocol reports as it goes: applied updates, completed rounds, worker
// states. Output sinks (metrics.csv, rounds.csv, traces) implement Observer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/collective/algorithm.hpp"
#include "sim/core/time.hpp"

namespace pssim::protocol {

/// A part of the parameters was updated: a shard applied one gradient (async) or an
/// average of several (sync, SSP), or an all-reduced part's average was applied.
struct UpdateRecord {
  TimeNs time = 0;
  std::int64_t shard = 0;     ///< the part: a server shard, or the all-reduced part
  std::int64_t version = 0;   ///< the part's version after the update (1, 2, ...)
  std::int64_t worker = -1;   ///< the gradient's worker (async); -1 for an average
  std::int64_t gradients = 0;
  double staleness_mean = 0;  ///< updates applied since each gradient's parameters were sent
  std::int64_t staleness_max = 0;
  double train_loss = 0;      ///< mean training loss of the gradients (NaN without math)
};

/// Sync, SSP and all-reduce: clock `round` has been applied by every part (an all-reduced
/// part once every worker holds the result).
struct RoundRecord {
  std::int64_t round = 0;
  TimeNs end = 0;
  TimeNs duration = 0;           ///< since the previous round ended (or the start)
  std::int64_t dropped = 0;      ///< late gradients of this round discarded (backup workers)
};

/// A gradient slice reached its shard.
struct GradientRecord {
  TimeNs time = 0;
  std::int64_t worker = 0;
  std::int64_t shard = 0;
  std::int64_t iteration = 0;  ///< the worker's iteration (clock) that computed it
  std::int64_t computed_on = 0;  ///< version of the shard's slice it was computed on
  bool accepted = true;        ///< false: dropped (late in a sync round with backup workers)
};

/// An evaluation of the servers' current parameters on the test data.
struct EvalRecord {
  TimeNs time = 0;
  std::int64_t updates = 0;   ///< part updates applied so far
  std::int64_t steps = 0;     ///< model updates so far: updates every part has applied
  double epochs = 0;          ///< training samples applied (part 0) / training items
  double test_loss = 0;
  double test_accuracy = 0;
  double perplexity = 0;      ///< exp(test_loss); reported for language models
  bool language_model = false;
  double bytes_sent = 0;      ///< bytes that have crossed links so far (net::FlowNetwork::bytes_moved)
  double push_bytes = 0;      ///< of which gradients (pushes to shards, reduce steps)
};

/// What a worker is doing; the time split gives each instant to the first that applies
/// (down: its host has failed, until it recovers).
enum class WorkerState { Computing, Pushing, Pulling, Blocked, Down };

/// Something that happened to the cluster (dynamics): an injected event (a crash, a link
/// change) or what the protocol did about it (a failure detected, a ring rebuilt,
/// a state restored). One row of events.csv.
struct EventRecord {
  TimeNs time = 0;
  std::string kind;    ///< worker_crash, server_recover, link, failure_detected, shard_lost ...
  std::string target;  ///< worker-3, server-0, a link, or empty
  double value = 0;    ///< the kind's number (bandwidth, factor, lost updates ...), or NaN
  std::string note;    ///< what it did, in words (may be empty)
};

/// A step of a collective (all-reduce) at one worker: which half of the algorithm it
/// belongs to (reduce: combining gradients; gather: spreading the result).
using CollectivePhase = collective::Phase;

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_update(const UpdateRecord&) {}
  virtual void on_round(const RoundRecord&) {}
  virtual void on_gradient(const GradientRecord&) {}
  virtual void on_eval(const EvalRecord&) {}
  virtual void on_event(const EventRecord&) {}
  /// Worker `worker` starts its iteration `iteration` (0, 1, ...).
  virtual void on_compute_start(std::int64_t /*worker*/, std::int64_t /*iteration*/) {}
  /// Shard `shard` spent [start, end) applying an update (only when applying takes time).
  virtual void on_apply(std::int64_t /*shard*/, TimeNs /*start*/, TimeNs /*end*/) {}
  /// Worker `worker` was in `state` from `start` to `end` (end > start).
  virtual void on_worker_state(std::int64_t /*worker*/, WorkerState, TimeNs /*start*/, TimeNs /*end*/) {}
  /// Worker `worker` spent [start, end) in step `step` of round `round` of a collective.
  virtual void on_collective_step(std::int64_t /*worker*/, std::int64_t /*round*/, std::int64_t /*step*/,
                                  CollectivePhase, TimeNs /*start*/, TimeNs /*end*/) {}
  /// False if on_worker_state() and on_collective_step() do nothing here: a forwarder then
  /// skips them (around an all-reduce ring they come once or twice per message).
  virtual bool wants_spans() const { return true; }
};

/// Forwards every report to several observers, in order.
class ObserverList : public Observer {
 public:
  explicit ObserverList(std::vector<Observer*> targets) : targets_(std::move(targets)) {}
  void on_update(const UpdateRecord& u) override { for (auto* t : targets_) t->on_update(u); }
  void on_round(const RoundRecord& r) override { for (auto* t : targets_) t->on_round(r); }
  void on_gradient(const GradientRecord& g) override { for (auto* t : targets_) t->on_gradient(g); }
  void on_eval(const EvalRecord& e) override { for (auto* t : targets_) t->on_eval(e); }
  void on_event(const EventRecord& e) override { for (auto* t : targets_) t->on_event(e); }
  void on_compute_start(std::int64_t w, std::int64_t i) override { for (auto* t : targets_) t->on_compute_start(w, i); }
  void on_apply(std::int64_t s, TimeNs a, TimeNs b) override { for (auto* t : targets_) t->on_apply(s, a, b); }
  void on_worker_state(std::int64_t w, WorkerState s, TimeNs a, TimeNs b) override {
    for (auto* t : targets_) t->on_worker_state(w, s, a, b);
  }
  void on_collective_step(std::int64_t w, std::int64_t r, std::int64_t k, CollectivePhase p, TimeNs a,
                          TimeNs b) override {
    for (auto* t : targets_) t->on_collective_step(w, r, k, p, a, b);
  }
  bool wants_spans() const override {
    for (auto* t : targets_)
      if (t->wants_spans()) return true;
    return false;
  }

 private:
  std::vector<Observer*> targets_;
};

}  // namespace pssim::protocol
