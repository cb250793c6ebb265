// TraceRecorder: the run as a Chrome trace-event file (trace.json), for Perfetto or
// chrome://tracing.
//
//   process "workers": one track per worker, spans computing / pushing / pulling / blocked
//   process "servers": one track per shard, spans of applying updates (with an apply cost)
//   process "links":   a counter per recorded link direction: flows crossing it
//   process "training": instant events for rounds and evaluations
//   process "events":   with dynamics, a global instant event per event (crashes,
//                      recoveries, link changes ...); a down worker's track shows "down"
//   process "collective steps" (all-reduce only): one track per worker, a span per step
//                      of the algorithm ("reduce 3", "gather 5")
// Times are simulated microseconds. The file is streamed into a temporary name and renamed
// on commit(), like every output.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sim/net/topology.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/protocol/observer.hpp"

namespace pssim::experiment {

class TraceRecorder : public protocol::Observer {
 public:
  /// `links`: the link directions that get a counter track.
  TraceRecorder(const std::filesystem::path& dir, const net::Topology& topology, std::size_t workers,
                std::size_t shards, const std::vector<net::ResourceId>& links);

  void on_worker_state(std::int64_t worker, protocol::WorkerState state, TimeNs start, TimeNs end) override;
  void on_apply(std::int64_t shard, TimeNs start, TimeNs end) override;
  void on_round(const protocol::RoundRecord& r) override;
  void on_eval(const protocol::EvalRecord& e) override;
  void on_event(const protocol::EventRecord& e) override;
  void on_collective_step(std::int64_t worker, std::int64_t round, std::int64_t step, protocol::CollectivePhase phase,
                          TimeNs start, TimeNs end) override;
  /// FlowNetwork flow-count listener.
  void on_flow_count(net::ResourceId r, std::size_t flows, TimeNs now);

  void commit();

 private:
  void event(const std::string& json);

  output::AtomicFile file_;
  const net::Topology& topology_;
  std::vector<bool> watched_;
  std::vector<bool> step_track_;  // per worker: its collective-steps track is named
  bool events_named_ = false;
  std::string buffer_;
  bool first_ = true;
};

}  // namespace pssim::experiment
