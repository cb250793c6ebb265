// Overlap of communication with computation, and priority scheduling of pieces
// (PsConfig::overlap, schedule, partition_bytes): closed forms on one worker and one
// server, solved by hand in the comments.
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"
#include "sim/ps/async_policy.hpp"
#include "sim/ps/clocked_policies.hpp"
#include "sim/ps/partition.hpp"
#include "sim/ps/pieces.hpp"
#include "sim/ps/ps_protocol.hpp"

using namespace pssim;
using namespace pssim::ps;
using protocol::Overlap;
using protocol::Schedule;

namespace {

constexpr double MB = 1e6, GBps = 1e9;
constexpr TimeNs ms = 1'000'000;

struct Rounds : protocol::Observer {
  std::vector<protocol::RoundRecord> rounds;
  void on_round(const protocol::RoundRecord& r) override { rounds.push_back(r); }
};

// Sits between the protocol and the network and notes every send and delivery.
struct Recorder : net::Transport, net::MessageSink {
  struct Event {
    TimeNs time;
    bool from_worker;  // send: a push; delivery: tag's kind is not known here
    double bytes;
    std::uint32_t priority;
    std::uint64_t tag;
  };
  Simulator* sim = nullptr;
  net::Transport* next = nullptr;
  net::NodeId worker = 0;
  net::MessageSink* sink = nullptr;
  std::vector<Event> sends, deliveries;
  std::map<std::uint64_t, Event> pending;  // by tag (pieces of one message have distinct tags)
  void send(net::NodeId src, net::NodeId dst, double bytes, net::MessageSink* s, std::uint64_t tag) override {
    send(src, dst, bytes, s, tag, {});
  }
  void send(net::NodeId src, net::NodeId dst, double bytes, net::MessageSink* s, std::uint64_t tag,
            const net::SendOptions& options) override {
    sink = s;
    const Event e{sim->now(), src == worker, bytes, options.priority, tag};
    sends.push_back(e);
    pending[tag] = e;
    next->send(src, dst, bytes, this, tag, options);
  }
  // No dynamics in these tests: nothing may be cancelled.
  std::size_t cancel_host(net::NodeId) override { throw std::logic_error("Recorder: no cancellation expected"); }
  std::size_t cancel_sink(const net::MessageSink*) override { throw std::logic_error("Recorder: no cancellation expected"); }
  void on_delivered(std::uint64_t tag) override {
    Event e = pending.at(tag);
    pending.erase(tag);
    e.time = sim->now();
    deliveries.push_back(e);
    sink->on_delivered(tag);
  }
};

// Two layers of M1 = 1 MB and M2 = 3 MB on one server; worker and server NICs 1 GB/s
// both ways, no latency; one worker at 1 TFLOP/s whose iteration has the given FLOPs per
// step (forward 1, forward 2, backward 2, backward 1), so step times in ms are FLOPs / 1e9.
struct TwoLayers {
  Simulator sim{1};
  net::Topology topology;
  std::unique_ptr<net::FlowNetwork> network;
  std::unique_ptr<compute::ComputeModel> compute;
  Recorder recorder;
  Rounds log;
  std::unique_ptr<PsProtocol> engine;

