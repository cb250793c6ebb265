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
#include "sim/training/slices.hpp"

namespace pssim::protocol {

/// A worker's counters. The time split gives every instant to the first true of
/// computing, pushing (its gradients in flight), pulling (parameters in flight to it),
/// blocked (waiting for others).
struct WorkerStats {
  std::int64_t iterations = 0;  ///< computations finished
  TimeNs computing = 0, pushing = 0, pulling = 0, blocked = 0;
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
  double push_bytes = 0;               ///< bytes of gradients sent (pushes; reduce steps of collectives)
  double pull_bytes = 0;               ///< bytes of parameters sent (pulls, version 0 included; gather steps)
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
};

}  // namespace pssim::protocol
