// Ledger: what a PS run counts, kept apart from the machinery that moves messages so that
// the engine, its scheme policy and its all-reduced part book updates the same way.
//
//   versions   per part, updates applied so far (a part restored from a checkpoint goes
//              back to the checkpoint's version);
//   updates    each one counted once (totals, the observer's update record, the stop
//              limits: every part at `stop.updates`, or part 0's samples at `stop.samples`);
//   rounds     clock c ends when every part has applied it (a part restored applies clocks
//              again: a clock counts once per part, when the part first applies it);
//   staleness  a histogram over every gradient part applied or collected;
//   divergence a gradient whose training loss is NaN or infinite ends the run;
//   failures   what failures cost (counted by whoever sees the loss).
// The run is finished once a stop limit holds, the loss diverged, or stop() was called.
// Every operation is O(1) amortized, except least_version (O(parts)).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/protocol/training_protocol.hpp"
#include "sim/training/slices.hpp"

namespace pssim::ps {

class Ledger {
 public:
  Ledger(const Simulator& sim, std::size_t parts, protocol::StopLimits stop, protocol::Observer* observer);

  std::size_t parts() const { return versions_.size(); }
  std::int64_t version(std::size_t part) const { return versions_[part]; }
  void next_version(std::size_t part) { ++versions_[part]; }
  /// Updates applied by the part that has applied fewest.
  std::int64_t least_version() const;
  /// Part p went back to `version` (a shard restored from its checkpoint).
  void restore(std::size_t part, std::int64_t version);

  /// Counts an update of part p, whose version has moved already: `samples` (math) go to
  /// part 0's count; fills u.version and reports u to the observer.
  void updated(std::size_t part, protocol::UpdateRecord& u, std::int64_t samples);
  /// Part p applied clock `clock`, `dropped` gradients late: ends the rounds complete now.
  void clock_applied(std::size_t part, std::int64_t clock, std::int64_t dropped);
  void record_staleness(std::int64_t tau);
  /// A gradient of shard s was dropped (late, or computed on a lost state).
  void count_dropped(std::size_t shard) {
    ++totals_.gradients_dropped;
    if (shard == 0) ++totals_.worker_gradients_dropped;
  }
  /// A gradient's training loss: NaN or infinite ends the run (diverged).
  void note_loss(const training::GradientRef& g);

  bool finished() const { return finished_; }
  void stop() { finished_ = true; }
  std::optional<std::int64_t> diverged_at() const { return diverged_at_; }
  const protocol::Totals& totals() const { return totals_; }
  protocol::Totals& totals() { return totals_; }
  const protocol::FailureTotals& failures() const { return failures_; }
  protocol::FailureTotals& failures() { return failures_; }

 private:
  void clock_applied(std::int64_t clock, std::int64_t dropped);

  const Simulator& sim_;
  protocol::StopLimits stop_;
  protocol::Observer* observer_;
  std::vector<std::int64_t> versions_;       // per part
  std::vector<std::int64_t> counted_clock_;  // per part: the last clock it counted toward rounds
  std::deque<std::int64_t> parts_done_per_clock_;  // open clocks: parts that applied clock c
  std::deque<std::int64_t> dropped_per_clock_;
  std::int64_t first_open_clock_ = 0;
  TimeNs last_round_end_ = 0;
  std::int64_t parts_at_stop_ = 0;  // parts at stop.updates
  bool finished_ = false;
  std::optional<std::int64_t> diverged_at_;
  protocol::Totals totals_;
  protocol::FailureTotals failures_;
};

}  // namespace pssim::ps
