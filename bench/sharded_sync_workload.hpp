// The sharded-sync workload of the SimGrid comparison (bench/compare_simgrid.sh), defined
// once for both simulators.
//
// N workers and S = 8 servers, each on its own host, all on one star switch; every host
// has one split-duplex NIC link: workers 10 Gbps, servers 25 Gbps, latency 20 us each.
// The model is 4.8 MB, cut into 8 shards of 600 kB, shard k on server k. Per-shard sync:
// each round every server sends its shard to every worker; a worker that has all 8
// computes for compute_seconds(i, N) and sends one gradient slice to each server; a
// server that has N gradients starts the next round. Two workloads: `equal`, every
// worker computes for 10 ms; `uneven`, compute is distinct per worker: 10 ms x (1 + 0.5 i
// / (N - 1)). A round ends when the last server has its N gradients.
// bench/scenarios/simgrid-sharded-sync.yaml is the same workload as a scenario for
// `pssim run` (bench/compare_simgrid.sh adds the uneven speeds).
#pragma once

#include <cstdint>
#include <string_view>

namespace pssim::bench {

inline constexpr int kServers = 8;
inline constexpr double kModelBytes = 4.8e6;
inline constexpr double kShardBytes = kModelBytes / kServers;
inline constexpr double kWorkerBandwidth = 10e9 / 8;  // bytes/s
inline constexpr double kServerBandwidth = 25e9 / 8;
inline constexpr double kLatencySeconds = 20e-6;
inline constexpr double kBaseComputeSeconds = 10e-3;

inline double compute_seconds(int worker, int workers, bool uneven) {
  const double spread = uneven && workers > 1 ? static_cast<double>(worker) / (workers - 1) : 0.0;
  return kBaseComputeSeconds * (1.0 + 0.5 * spread);
}

/// "equal" or "uneven" (the last argument of both programs); anything else: -1.
inline int parse_workload(const char* name) {
  const std::string_view s(name);
  return s == "equal" ? 0 : s == "uneven" ? 1 : -1;
}

}  // namespace pssim::bench
