// All-reduced parts in the PS machinery (protocol allreduce, and hybrid's dense part),
// driven through a fake transport and fake math so every time and value can be written
// down. Derivations in the comments.
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/ps/async_policy.hpp"
#include "sim/ps/clocked_policies.hpp"
#include "sim/ps/ps_protocol.hpp"
#include "tests/support/delay_transport.hpp"
#include "tests/support/fake_math.hpp"

using namespace pssim;
using namespace pssim::ps;

namespace {

constexpr double GBps = 1e9;

struct Rounds : protocol::Observer {
  std::vector<protocol::RoundRecord> rounds;
  std::vector<protocol::UpdateRecord> updates;
  void on_round(const protocol::RoundRecord& r) override { rounds.push_back(r); }
  void on_update(const protocol::UpdateRecord& u) override { updates.push_back(u); }
};

// `workers` workers (hosts 0 .. n-1) and `servers` server hosts after them, on a transport
// without sharing: a message of b bytes takes b / (1 GB/s).
struct Rig {
  Simulator sim{1};
  testing::DelayTransport transport{sim, GBps, 0};
  std::unique_ptr<compute::ComputeModel> compute;
  std::unique_ptr<testing::FakeGradients> gradients;
  std::unique_ptr<testing::FakeStore> store;
  std::unique_ptr<PsProtocol> protocol;
  Rounds log;

  Rig(std::size_t workers, std::vector<std::int64_t> shard_params, std::int64_t reduced_params,
      std::vector<double> speed_factors, double flops, std::int64_t updates) {
    compute::ComputeSpec spec;
    spec.speed = compute::ComputeSpec::Speed::List;
    spec.factors = std::move(speed_factors);
    spec.throughput = 1e12;
    compute = std::make_unique<compute::ComputeModel>(spec, workers, sim.random());
    PsLayout layout;
    std::vector<std::size_t> lengths;
    for (std::size_t w = 0; w < workers; ++w) layout.worker_hosts.push_back(static_cast<net::NodeId>(w));
    std::int64_t at = 0;
    for (std::size_t k = 0; k < shard_params.size(); ++k) {
      layout.shards.push_back({{{at, at + shard_params[k]}}, shard_params[k]});
      layout.shard_hosts.push_back(static_cast<net::NodeId>(workers + k));
      lengths.push_back(static_cast<std::size_t>(shard_params[k]));
      at += shard_params[k];
    }
    AllReducedPart reduced;  // a ring over whole messages
    reduced.part = {{{at, at + reduced_params}}, reduced_params};
    layout.all_reduced = reduced;
    lengths.push_back(static_cast<std::size_t>(reduced_params));
    gradients = std::make_unique<testing::FakeGradients>(lengths);
    store = std::make_unique<testing::FakeStore>(lengths);
    PsConfig config;
    config.flops_per_iteration = flops;
    config.stop.updates = updates;
    protocol = std::make_unique<PsProtocol>(sim, transport, *compute, config, layout, std::make_unique<SyncPolicy>(0),
                                            &log, PsMath{gradients.get(), store.get()});
  }
  void run() {
    protocol->start();
    sim.run_until_condition([this] { return protocol->finished(); });
    REQUIRE(protocol->finished());
    protocol->finish();
  }
};

}  // namespace

TEST_CASE("all-reduce: one averaged update per round, and every iteration computes on the newest replica",
          "[ps][allreduce]") {
  // 3 workers, no compute, a ring over 3,000,000 parameters (12 MB): 4 steps of 4 MB, 4 ms
  // each: a round is 16 ms. Each round averages the gradients 1, 2, 3 (worker w sends w+1):
  // 2, subtracted from the replica.
  Rig rig(3, {}, 3'000'000, {1, 1, 1}, 0, 3);
  rig.run();
  REQUIRE(rig.log.rounds.size() == 3);
  for (const auto& r : rig.log.rounds) CHECK(r.duration == 16'000'000);
  REQUIRE(rig.store->averages.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(rig.store->averages[k].clock == static_cast<std::int64_t>(k));
    CHECK(rig.store->averages[k].value == 2.0f);
  }
  CHECK((*rig.store->current(0))[0] == -6.0f);
  // Iteration k of every worker used version k of the replica.
  std::vector<int> iteration(3, 0);
  for (const auto& use : rig.gradients->used) CHECK(use.versions[0] == static_cast<float>(iteration[use.worker]++));
  const auto& totals = rig.protocol->totals();
  CHECK(totals.updates == 3);
  CHECK(totals.gradients_applied == 9);
  // 3 rounds x 3 workers x 2 reduce steps x 4 MB, and as much in the gather steps.
  CHECK(rig.transport.bytes_delivered(net::ByteAccount::Push) == 3 * 3 * 2 * 4e6);
  CHECK(rig.transport.bytes_delivered(net::ByteAccount::Pull) == 3 * 3 * 2 * 4e6);
  // Each worker: its reduce-step messages in flight 8 ms a round (pushing), gather-step
  // messages to it 8 ms (pulling); nothing else.
  for (std::size_t w = 0; w < 3; ++w) {
    CHECK(rig.protocol->worker_stats(w).pushing == 24'000'000);
    CHECK(rig.protocol->worker_stats(w).pulling == 24'000'000);
    CHECK(rig.protocol->worker_stats(w).blocked == 0);
  }
}

