// Timeline: the scenario's events, `events:` entries then the lines of `events_file:`.
//
// A trace may hold millions of lines, so its lines are kept compact (TraceEvent: 40
// bytes, the target's name once per distinct target, the file's name once) and given back
// as EventSpecs one at a time (entry()); `events:` entries (at most 100,000) are kept as
// written. A Scenario shares its timeline with its copies (DynamicsConfig::timeline).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/scenario/scenario_error.hpp"

namespace pssim::scenario {

/// One entry of the event timeline (`events:` or a line of `events_file:`).
struct EventSpec {
  enum class Kind { WorkerCrash, WorkerRecover, ServerCrash, ServerRecover, Link, WorkerSpeed } kind = Kind::WorkerCrash;
  std::string target;                   ///< worker-<i>, server-<j>; link: a host (its NIC) or "a--b"
  TimeNs at = 0;                        ///< the time (recurring and Poisson: the first possible)
  std::optional<TimeNs> every;          ///< recurring: period
  std::optional<double> rate;           ///< Poisson: events per second
  std::optional<TimeNs> until;          ///< recurring and Poisson: none after this
  std::optional<TimeNs> recover_after;  ///< crashes: the host comes back this long after
  std::optional<double> bandwidth;      ///< link: bytes/s both ways (0: failed)
  std::optional<TimeNs> latency;        ///< link: one-way latency
  double factor = 1.0;                  ///< worker_speed: times the usual speed
  SourceLocation where;                 ///< the file and line it was written at
  bool recurring() const { return every || rate; }
};
const char* to_string(EventSpec::Kind kind);

class Timeline {
 public:
  /// Appends an `events:` entry. They all come before the trace's lines.
  void add_listed(EventSpec e);
  /// Appends a line of the trace `e.where.source` (one trace per timeline; a line has a
  /// time, a kind, a target and the field of its kind). Throws std::invalid_argument for
  /// a recurring or Poisson entry, or a line of a second trace.
  void add_trace_line(const EventSpec& e);
  /// Room for `lines` trace lines (a vector that grows holds up to 3 times its size while
  /// it moves).
  void reserve_trace(std::size_t lines) { trace_.reserve(lines); }

  std::size_t size() const { return listed_.size() + trace_.size(); }
  bool empty() const { return size() == 0; }
  /// Entry i (listed entries first, then the trace's lines), as written.
  EventSpec entry(std::size_t i) const;
  /// Entry i's time, without building it.
  TimeNs at(std::size_t i) const;

 private:
  // What a trace line holds besides its time and kind; `value` and `duration` stand for
  // the field of its kind (see entry()).
  struct TraceEvent {
    TimeNs at = 0;
    double value = 0;       // worker_speed: factor; link: bandwidth (has_value)
    TimeNs duration = 0;    // crash: recover_after; link: latency (has_duration)
    std::uint32_t target = 0;  // index in targets_
    std::int32_t line = 0;
    std::uint8_t kind = 0;  // EventSpec::Kind
    bool has_value = false, has_duration = false;
  };
  std::vector<EventSpec> listed_;
  std::vector<TraceEvent> trace_;
  std::string trace_path_;
  std::vector<std::string> targets_;
  std::unordered_map<std::string, std::uint32_t> target_index_;
};

}  // namespace pssim::scenario
