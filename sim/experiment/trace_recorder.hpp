// TraceRecorder: the run as a Chrome trace-event file (trace.json), for Perfetto or
// chrome://tracing.
//
//   process "workers": one track per worker, spans computing / pushing / pulling / blocked
//   process "servers": one track per shard, spans of applying updates (with an apply cost)
//   process "links":   a counter per recorded link direction: flows crossing it
//   process "training": instant events for rounds and evaluations
// Times are simulated microseconds. The file is streamed into a temporary name and renamed
// on commit(), like every output.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sim/net/topology.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/ps/observer.hpp"

namespace pssim::experiment {

class TraceRecorder : public ps::PsObserver {
 public:
  /// `links`: the link directions that get a counter track.
  TraceRecorder(const std::filesystem::path& dir, const net::Topology& topology, std::size_t workers,
                std::size_t shards, const std::vector<net::ResourceId>& links);

  void on_worker_state(std::int64_t worker, ps::WorkerState state, TimeNs start, TimeNs end) override;
  void on_apply(std::int64_t shard, TimeNs start, TimeNs end) override;
  void on_round(const ps::RoundRecord& r) override;
  void on_eval(const ps::EvalRecord& e) override;
  /// FlowNetwork flow-count listener.
  void on_flow_count(net::ResourceId r, std::size_t flows, TimeNs now);

  void commit();

 private:
  void event(const std::string& json);

  output::AtomicFile file_;
  const net::Topology& topology_;
  std::vector<bool> watched_;
  std::string buffer_;
  bool first_ = true;
};

}  // namespace pssim::experiment
