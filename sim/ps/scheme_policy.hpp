// SchemePolicy: where the PS schemes differ, and only that.
//
//   worker side  when an arriving slice makes a worker ready for its next computation;
//                what it holds once a computation has started;
//   shard side   what an arriving push does (queued, or collected for a clock); what an
//                update consists of; whom the shard answers and what comes next.
// PsProtocol (ps_protocol.hpp) holds everything else. Implementations: sync_policy.hpp
// (sync with backup workers, and SSP: updates by clock), async_policy.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/ps/ps_protocol.hpp"

namespace pssim::ps {

class SchemePolicy {
 public:
  virtual ~SchemePolicy() = default;

  /// Called once by the protocol that owns the policy, before anything else.
  void attach(PsProtocol& protocol) {
    protocol_ = &protocol;
    attached(protocol.shards(), protocol.workers());
  }

  // ---- worker side
  using Worker = PsProtocol::Worker;
  /// A slice of part `part` at `version` reached worker w, which held `before`: does it
  /// count toward w's next computation?
  virtual bool counts(const Worker& w, std::size_t part, std::int64_t before, std::int64_t version) const = 0;
  /// Parts that already allow w's next computation, right after one started.
  virtual std::int64_t ready_after_start(const Worker& w) const = 0;
  /// True when a worker may compute again on the slices it holds (SSP): it keeps them.
  virtual bool keeps_slices() const { return false; }

  // ---- shard side
  using Shard = PsProtocol::Shard;
  using Message = PsProtocol::Message;
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

  // What policies may do to the protocol.
  TimeNs now() const { return protocol_->sim_.now(); }
  std::size_t workers() const { return protocol_->workers(); }
  std::int64_t version(const Shard& s) const { return protocol_->versions_[s.index]; }
  void next_version(const Shard& s) { ++protocol_->versions_[s.index]; }
  training::ParameterStore* store() const { return protocol_->math_.store; }
  /// The workers whose host is up (all of them without failures): whom a shard answers.
  const std::vector<std::size_t>& live_workers() const { return protocol_->live_workers_; }
  /// Workers counted in barriers: up, or down for less than the failure timeout.
  std::int64_t members() const { return protocol_->members_; }
  void report(const protocol::GradientRecord& g) const {
    if (protocol_->observer_) protocol_->observer_->on_gradient(g);
  }
  void record_staleness(std::int64_t tau) { protocol_->record_staleness(tau); }
  void note_loss(const training::GradientRef& g) { protocol_->note_loss(g); }
  void count_dropped(const Shard& s) {
    ++protocol_->totals_.gradients_dropped;
    if (s.index == 0) ++protocol_->totals_.worker_gradients_dropped;
  }
  void begin_apply(Shard& s) { protocol_->begin_apply(s); }
  void send_pulls(Shard& s, const std::vector<std::size_t>& to) { protocol_->send_pulls(s, to); }
  void clock_applied(const Shard& s, std::int64_t clock, std::int64_t dropped) {
    protocol_->clock_applied(s.index, clock, dropped);
  }

 private:
  PsProtocol* protocol_ = nullptr;
};

}  // namespace pssim::ps