  TwoLayers(double f1, double f2, double b2, double b1, Overlap overlap, Schedule schedule, std::int64_t updates) {
    topology = net::build_star({{"w0", 1 * GBps, 1 * GBps, 0}, {"s0", 1 * GBps, 1 * GBps, 0}});
    net::NetworkModel model;
    model.priorities = schedule == Schedule::Priority;
    network = std::make_unique<net::FlowNetwork>(sim, topology, model);
    compute = std::make_unique<compute::ComputeModel>(compute::ComputeSpec{}, 1, sim.random());
    recorder.sim = &sim;
    recorder.next = network.get();
    recorder.worker = topology.node("w0");
    PsConfig c;
    c.stop.updates = updates;
    c.flops_per_iteration = (f1 + f2 + b2 + b1) * 1e9;  // ms at 1 TFLOP/s
    c.overlap = overlap;
    c.schedule = schedule;
    c.layers = {{{0, 250'000}, {f1, b1}}, {{250'000, 1'000'000}, {f2, b2}}};  // 1 MB, 3 MB
    PsLayout layout;
    layout.worker_hosts = {topology.node("w0")};
    layout.shards = partition_by_bytes(1'000'000, 1);
    layout.shard_hosts = {topology.node("s0")};
    engine = std::make_unique<PsProtocol>(sim, recorder, *compute, c, layout, std::make_unique<SyncPolicy>(0), &log);
  }
  void run() {
    engine->start();
    sim.run_until_condition([this] { return engine->finished(); });
    REQUIRE(engine->finished());
  }
  std::vector<Recorder::Event> pushes() const {
    std::vector<Recorder::Event> out;
    for (const auto& e : recorder.sends)
      if (e.from_worker) out.push_back(e);
    return out;
  }
};

}  // namespace

TEST_CASE("cut_pieces: per layer of each shard, then at most partition_bytes", "[ps][overlap]") {
  // Layers [0,10) [10,30) [30,35); shards by bytes: [0,18) and [18,35).
  const std::vector<training::Range> layers{{0, 10}, {10, 30}, {30, 35}};
  const auto shards = partition_by_bytes(35, 2);
  const auto whole = cut_pieces(shards, layers, std::nullopt);
  REQUIRE(whole.size() == 2);
  CHECK(whole[0].size() == 2);
  CHECK((whole[0][0].layer == 0 && whole[0][0].params == 10));
  CHECK((whole[0][1].layer == 1 && whole[0][1].params == 8));
  CHECK((whole[1][0].layer == 1 && whole[1][0].params == 12));
  CHECK((whole[1][1].layer == 2 && whole[1][1].params == 5));
  // 20 bytes: 5 parameters at most.
  const auto cut = cut_pieces(shards, layers, 20.0);
  std::vector<std::int64_t> sizes;
  for (const auto& p : cut[1]) sizes.push_back(p.params);
  CHECK(sizes == std::vector<std::int64_t>{5, 5, 2, 5});
  CHECK(cut[0].size() == 4);  // 5 5 | 5 3
}

TEST_CASE("backward overlap: layer 2's push starts at b2, the round ends at the closed form", "[ps][overlap][golden]") {
  // One worker, one server, bandwidth B = 1 GB/s, M1 = 1 MB, M2 = 3 MB, no forward FLOPs.
  // Backward runs last to first: layer 2's gradient exists b2 after the computation starts
  // (at T0, when the pull of M1 + M2 is in: T0 = (M1 + M2) / B = 4 ms), layer 1's at
  // b2 + b1. The worker uplink is work-conserving (max-min on one link), so the pushes end at
  //   T0 + max(b2 + (M1 + M2) / B,  b2 + b1 + M1 / B)
  // (either the link never idles after b2, or layer 1 is alone at the end). A round is then
  //   R = (M1 + M2) / B + max(b2 + (M1 + M2) / B, b2 + b1 + M1 / B),
  // against (M1 + M2) / B + b1 + b2 + (M1 + M2) / B without overlap.
  SECTION("compute-bound end: b2 = 3 ms, b1 = 5 ms") {
    // R = 4 + max(3 + 4, 3 + 5 + 1) = 13 ms (none: 4 + 8 + 4 = 16 ms).
    TwoLayers rig(0, 0, 3, 5, Overlap::Backward, Schedule::Fifo, 3);
    rig.run();
    const auto pushes = rig.pushes();
    REQUIRE(pushes.size() >= 2);
    CHECK(pushes[0].time == 4 * ms + 3 * ms);  // T0 + b2
    CHECK(pushes[0].bytes == 3 * MB);          // layer 2
    CHECK(pushes[1].time == 4 * ms + 8 * ms);  // T0 + b2 + b1
    CHECK(pushes[1].bytes == 1 * MB);
    REQUIRE(rig.log.rounds.size() == 3);
    CHECK(rig.log.rounds[0].end == 13 * ms);
    for (const auto& r : rig.log.rounds) CHECK(r.duration == 13 * ms);
  }
  SECTION("bandwidth-bound end: b2 = 1 ms, b1 = 1 ms") {
    // R = 4 + max(1 + 4, 1 + 1 + 1) = 9 ms (none: 4 + 2 + 4 = 10 ms).
    TwoLayers rig(0, 0, 1, 1, Overlap::Backward, Schedule::Fifo, 2);
    rig.run();
    CHECK(rig.pushes()[0].time == 5 * ms);
    for (const auto& r : rig.log.rounds) CHECK(r.duration == 9 * ms);
  }
  SECTION("without overlap: one push of M1 + M2 after b1 + b2") {
    TwoLayers rig(0, 0, 3, 5, Overlap::None, Schedule::Fifo, 2);
    rig.run();
    REQUIRE(rig.pushes().size() == 2);  // one whole message per round
    CHECK(rig.pushes()[0].time == 12 * ms);  // T0 + b1 + b2
    CHECK(rig.pushes()[0].bytes == 4 * MB);
    for (const auto& r : rig.log.rounds) CHECK(r.duration == 16 * ms);
  }
}

