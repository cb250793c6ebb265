// TrainingProtocol: what the experiment, the outputs, the run job and the CLI know of a
// training scheme (parameter server, all-reduce, hybrid ...).
//
// A protocol is built over a Simulator, a Transport and a compute model (and, with real
// math, a GradientSource and a ParameterStore), by the scheme registry
// (sim/schemes/registry.hpp). It schedules its own events; the experiment runs the
// simulator until finished() or another stop condition, then calls finish().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/net/topology.hpp"
#include "sim/training/slices.hpp"

namespace pssim::protocol {

/// A worker's counters. The time split gives every instant to the first true of
/// computing, pushing (its gradients in flight), pulling (parameters in flight to it),
/// blocked (waiting for others).
struct WorkerStats {
  std::int64_t iterations = 0;  ///< computations finished
  TimeNs computing = 0, pushing = 0, pulling = 0, blocked = 0;
  TimeNs down = 0;              ///< its host was down (failures)
  TimeNs lost_compute = 0;      ///< computing whose result was lost (crashed or abandoned)
  std::int64_t crashes = 0;
};

/// What failures cost, over the run (dynamics).
struct FailureTotals {
  std::int64_t lost_updates = 0;    ///< part updates rolled back by server crashes (since the last checkpoint)
  std::int64_t checkpoints = 0;     ///< checkpoints written (per part)
  std::int64_t lost_gradients = 0;  ///< gradient parts lost: cancelled in flight, or computed on a lost state
  std::int64_t abandoned = 0;       ///< computations abandoned (crashes, protocol.abandon_stale)
};

struct Totals {
  std::int64_t updates = 0;            ///< part updates applied (every shard's, every all-reduce's)
  std::int64_t samples = 0;            ///< training samples in part 0's updates (math only)
  std::int64_t gradients_applied = 0;  ///< gradient parts included in updates (every part's)
  std::int64_t gradients_dropped = 0;  ///< gradient parts dropped (every part's)
  /// Workers' gradients included in (dropped from) updates, counted at part 0, which
  /// every gradient reaches: each is counted once, however many parts it is cut into.
  std::int64_t worker_gradients_applied = 0, worker_gradients_dropped = 0;
  std::int64_t rounds = 0;             ///< clocks applied by every part (schemes with rounds)
  std::vector<std::int64_t> staleness_histogram;  ///< [tau] = gradient parts with staleness tau
};

/// When a protocol finishes by itself (conditions decided outside call stop()).
struct StopLimits {
  std::optional<std::int64_t> updates;  ///< once every part has applied this many updates
  std::optional<std::int64_t> samples;  ///< once part 0's updates covered this many samples
};

class TrainingProtocol {
 public:
  virtual ~TrainingProtocol() = default;

  /// Schedules the protocol's first events at the current time.
  virtual void start() = 0;
  /// True once a stop limit holds, the training loss diverged, or stop() was called.
  virtual bool finished() const = 0;
  /// The update (1-based count of updates applied) whose gradient had a NaN or infinite
  /// loss, if one had.
  virtual std::optional<std::int64_t> diverged_at() const = 0;
  /// No new computation starts: for stop conditions decided outside (target accuracy).
  virtual void stop() = 0;
  /// Closes the workers' time accounting at the current time (call once, at the end).
  virtual void finish() = 0;

  virtual const Totals& totals() const = 0;
  virtual std::size_t workers() const = 0;
  virtual const WorkerStats& worker_stats(std::size_t worker) const = 0;
  /// Updates applied by the part that has applied fewest (what a stop on updates counts).
  virtual std::int64_t least_updates() const = 0;
  /// The parameters an evaluation reads now, one slice per part (real math only).
  virtual std::vector<training::SliceRef> current_parameters() const = 0;
  /// Server shards (trace tracks of their applies); 0 for a scheme without servers.
  virtual std::size_t shards() const = 0;
  /// True when the scheme proceeds in rounds that every part completes (rounds.csv).
  virtual bool has_rounds() const = 0;

  // ---- dynamics (sim/dynamics): the cluster changes under the protocol. A failed host's
  // messages (through the transport) and computations are cancelled, never delivered
  // late; the protocol counts only live members from then on.
  /// Worker w's host failed / came back (it pulls the current parameters and goes on).
  virtual void worker_down(std::size_t w) = 0;
  virtual void worker_up(std::size_t w) = 0;
  /// Every shard on server host `host` lost its state since its last checkpoint / the host
  /// is back: its shards read their checkpoints and training goes on from there.
  virtual void server_down(net::NodeId host) = 0;
  virtual void server_up(net::NodeId host) = 0;
  /// Worker w computes at `factor` times its usual speed from now on, the rest of a
  /// computation under way included.
  virtual void set_worker_speed(std::size_t w, double factor) = 0;
  virtual const FailureTotals& failure_totals() const = 0;
  /// True while every worker is down.
  virtual bool no_live_workers() const = 0;
  /// Events the protocol keeps pending for ever, whatever the training does (a periodic
  /// checkpoint timer): the run counts them when it asks whether anything else can move.
  virtual std::size_t timers_pending() const { return 0; }
};

}  // namespace pssim::protocol
