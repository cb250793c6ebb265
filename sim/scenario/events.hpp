// The scenario's event timeline: `events:` entries and `events_file:` CSV traces, read
// into a Timeline and checked against the rest of the scenario (targets that exist, a
// scheme that can take the event, times that go forward, recoveries that follow a crash).
// Every error names the file and line of the entry (YAML or CSV).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/scenario/config_node.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::scenario {

/// What event checks look at.
struct EventFacts {
  std::int64_t workers = 1;
  std::int64_t servers = 0;          ///< server hosts (0: none, or colocated on the workers)
  std::string scheme;                ///< protocol.mode
  bool has_servers = true;           ///< the scheme keeps parameters on servers
  /// Why the scheme cannot take server (worker) crashes and recoveries (empty: it can), and
  /// the schemes that can, for the error (from the scheme registry's capabilities).
  std::string no_server_crashes, server_crash_schemes;
  std::string no_worker_crashes, worker_crash_schemes;
  bool pull_compression = false;
  std::vector<std::string> switches;  ///< the topology's nodes that are not hosts, by name
  std::vector<std::string> hosts;     ///< hosts named in the scenario (explicit topologies)
  /// The hosts are worker-<i> and server-<j> (generated topologies): they are nodes too,
  /// checked by name, not listed (a cluster may have millions).
  bool numbered_hosts = true;
  /// Non-empty: the setting under which no event is modelled (protocol.overlap: per-layer
  /// steps are not re-timed or cancelled), named in the error.
  std::string all_excluded_by;
  /// Non-empty: the setting under which crashes and link events are not modelled (pieces
  /// of messages, tcp or priority sharing: cancellation and capacity changes handle whole
  /// messages under max-min only); speed events still apply.
  std::string network_excluded_by;
};

/// Reads the `events:` list (validated against the schema).
std::vector<EventSpec> read_events(const ConfigNode& list, const EventFacts& facts);
/// Reads a CSV trace into `into`: header `time,kind,target,value[,latency]`, then one
/// event per line, in non-decreasing time. Throws ScenarioError at the file's line.
void read_events_file(const std::string& path, const EventFacts& facts, Timeline& into);
/// Writes one-shot events as a trace that read_events_file reads back to the same events.
void write_events_file(const std::vector<EventSpec>& events, std::ostream& out);
/// Recoveries must follow a crash of the same target (over the one-shot events, in time
/// order; a target with recurring or Poisson crashes is not checked). Throws ScenarioError.
void check_timeline(const Timeline& timeline);

/// "worker_crash" ... (the scenario's spelling).
EventSpec::Kind parse_event_kind(const std::string& text);

}  // namespace pssim::scenario