TEST_CASE("priority scheduling: layer 1's pull completes first", "[ps][overlap][golden]") {
  // The pull of version 0 at time 0: pieces of M1 = 1 MB (layer 1, class 0) and M2 = 3 MB
  // (layer 2, class 1) through the server uplink B = 1 GB/s. Priority: layer 1 alone at
  // B, done at M1 / B = 1 ms, then layer 2 at (M1 + M2) / B = 4 ms. Fifo: both at B / 2,
  // layer 1 done at 2 M1 / B = 2 ms, layer 2 at 4 ms.
  for (const Schedule schedule : {Schedule::Priority, Schedule::Fifo}) {
    TwoLayers rig(0, 0, 1, 1, Overlap::Backward, schedule, 1);
    rig.run();
    const auto& d = rig.recorder.deliveries;
    REQUIRE(d.size() >= 2);
    CHECK(d[0].bytes == 1 * MB);
    CHECK(d[0].time == (schedule == Schedule::Priority ? 1 : 2) * ms);
    CHECK(d[1].bytes == 3 * MB);
    CHECK(d[1].time == 4 * ms);
    CHECK(rig.recorder.sends[0].priority == 0);
    CHECK(rig.recorder.sends[1].priority == (schedule == Schedule::Priority ? 1u : 0u));
  }
}

TEST_CASE("full overlap: layer l's forward starts once layer l has arrived", "[ps][overlap][golden]") {
  // f1 = 3, f2 = 1, b2 = 2, b1 = 4 ms; M1 = 1 MB, M2 = 3 MB, B = 1 GB/s. With a round's pull
  // starting at P, layer 1 arrives at a1 and layer 2 at a2 = P + 4 ms (above); then
  //   forward 1: a1 -> a1 + f1; forward 2: max(a1 + f1, a2) -> + f2;
  //   backward 2 ends at e2 = that + b2: push of M2 (3 ms alone, since b1 > M2 / B);
  //   backward 1 ends at e2 + b1: push of M1 (1 ms); the round ends then.
  // Priority: a1 = P + 1: forward 1 ends at P + 4, forward 2 at P + 5, e2 = P + 7, round
  //   ends at P + 7 + 4 + 1 = P + 12.
  // Fifo: a1 = P + 2: P + 5, P + 6, e2 = P + 8, round ends at P + 13.
  // Backward only: the computation starts at P + 4: round P + 4 + 10 + 1 = P + 15.
  // None: P + 4 + 10 + 4 = P + 18.
  struct Case {
    Overlap overlap;
    Schedule schedule;
    TimeNs round;
  };
  for (const Case c : {Case{Overlap::Full, Schedule::Priority, 12 * ms}, Case{Overlap::Full, Schedule::Fifo, 13 * ms},
                       Case{Overlap::Backward, Schedule::Priority, 15 * ms}, Case{Overlap::None, Schedule::Fifo, 18 * ms}}) {
    TwoLayers rig(3, 1, 2, 4, c.overlap, c.schedule, 3);
    rig.run();
    REQUIRE(rig.log.rounds.size() == 3);
    for (const auto& r : rig.log.rounds) CHECK(r.duration == c.round);
  }
}