TEST_CASE("all-reduce: a straggler holds the others back, who wait blocked (rendezvous)", "[ps][allreduce]") {
  // 2 workers, compute 1 ms and 5 ms (1 GFLOP at 1 TFLOPS, speed factors 1 and 0.2); a ring
  // of 2 over 4 MB: 2 steps of 2 MB (2 ms). Worker 0's first message waits until worker 1
  // posts its step at 5 ms: worker 0 is blocked 1..5 ms. Round 0 ends at 5 + 4 = 9 ms.
  Rig rig(2, {}, 1'000'000, {1, 0.2}, 1e9, 1);
  rig.run();
  REQUIRE(rig.log.rounds.size() == 1);
  CHECK(rig.log.rounds[0].end == 9'000'000);
  CHECK(rig.protocol->worker_stats(0).computing == 1'000'000);
  CHECK(rig.protocol->worker_stats(0).blocked == 4'000'000);
  CHECK(rig.protocol->worker_stats(1).computing == 5'000'000);
  CHECK(rig.protocol->worker_stats(1).blocked == 0);
}

TEST_CASE("hybrid: a server shard and an all-reduced part, a round ends when both are done", "[ps][allreduce]") {
  // 2 workers, a 1 MB shard on server host 2, a 4 MB all-reduced part; compute 1 ms.
  // Round 0: the shard's version 0 reaches the workers at 1 ms (the replica is there from
  // the start); they compute until 2 ms; their shard pushes arrive at 3 ms, the shard
  // applies; the ring (2 steps of 2 MB) runs 2..6 ms: the round ends at 6 ms. The new
  // shard slice is back at 4 ms, the replica at 6 ms: round 1 computes 6..7, pushes until
  // 8, the ring runs 7..11.
  Rig rig(2, {250'000}, 1'000'000, {1, 1}, 1e9, 2);
  rig.run();
  REQUIRE(rig.log.rounds.size() == 2);
  CHECK(rig.log.rounds[0].end == 6'000'000);
  CHECK(rig.log.rounds[1].end == 11'000'000);
  // Both parts average the gradients 1 and 2 every round.
  REQUIRE(rig.store->averages.size() == 4);
  for (const auto& a : rig.store->averages) CHECK(a.value == 1.5f);
  CHECK(rig.protocol->part_version(0) == 2);
  CHECK(rig.protocol->part_version(1) == 2);
  // The shard's update happens at 3 ms, the replica's at 6 ms (the first worker to hold
  // the result): one update record each per round.
  REQUIRE(rig.log.updates.size() == 4);
  CHECK(rig.log.updates[0].time == 3'000'000);
  CHECK(rig.log.updates[0].shard == 0);
  CHECK(rig.log.updates[1].time == 6'000'000);
  CHECK(rig.log.updates[1].shard == 1);
}

TEST_CASE("PS schemes through the fake transport and fake math: what each update averages", "[ps]") {
  // 2 workers, one shard of 1 MB on host 2; messages take 1 ms; compute 1 ms and 3 ms.
  // sync: every update averages both gradients (1 and 2): 1.5. async: one gradient per
  // update, in arrival order: worker 0's (1) at 3 ms, worker 1's (2) at 5 ms, ...
  const auto run = [](std::unique_ptr<SchemePolicy> policy) {
    Simulator sim(1);
    testing::DelayTransport transport(sim, GBps, 0);
    compute::ComputeSpec spec;
    spec.speed = compute::ComputeSpec::Speed::List;
    spec.factors = {1, 1.0 / 3};
    spec.throughput = 1e12;
    compute::ComputeModel compute(spec, 2, sim.random());
    PsLayout layout;
    layout.worker_hosts = {0, 1};
    layout.shards = {{{{0, 250'000}}, 250'000}};
    layout.shard_hosts = {2};
    testing::FakeGradients gradients({250'000});
    testing::FakeStore store({250'000});
    PsConfig config;
    config.flops_per_iteration = 1e9;
    config.stop.updates = 4;
    PsProtocol p(sim, transport, compute, config, layout, std::move(policy), nullptr, {&gradients, &store});
    p.start();
    sim.run_until_condition([&p] { return p.finished(); });
    return std::make_pair(store.averages, (*store.current(0))[0]);
  };
  const auto [sync_averages, sync_value] = run(std::make_unique<SyncPolicy>(0));
  REQUIRE(sync_averages.size() == 4);
  for (const auto& a : sync_averages) CHECK(a.value == 1.5f);
  CHECK(sync_value == -6.0f);
  const auto [async_averages, async_value] = run(std::make_unique<AsyncPolicy>());
  CHECK(async_averages.empty());  // async applies gradients one by one, never an average
  // Version 0 arrives at 1 ms. Worker 0 (1 ms per iteration, 1 ms each way) pushes at 2, 5
  // and 8 ms, worker 1 (3 ms) at 4 ms: the updates at 3, 5, 6 and 9 ms apply 1, 2, 1, 1.
  CHECK(async_value == -5.0f);
}
