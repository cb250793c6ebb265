// Golden runs: shipped timing scenarios whose simulated times can be worked out by hand.
#include <string>

#include <catch2/catch.hpp>

#include "sim/experiment/experiment.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;

namespace {

struct Rounds : protocol::Observer {
  std::vector<TimeNs> durations;
  void on_round(const protocol::RoundRecord& r) override { durations.push_back(r.duration); }
};

scenario::Scenario load(const std::string& name, std::vector<std::string> overrides = {}) {
  return scenario::load_scenario_file(std::string(PSSIM_SOURCE_DIR) + "/scenarios/timing/" + name, {overrides, {}})
      .scenario;
}

}  // namespace

TEST_CASE("single-server-sync: every round is 2 N M / B_server + latencies + compute", "[golden]") {
  // M = 25M params x 4 B = 100 MB, N = 16, B_server = 25 Gbps = 3.125 GB/s:
  // 16 x 100 MB / 3.125 GB/s = 512 ms each way. Latency 20 us + 20 us each way: 80 us.
  // Compute: 32 samples x 4 GFLOP / 15 TFLOPS = 8.533333 ms (8 533 333 ns).
  experiment::Experiment e(load("single-server-sync.yaml"));
  Rounds rounds;
  const auto stats = e.run(&rounds);
  REQUIRE(rounds.durations.size() == 20);
  for (TimeNs d : rounds.durations) CHECK(d == 1'024'000'000 + 80'000 + 8'533'333);
  CHECK(stats.stopped_by == experiment::StopReason::Updates);
}

TEST_CASE("sharded-sync: rounds are bound by the worker NICs", "[golden]") {
  // 8 shards on 8 servers: servers carry 16 x 100 MB / 8 = 200 MB each way at 3.125 GB/s
  // = 64 ms; each worker receives (and sends) the whole 100 MB at 1.25 GB/s = 80 ms.
  // Round: 2 x 80 ms + 80 us latency + 8.533333 ms compute.
  experiment::Experiment e(load("sharded-sync.yaml"));
  Rounds rounds;
  e.run(&rounds);
  for (TimeNs d : rounds.durations) CHECK(d == 160'000'000 + 80'000 + 8'533'333);
  // Sixteen shards on sixteen servers change nothing: the workers' NICs bind.
  experiment::Experiment wider(load("sharded-sync.yaml", {"cluster.servers.count=16", "cluster.servers.shards=16"}));
  Rounds wider_rounds;
  wider.run(&wider_rounds);
  CHECK(wider_rounds.durations == rounds.durations);
}

TEST_CASE("two-tier: oversubscribed rack uplinks bound the round", "[golden]") {
  // Workers: 4 racks of 8, NICs 25 Gbps, uplinks 8 x 3.125 GB/s / 4 = 6.25 GB/s.
  // Servers (4, 100 Gbps) in their own rack: its uplink is 4 x 12.5 / 4 = 12.5 GB/s.
  // Pull: each worker rack receives 8 workers x 100 MB = 800 MB through 6.25 GB/s:
  // 128 ms; the server rack sends 32 x 100 MB = 3.2 GB through 12.5 GB/s: 256 ms. The
  // server rack uplink binds: 256 ms each way. Latency: 10 + 2 + 2 + 10 us each way.
  // Compute: 8.533333 ms.
  experiment::Experiment e(load("two-tier-oversubscribed.yaml"));
  Rounds rounds;
  e.run(&rounds);
  REQUIRE(rounds.durations.size() == 10);
  for (TimeNs d : rounds.durations) CHECK(d == 2 * 256'000'000 + 2 * 24'000 + 8'533'333);
}

TEST_CASE("ring-allreduce: every round is 2(N-1)/N M/B + 2(N-1) alpha + compute", "[golden][allreduce]") {
  // N = 16, M = 100 MB, B = 10 Gbps = 1.25 GB/s: 2 x 15/16 x 100 MB / 1.25 GB/s = 150 ms.
  // 2(N-1) = 30 steps, each after the route latency alpha = 20 + 20 us: 1.2 ms. Compute:
  // 8.533333 ms. The workers hold the new replica at the same instant: no waiting.
  experiment::Experiment e(load("ring-allreduce.yaml"));
  Rounds rounds;
  e.run(&rounds);
  REQUIRE(rounds.durations.size() == 20);
  for (TimeNs d : rounds.durations) CHECK(d == 150'000'000 + 1'200'000 + 8'533'333);
}

TEST_CASE("framing: a scenario's wire carries M / efficiency in every scheme", "[golden][framing]") {
  // single-server-sync with network.framing efficiency 0.8: 2 N M / (0.8 B_server) = 1,280 ms
  // instead of 1,024 ms; latencies and compute unchanged.
  experiment::Experiment sync(load("single-server-sync.yaml", {"network.framing={kind: factor, efficiency: 0.8}"}));
  Rounds sync_rounds;
  sync.run(&sync_rounds);
  REQUIRE(sync_rounds.durations.size() == 20);
  for (TimeNs d : sync_rounds.durations) CHECK(d == 1'280'000'000 + 80'000 + 8'533'333);
  // ring-allreduce with efficiency 0.5: the 150 ms of bytes take 300 ms; 30 latencies of
  // 40 us and the compute as before.
  experiment::Experiment ring(load("ring-allreduce.yaml", {"network.framing={kind: factor, efficiency: 0.5}"}));
  Rounds ring_rounds;
  ring.run(&ring_rounds);
  REQUIRE(ring_rounds.durations.size() == 20);
  for (TimeNs d : ring_rounds.durations) CHECK(d == 300'000'000 + 1'200'000 + 8'533'333);
}
