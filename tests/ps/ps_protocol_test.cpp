#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <catch2/catch.hpp>

#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"
#include "sim/ps/async_policy.hpp"
#include "sim/ps/clocked_policies.hpp"
#include "sim/ps/partition.hpp"
#include "sim/ps/ps_protocol.hpp"

using namespace pssim;
using namespace pssim::ps;
using namespace pssim::protocol;
using compute::ComputeModel;
using compute::ComputeSpec;

namespace {

constexpr double MB = 1e6, GBps = 1e9;

// Collects everything the protocol reports.
struct Log : Observer {
  std::vector<UpdateRecord> updates;
  std::vector<RoundRecord> rounds;
  std::vector<GradientRecord> gradients;
  std::vector<std::pair<std::int64_t, std::int64_t>> starts;  // (worker, iteration)
  std::int64_t rounds_done = 0;
  std::int64_t staleness_bound = -1;
  bool bound_violated = false;
  std::int64_t max_lead = -1;
  void on_update(const UpdateRecord& u) override { updates.push_back(u); }
  void on_round(const RoundRecord& r) override {
    rounds.push_back(r);
    rounds_done = r.round + 1;
  }
  void on_gradient(const GradientRecord& g) override { gradients.push_back(g); }
  void on_compute_start(std::int64_t w, std::int64_t c) override {
    starts.emplace_back(w, c);
    // SSP: iteration c may start only once every worker's iterations < c - s are applied.
    if (staleness_bound >= 0) {
      bound_violated |= c > rounds_done + staleness_bound;
      max_lead = std::max(max_lead, c - rounds_done);
    }
  }
};

// The scheme of a test: its policy.
struct Scheme {
  enum { Sync, Async, Ssp } kind = Sync;
  std::int64_t backup_workers = 0, staleness = 0;
  std::unique_ptr<SchemePolicy> policy() const {
    if (kind == Async) return std::make_unique<AsyncPolicy>();
    if (kind == Ssp) return std::make_unique<SspPolicy>(staleness);
    return std::make_unique<SyncPolicy>(backup_workers);
  }
};

// A star with N workers and H servers, and a protocol over it.
struct Rig {
  Simulator sim;
  net::Topology topology;
  std::unique_ptr<net::FlowNetwork> network;
  std::unique_ptr<ComputeModel> compute;
  std::unique_ptr<PsProtocol> engine;
  Log log;

  Rig(int workers, int servers, double worker_bw, double server_bw, TimeNs latency, PsConfig config,
      std::vector<Part> shards, ComputeSpec spec = {}, std::uint64_t seed = 1, Scheme scheme = {})
      : sim(seed) {
    std::vector<net::HostSpec> hosts;
    for (int i = 0; i < workers; ++i) hosts.push_back({"w" + std::to_string(i), worker_bw, worker_bw, latency});
    for (int j = 0; j < servers; ++j) hosts.push_back({"s" + std::to_string(j), server_bw, server_bw, latency});
    topology = net::build_star(hosts);
    network = std::make_unique<net::FlowNetwork>(sim, topology);
    if (spec.throughput == 1e12) spec.throughput = 1e12;
    compute = std::make_unique<ComputeModel>(spec, static_cast<std::size_t>(workers), sim.random());
    PsLayout layout;
    for (int i = 0; i < workers; ++i) layout.worker_hosts.push_back(topology.node("w" + std::to_string(i)));
    layout.shards = std::move(shards);
    const auto placement = place_round_robin(layout.shards.size(), servers);
    for (auto h : placement) layout.shard_hosts.push_back(topology.node("s" + std::to_string(h)));
    engine = std::make_unique<PsProtocol>(sim, *network, *compute, config, layout, scheme.policy(), &log);
  }
  void run_until_updates() {
    engine->start();
    sim.run_until_condition([this] { return engine->finished(); });
    REQUIRE(engine->finished());
    engine->finish();
  }
};

PsConfig sync_config(std::int64_t updates, double flops = 0) {
  PsConfig c;
  c.stop.updates = updates;
  c.flops_per_iteration = flops;
  return c;
}

}  // namespace