TEST_CASE("partition_bytes cuts messages, the sums stay", "[ps][overlap]") {
  // 0.5 MB pieces: layer 1 is 2 pieces, layer 2 six; a message still counts whole, so the
  // no-overlap round is the same 16 ms (every piece shares the one link fairly).
  Simulator sim(1);
  auto topology = net::build_star({{"w0", 1 * GBps, 1 * GBps, 0}, {"s0", 1 * GBps, 1 * GBps, 0}});
  net::FlowNetwork network(sim, topology);
  compute::ComputeModel compute(compute::ComputeSpec{}, 1, sim.random());
  PsConfig c;
  c.stop.updates = 2;
  c.flops_per_iteration = 8e9;
  c.partition_bytes = 0.5 * MB;
  c.layers = {{{0, 250'000}, {0, 5}}, {{250'000, 1'000'000}, {0, 3}}};
  PsLayout layout{{topology.node("w0")}, partition_by_bytes(1'000'000, 1), {topology.node("s0")}, std::nullopt};
  Rounds log;
  PsProtocol engine(sim, network, compute, c, layout, std::make_unique<SyncPolicy>(0), &log);
  engine.start();
  sim.run_until_condition([&] { return engine.finished(); });
  CHECK(network.messages() == 5 * 8);  // pulls of versions 0, 1, 2 and two pushes: 8 pieces each
  for (const auto& r : log.rounds) CHECK(r.duration == 16 * ms);
  CHECK(network.bytes_moved(net::ByteAccount::Push) == 2 * 4 * MB);
}

TEST_CASE("all-reduce with overlap: one bucket per layer, reduced as its backward step ends", "[ps][overlap][golden]") {
  // Two workers on a star of 1 GB/s NICs (full duplex), ring all-reduce: a bucket of M
  // bytes takes 2 steps of M / 2 each way, M / B in all. Layers M1 = 1 MB, M2 = 3 MB;
  // bucket_bytes 1 MB: one bucket per layer. f1 = 2, f2 = 1, b2 = 3, b1 = 5 ms.
  // Backward: forward ends at 3; backward 2 ends at 6: bucket 2 reduced 6 -> 9 (alone, as
  //   b1 >= M2 / B); backward 1 ends at 11: bucket 1 reduced 11 -> 12. Round: f1 + f2 + b2
  //   + max(M2 / B, b1) + M1 / B = 12 ms (none: 11 + 4 = 15 ms).
  // Full: layer 1's bucket is the last to arrive, so forward 1 waits for it as a whole
  //   iteration would: 12 ms again (P3's point: the input layer's tensor comes last).
  struct Case {
    Overlap overlap;
    TimeNs round;
  };
  for (const Case c : {Case{Overlap::Backward, 12 * ms}, Case{Overlap::Full, 12 * ms}, Case{Overlap::None, 15 * ms}}) {
    Simulator sim(1);
    auto topology = net::build_star({{"w0", 1 * GBps, 1 * GBps, 0}, {"w1", 1 * GBps, 1 * GBps, 0}});
    net::FlowNetwork network(sim, topology);
    compute::ComputeModel compute(compute::ComputeSpec{}, 2, sim.random());
    PsConfig config;
    config.stop.updates = 3;
    config.flops_per_iteration = 11e9;
    config.overlap = c.overlap;
    config.bucket_bytes = 1 * MB;
    config.layers = {{{0, 250'000}, {2, 5}}, {{250'000, 1'000'000}, {1, 3}}};
    PsLayout layout;
    layout.worker_hosts = {topology.node("w0"), topology.node("w1")};
    layout.all_reduced = AllReducedPart{{{{0, 1'000'000}}, 1'000'000}, collective::AlgorithmKind::Ring, 1, std::nullopt};
    Rounds log;
    PsProtocol engine(sim, network, compute, config, layout, std::make_unique<SyncPolicy>(0), &log);
    engine.start();
    sim.run_until_condition([&] { return engine.finished(); });
    REQUIRE(log.rounds.size() == 3);
    for (const auto& r : log.rounds) CHECK(r.duration == c.round);
    CHECK(network.bytes_moved(net::ByteAccount::Push) == network.bytes_moved(net::ByteAccount::Pull));
  }
}

