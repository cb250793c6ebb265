// SchemePolicy: where the PS schemes differ, and only that.
//
//   worker side  when an arriving slice makes a worker ready for its next computation;
//                what it holds once a computation has started;
//   shard side   what an arriving push does (queued, or collected for a clock); what an
//                update consists of; whom the shard answers and what comes next.
// PsProtocol (ps_protocol.hpp) holds everything else. Implementations: clocked_policies.hpp
// (sync with backup workers, and SSP: updates by clock), async_policy.hpp.
//
// A policy sees the engine through PolicyEngine only: the shared state types
// (ps_state.hpp), the run's counts (ledger.hpp) and the two actions a shard may take.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/ps/ledger.hpp"
#include "sim/ps/ps_state.hpp"
#include "sim/training/parameter_store.hpp"

namespace pssim::ps {

/// What a policy may ask of the engine that owns it (PsProtocol implements it).
class PolicyEngine {
 public:
  virtual TimeNs now() const = 0;
  virtual std::size_t workers() const = 0;
  /// The workers whose host is up, in order (all of them without failures).
  virtual const std::vector<std::size_t>& live_workers() const = 0;
  /// Workers counted in barriers: up, or down for less than the failure timeout.
  virtual std::int64_t members() const = 0;
  /// The math, or null (timing only).
  virtual training::ParameterStore* store() const = 0;
  virtual Ledger& ledger() = 0;
  /// Reports a gradient's arrival to the observer, if any.
  virtual void report(const protocol::GradientRecord& g) = 0;
  /// Shard s starts an update (after its checkpoint, if it is writing one): the policy's
  /// begin_update() now, apply() and after_update() when it ends.
  virtual void begin_apply(Shard& s) = 0;
  /// Shard s sends its current version to each of `workers` (those up).
  virtual void send_pulls(Shard& s, const std::vector<std::size_t>& workers) = 0;

 protected:
  ~PolicyEngine() = default;
};

class SchemePolicy {
 public:
  virtual ~SchemePolicy() = default;

  /// Called once by the engine that owns the policy, before anything else.
  void attach(PolicyEngine& engine, std::size_t shards) {
    engine_ = &engine;
    ledger_ = &engine.ledger();
    store_ = engine.store();
    attached(shards, engine.workers());
  }

  // ---- worker side
  /// A slice of part `part` at `version` reached worker w, which held `before`: does it
  /// count toward w's next computation?
  virtual bool counts(const Worker& w, std::size_t part, std::int64_t before, std::int64_t version) const = 0;
  /// Parts that already allow w's next computation, right after one started.
  virtual std::int64_t ready_after_start(const Worker& w) const = 0;
  /// True when a worker may compute again on the slices it holds (SSP): it keeps them.
  virtual bool keeps_slices() const { return false; }

  // ---- shard side
  /// A push reached shard s.
  virtual void on_push(Shard& s, const Message& m) = 0;
  /// The update shard s starts now (it is not applying): how many gradients it decodes and
  /// how many answers it will encode (compression costs).
  virtual void begin_update(Shard& s, double& gradients, double& answers) = 0;
  /// Applies the update begun last (math), moves the shard to its next version and fills
  /// the record's gradients, staleness, worker and train_loss. Returns the samples the
  /// update covered (math; 0 without).
  virtual std::int64_t apply(Shard& s, protocol::UpdateRecord& u) = 0;
  /// After an update has been recorded: answer workers, start what is due.
  virtual void after_update(Shard& s) = 0;

  // ---- dynamics
  /// True when updates wait for the members' gradients (a barrier): a detected failure
  /// changes what they wait for. Default: nothing waits for members.
  virtual bool waits_for_members() const { return false; }
  /// The barrier's membership changed (a failure detected, a worker back): shard s may
  /// now have what its update needs.
  virtual void members_changed(Shard& /*s*/) {}
  /// A push reached shard s computed on a state it lost (a crash since): it is dropped.
  /// Default: nothing more (the shard answers every worker after its updates).
  virtual void on_lost_push(Shard& /*s*/, const Message& /*m*/) {}
  /// Shard s went back to its checkpoint: what it collected for later clocks is void.
  virtual void restored(Shard& s) = 0;

 protected:
  /// Per-shard state is sized here.
  virtual void attached(std::size_t shards, std::size_t workers) = 0;

  // What policies may do to the engine.
  TimeNs now() const { return engine_->now(); }
  std::size_t workers() const { return engine_->workers(); }
  std::int64_t version(const Shard& s) const { return ledger_->version(s.index); }
  void next_version(const Shard& s) { ledger_->next_version(s.index); }
  training::ParameterStore* store() const { return store_; }
  /// The workers whose host is up (all of them without failures): whom a shard answers.
  const std::vector<std::size_t>& live_workers() const { return engine_->live_workers(); }
  /// Workers counted in barriers: up, or down for less than the failure timeout.
  std::int64_t members() const { return engine_->members(); }
  void report(const protocol::GradientRecord& g) const { engine_->report(g); }
  void record_staleness(std::int64_t tau) { ledger_->record_staleness(tau); }
  void note_loss(const training::GradientRef& g) { ledger_->note_loss(g); }
  void count_dropped(const Shard& s) { ledger_->count_dropped(s.index); }
  void begin_apply(Shard& s) { engine_->begin_apply(s); }
  void send_pulls(Shard& s, const std::vector<std::size_t>& to) { engine_->send_pulls(s, to); }
  void clock_applied(const Shard& s, std::int64_t clock, std::int64_t dropped) {
    ledger_->clock_applied(s.index, clock, dropped);
  }

 private:
  PolicyEngine* engine_ = nullptr;
  Ledger* ledger_ = nullptr;  // the engine's, kept for the calls made per gradient
  training::ParameterStore* store_ = nullptr;
};

}  // namespace pssim::ps