TEST_CASE("single-server sync round is 2 N M / B (fan-out then fan-in)", "[ps][golden]") {
  // 8 workers, model 4.8 MB on one server; every NIC 1.25 GB/s; no latency, no compute.
  // Pull: 8 x 4.8 MB through the server uplink: 30.72 ms; push: the same through its
  // downlink. Round: 61.44 ms.
  Rig rig(8, 1, 1.25 * GBps, 1.25 * GBps, 0, sync_config(3), partition_by_bytes(1'200'000, 1));
  rig.run_until_updates();
  REQUIRE(rig.log.rounds.size() == 3);
  for (const auto& r : rig.log.rounds) CHECK(r.duration == 61'440'000);
}

TEST_CASE("sharded sync round is 2 max(M / B_worker, N M / (S B_server))", "[ps][golden]") {
  SECTION("servers are the bottleneck") {
    // N = 16, S = 2 shards on 2 servers, M = 2 MB: N M / (S B_s) = 16 x 2 MB / (2 x 1 GB/s)
    // = 16 ms against M / B_w = 0.2 ms: round = 32 ms.
    Rig rig(16, 2, 10 * GBps, 1 * GBps, 0, sync_config(2), partition_by_bytes(500'000, 2));
    rig.run_until_updates();
    for (const auto& r : rig.log.rounds) CHECK(r.duration == 32'000'000);
  }
  SECTION("worker NICs are the bottleneck") {
    // N = 4, S = 4, M = 4 MB: M / B_w = 4 ms against N M / (S B_s) = 0.4 ms: round = 8 ms.
    Rig rig(4, 4, 1 * GBps, 10 * GBps, 0, sync_config(2), partition_by_bytes(1'000'000, 4));
    rig.run_until_updates();
    for (const auto& r : rig.log.rounds) CHECK(r.duration == 8'000'000);
  }
}

TEST_CASE("sync round with uneven compute waits for the slowest worker", "[ps][golden]") {
  // One server, 2 workers, M = 1 MB, all NICs 1 GB/s, compute 1 ms and 3 ms.
  // Pull: 2 MB through the server uplink: both slices arrive at 2 ms. Worker 0 pushes at
  // 3 ms, alone: arrives at 4 ms. Worker 1 pushes at 5 ms: arrives at 6 ms. Round: 6 ms.
  ComputeSpec spec;
  spec.speed = ComputeSpec::Speed::List;
  spec.factors = {3.0, 1.0};
  spec.throughput = 1e12;  // 3 GFLOP: 1 ms at factor 3, 3 ms at factor 1
  Rig rig(2, 1, 1 * GBps, 1 * GBps, 0, sync_config(1, 3e9), partition_by_bytes(250'000, 1), spec);
  rig.run_until_updates();
  REQUIRE(rig.log.rounds.size() == 1);
  CHECK(rig.log.rounds[0].end == 6'000'000);
  CHECK(rig.engine->worker_stats(0).computing == 1'000'000);
  CHECK(rig.engine->worker_stats(1).computing == 3'000'000);
  // Worker 0: pulls 2 ms, computes 1, pushes 1, then waits 2 ms for the round to end.
  CHECK(rig.engine->worker_stats(0).blocked == 2'000'000);
  CHECK(rig.engine->worker_stats(0).pulling == 2'000'000);
  CHECK(rig.engine->worker_stats(0).pushing == 1'000'000);
}

TEST_CASE("backup workers drop exactly the slowest gradients", "[ps]") {
  // 6 workers, b = 2; workers 4 and 5 are 10x slower: every round goes on with 0..3.
  ComputeSpec spec;
  spec.speed = ComputeSpec::Speed::List;
  spec.factors = {1, 1, 1, 1, 0.1, 0.1};
  spec.throughput = 1e12;
  Rig rig(6, 2, 10 * GBps, 10 * GBps, 0, sync_config(30, 1e9), partition_by_bytes(100'000, 2), spec, 1,
          {Scheme::Sync, 2, 0});
  rig.run_until_updates();
  std::set<std::int64_t> dropped;
  for (const auto& g : rig.log.gradients)
    if (!g.accepted) dropped.insert(g.worker);
  CHECK(dropped == std::set<std::int64_t>{4, 5});
  for (const auto& u : rig.log.updates) CHECK(u.gradients == 4);
  for (const auto& g : rig.log.gradients)
    if (g.worker < 4) CHECK(g.accepted);
}

TEST_CASE("SSP never lets a worker run more than s clocks ahead", "[ps][property]") {
  boost::random::mt19937_64 rng(99);
  boost::random::uniform_int_distribution<int> workers(2, 12), shards(1, 4), bound(0, 4);
  int tight = 0;  // trials in which some worker used the whole allowance
  for (int trial = 0; trial < 25; ++trial) {
    const int n = workers(rng), s = shards(rng);
    const Scheme ssp{Scheme::Ssp, 0, bound(rng)};
    PsConfig c;
    c.stop.updates = 30;
    c.flops_per_iteration = 2e9;
    ComputeSpec spec;
    spec.speed = ComputeSpec::Speed::Lognormal;
    spec.sigma = 0.8;
    spec.noise_sigma = 0.3;
    spec.throughput = 1e12;
    Rig rig(n, s, 10 * GBps, 10 * GBps, 5 * kMicrosecond, c, partition_by_bytes(50'000 * s, s), spec,
            static_cast<std::uint64_t>(trial), ssp);
    rig.log.staleness_bound = ssp.staleness;
    rig.run_until_updates();
    INFO("trial " << trial << ": " << n << " workers, " << s << " shards, bound " << ssp.staleness);
    CHECK_FALSE(rig.log.bound_violated);
    CHECK(rig.log.max_lead <= ssp.staleness);
    // Staleness of applied gradients is within the bound too.
    for (const auto& u : rig.log.updates) CHECK(u.staleness_max <= ssp.staleness);
    CHECK(rig.log.updates.size() == static_cast<std::size_t>(30 * s));
    tight += rig.log.max_lead == ssp.staleness;
  }
  CHECK(tight >= 20);  // the bound binds: stragglers hold the others back
}

TEST_CASE("SSP with bound 0 times rounds exactly as sync", "[ps]") {
  ComputeSpec spec;
  spec.speed = ComputeSpec::Speed::Lognormal;
  spec.sigma = 0.5;
  spec.throughput = 1e12;
  Rig a(5, 2, 10 * GBps, 10 * GBps, 0, sync_config(5, 1e9), partition_by_bytes(200'000, 2), spec, 3);
  Rig b(5, 2, 10 * GBps, 10 * GBps, 0, sync_config(5, 1e9), partition_by_bytes(200'000, 2), spec, 3,
        {Scheme::Ssp, 0, 0});
  a.run_until_updates();
  b.run_until_updates();
  REQUIRE(a.log.rounds.size() == b.log.rounds.size());
  for (std::size_t i = 0; i < a.log.rounds.size(); ++i) CHECK(a.log.rounds[i].end == b.log.rounds[i].end);
}

TEST_CASE("async applies every gradient up to its limit, equal workers see staleness N - 1", "[ps]") {
  // 4 identical workers, one shard: after the start, each gradient finds the 3 others'
  // updates applied since its worker's copy was sent. Their pushes arrive in the same
  // instant: a limit of 10 falls on the 2nd of a group of 4, and the two after it are
  // not applied.
  for (const std::int64_t limit : {40, 10}) {
    CAPTURE(limit);
    PsConfig c;
    c.stop.updates = limit;
    c.flops_per_iteration = 1e9;
    Rig rig(4, 1, 10 * GBps, 10 * GBps, 0, c, partition_by_bytes(10'000, 1), {}, 1, {Scheme::Async});
    rig.run_until_updates();
    REQUIRE(static_cast<std::int64_t>(rig.log.updates.size()) == limit);
    for (const auto& u : rig.log.updates) CHECK(u.gradients == 1);
    for (std::size_t i = 4; i < rig.log.updates.size(); ++i) CHECK(rig.log.updates[i].staleness_max == 3);
    CHECK(rig.engine->least_updates() == limit);
    CHECK(rig.engine->totals().gradients_applied == limit);
  }
}

TEST_CASE("one async worker sees no staleness", "[ps]") {
  PsConfig c;
  c.stop.updates = 10;
  Rig rig(1, 2, 10 * GBps, 10 * GBps, 0, c, partition_by_bytes(1000, 2), {}, 1, {Scheme::Async});
  rig.run_until_updates();
  for (const auto& u : rig.log.updates) CHECK(u.staleness_max == 0);
}

TEST_CASE("server apply cost delays every update", "[ps][golden]") {
  // One worker, one server, M = 1 MB, NICs 1 GB/s, apply at 0.5 GB/s: 2 ms per update.
  // Round: pull 1 ms + push 1 ms + apply 2 ms = 4 ms.
  PsConfig c = sync_config(2);
  c.apply_bandwidth = 0.5 * GBps;
  Rig rig(1, 1, 1 * GBps, 1 * GBps, 0, c, partition_by_bytes(250'000, 1));
  rig.run_until_updates();
  for (const auto& r : rig.log.rounds) CHECK(r.duration == 4'000'000);
}

TEST_CASE("compressed messages: version 0 whole, then the compressed sizes", "[ps][golden][compression]") {
  // One worker, one server, M = 1 MB, NICs 1 GB/s. Pushes of 10 kB, pulls of 250 kB.
  // Round 0: pull 1 MB (1 ms) + push 10 kB (0.01 ms); later rounds: pull 0.25 ms + push
  // 0.01 ms.
  PsConfig c = sync_config(3);
  c.push_bytes = {10'000};
  c.pull_bytes = {250'000};
  Rig rig(1, 1, 1 * GBps, 1 * GBps, 0, c, partition_by_bytes(250'000, 1));
  rig.run_until_updates();
  REQUIRE(rig.log.rounds.size() == 3);
  CHECK(rig.log.rounds[0].duration == 1'010'000);
  CHECK(rig.log.rounds[1].duration == 260'000);
  CHECK(rig.log.rounds[2].duration == 260'000);
  CHECK(rig.network->bytes_moved(net::ByteAccount::Push) == 3 * 10'000.0);
  // The pull of version 3 is sent as the run stops: it never crosses a link.
  CHECK(rig.network->bytes_moved(net::ByteAccount::Pull) == 1e6 + 2 * 250'000.0);
}

TEST_CASE("compression cost lengthens iterations and updates", "[ps][golden][compression]") {
  // Two workers, one server, 250,000 parameters (1 MB), NICs 1 GB/s, no compute.
  // Costs: push 2 ns, pull 1 ns per element. A worker's iteration: (2 + 1) ns x 250,000 =
  // 0.75 ms. The update: push 2 ns x 2 gradients + pull 1 ns x 2 answers, x 250,000 =
  // 1.5 ms. Network per round (sizes unchanged here): pull 2 MB out of the server 2 ms,
  // push 2 MB into it 2 ms. Round = 2 + 0.75 + 2 + 1.5 = 6.25 ms.
  PsConfig c = sync_config(3);
  c.push_codec_seconds = 2e-9;
  c.pull_codec_seconds = 1e-9;
  Rig rig(2, 1, 1 * GBps, 1 * GBps, 0, c, partition_by_bytes(250'000, 1));
  rig.run_until_updates();
  for (const auto& r : rig.log.rounds) CHECK(r.duration == 6'250'000);
}