TEST_CASE("async and ssp with backward overlap: one gradient per push, the bound holds", "[ps][overlap]") {
  // 4 workers of lognormal speeds, 3 shards over 3 layers cut across them (by bytes), small
  // pieces: a push is whole only when its last piece is in, so async applies exactly one
  // gradient per update, and SSP never lets a worker start more than s clocks ahead.
  struct Lead : protocol::Observer {
    std::int64_t rounds = 0, bound = 0, worst = 0;
    std::vector<protocol::UpdateRecord> updates;
    void on_round(const protocol::RoundRecord& r) override { rounds = r.round + 1; }
    void on_update(const protocol::UpdateRecord& u) override { updates.push_back(u); }
    void on_compute_start(std::int64_t, std::int64_t c) override { worst = std::max(worst, c - rounds); }
  };
  for (const bool ssp : {false, true}) {
    Simulator sim(3);
    std::vector<net::HostSpec> hosts;
    for (int i = 0; i < 4; ++i) hosts.push_back({"w" + std::to_string(i), 1 * GBps, 1 * GBps, 5'000});
    for (int j = 0; j < 3; ++j) hosts.push_back({"s" + std::to_string(j), 1 * GBps, 1 * GBps, 5'000});
    auto topology = net::build_star(hosts);
    net::FlowNetwork network(sim, topology);
    compute::ComputeSpec spec;
    spec.speed = compute::ComputeSpec::Speed::Lognormal;
    spec.sigma = 0.6;
    compute::ComputeModel compute(spec, 4, sim.random());
    PsConfig c;
    c.stop.updates = 12;
    c.flops_per_iteration = 2e9;
    c.overlap = Overlap::Backward;
    c.partition_bytes = 100'000;
    c.layers = {{{0, 100'000}, {1, 2}}, {{100'000, 400'000}, {2, 4}}, {{400'000, 600'000}, {1, 2}}};
    PsLayout layout;
    for (int i = 0; i < 4; ++i) layout.worker_hosts.push_back(topology.node("w" + std::to_string(i)));
    layout.shards = partition_by_bytes(600'000, 3);
    for (int j = 0; j < 3; ++j) layout.shard_hosts.push_back(topology.node("s" + std::to_string(j)));
    Lead lead;
    std::unique_ptr<SchemePolicy> policy;
    if (ssp)
      policy = std::make_unique<SspPolicy>(1);
    else
      policy = std::make_unique<AsyncPolicy>();
    PsProtocol engine(sim, network, compute, c, layout, std::move(policy), &lead);
    engine.start();
    sim.run_until_condition([&] { return engine.finished(); });
    REQUIRE(engine.finished());
    INFO((ssp ? "ssp" : "async"));
    if (ssp) {
      CHECK(lead.worst <= 1);
      CHECK(lead.worst == 1);  // the bound binds with these speeds
    } else {
      for (const auto& u : lead.updates) CHECK(u.gradients == 1);
    }
    // Every shard applied at least 12 pushes of its 200,000 parameters (800 kB), each of
    // which crossed the links whole, as pieces of at most 100 kB.
    CHECK(network.bytes_moved(net::ByteAccount::Push) >= 3 * 12 * 0.8 * MB);
  }
}
