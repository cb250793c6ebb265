// The SimGrid comparison's workload (sharded_sync_workload.hpp) on pssim's flow network
// and sync protocol, called as a library: no scenario, no outputs (bench/compare_simgrid.sh
// times `pssim run` on the same workload, and shows this as an extra column). Prints one
// line per round ("round <r> <end s>") and the run's figures.
// Usage: pssim_sharded_sync <workers> <rounds> equal|uneven
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/sharded_sync_workload.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"
#include "sim/output/resource_usage.hpp"
#include "sim/ps/clocked_policies.hpp"
#include "sim/ps/partition.hpp"
#include "sim/ps/ps_protocol.hpp"

namespace {

struct RoundPrinter : pssim::protocol::Observer {
  void on_round(const pssim::protocol::RoundRecord& r) override {
    std::printf("round %lld %.17g\n", static_cast<long long>(r.round), pssim::to_seconds(r.end));
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace pssim;
  using namespace pssim::bench;
  if (argc != 4 || parse_workload(argv[3]) < 0) {
    std::fprintf(stderr, "usage: %s <workers> <rounds> equal|uneven\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]), rounds = std::atoi(argv[2]);
  const bool uneven = parse_workload(argv[3]) == 1;
  if (n < 1 || rounds < 1) return 2;
  const TimeNs latency = seconds_to_ns(kLatencySeconds);
  std::vector<net::HostSpec> hosts;
  for (int i = 0; i < n; ++i) hosts.push_back({"worker-" + std::to_string(i), kWorkerBandwidth, kWorkerBandwidth, latency});
  for (int k = 0; k < kServers; ++k)
    hosts.push_back({"server-" + std::to_string(k), kServerBandwidth, kServerBandwidth, latency});

  const auto start = std::chrono::steady_clock::now();
  Simulator sim(1);
  const net::Topology topology = net::build_star(hosts);
  net::FlowNetwork network(sim, topology);
  compute::ComputeSpec spec;
  spec.speed = compute::ComputeSpec::Speed::List;
  spec.throughput = 1.0;  // FLOP/s: one "FLOP" per second of compute at factor 1
  for (int i = 0; i < n; ++i) spec.factors.push_back(kBaseComputeSeconds / compute_seconds(i, n, uneven));
  compute::ComputeModel compute(spec, static_cast<std::size_t>(n), sim.random());
  ps::PsConfig config;
  config.flops_per_iteration = kBaseComputeSeconds;
  config.stop.updates = rounds;
  ps::PsLayout layout;
  for (int i = 0; i < n; ++i) layout.worker_hosts.push_back(topology.node("worker-" + std::to_string(i)));
  layout.shards = ps::partition_by_bytes(static_cast<std::int64_t>(kModelBytes / training::kBytesPerParam), kServers);
  for (int k = 0; k < kServers; ++k) layout.shard_hosts.push_back(topology.node("server-" + std::to_string(k)));
  RoundPrinter printer;
  ps::PsProtocol engine(sim, network, compute, config, layout, std::make_unique<ps::SyncPolicy>(0), &printer);
  engine.start();
  sim.run_until_condition([&] { return engine.finished(); });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("wall_s %.6f\nevents %llu\nevents_per_s %.0f\nflows %llu\nflows_per_s %.0f\npeak_rss_bytes %llu\n", wall,
              static_cast<unsigned long long>(sim.events_executed()), static_cast<double>(sim.events_executed()) / wall,
              static_cast<unsigned long long>(network.flows()), static_cast<double>(network.flows()) / wall,
              static_cast<unsigned long long>(output::peak_rss_bytes()));
  std::printf("full_solves %llu\nincremental_updates %llu\n",
              static_cast<unsigned long long>(network.solver_stats().full_solves),
              static_cast<unsigned long long>(network.solver_stats().incremental_updates));
  return engine.finished() ? 0 : 1;
}
