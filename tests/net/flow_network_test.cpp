#include <map>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"

using namespace pssim;
using namespace pssim::net;

namespace {

// Records when each tagged message arrived.
struct Recorder : MessageSink {
  Simulator* sim;
  std::map<std::uint64_t, TimeNs> arrived;
  explicit Recorder(Simulator* s) : sim(s) {}
  void on_delivered(std::uint64_t tag) override { arrived[tag] = sim->now(); }
};

std::vector<HostSpec> hosts(int n, double bandwidth, TimeNs latency, const std::string& prefix = "h") {
  std::vector<HostSpec> out;
  for (int i = 0; i < n; ++i) out.push_back({prefix + std::to_string(i), bandwidth, bandwidth, latency});
  return out;
}

constexpr double MB = 1e6;
constexpr double GBps = 1e9;

}  // namespace

TEST_CASE("one flow takes latency + M / B", "[flow_network]") {
  // 4.8 MB over 1.25 GB/s = 3.84 ms; latency 20 us on each of the two links: 40 us.
  Simulator sim;
  const Topology t = build_star(hosts(2, 1.25 * GBps, 20 * kMicrosecond));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 4.8 * MB, &rec, 7);
  sim.run();
  CHECK(rec.arrived.at(7) == 40'000 + 3'840'000);
  CHECK(net.flows() == 1);
}

TEST_CASE("N-way fan-in at a server downlink takes N * M / B", "[flow_network]") {
  // 8 senders with 10 GB/s NICs, receiver NIC 1 GB/s, 1 MB each, no latency:
  // the receiver's downlink is shared 8 ways; all finish together at 8 * 1 ms.
  Simulator sim;
  auto h = hosts(8, 10 * GBps, 0);
  h.push_back({"server", 1 * GBps, 1 * GBps, 0});
  const Topology t = build_star(h);
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  for (int i = 0; i < 8; ++i) net.send(t.node("h" + std::to_string(i)), t.node("server"), 1 * MB, &rec, i);
  sim.run();
  for (int i = 0; i < 8; ++i) CHECK(rec.arrived.at(i) == 8'000'000);
  CHECK(net.resource_bytes()[t.route(t.node("h0"), t.node("server")).resources[1]] == 8 * MB);
}

TEST_CASE("fan-out from a server uplink takes N * M / B", "[flow_network]") {
  Simulator sim;
  auto h = hosts(5, 10 * GBps, 0);
  h.push_back({"server", 2.5 * GBps, 2.5 * GBps, 0});
  const Topology t = build_star(h);
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  for (int i = 0; i < 5; ++i) net.send(t.node("server"), t.node("h" + std::to_string(i)), 3 * MB, &rec, i);
  sim.run();
  // 5 x 3 MB through 2.5 GB/s: 6 ms.
  for (int i = 0; i < 5; ++i) CHECK(rec.arrived.at(i) == 6'000'000);
}

TEST_CASE("heterogeneous capacities and staggered starts", "[flow_network]") {
  // Receiver downlink 3 GB/s. Sender A (1 GB/s NIC) and B (10 GB/s) each send 6 MB at t=0.
  // Max-min: A is held by its own NIC at 1 GB/s, B gets 3 - 1 = 2 GB/s.
  // B finishes at 3 ms (6 MB / 2 GB/s). A has sent 3 MB by then and keeps 1 GB/s
  // (its NIC): it finishes at 6 ms. Sender C (10 GB/s) starts 1 MB at 4 ms: the
  // downlink has 3 - 1 = 2 GB/s for it, so it ends at 4.5 ms.
  Simulator sim;
  const Topology t = build_star({{"a", 1 * GBps, 1 * GBps, 0}, {"b", 10 * GBps, 10 * GBps, 0},
                                 {"c", 10 * GBps, 10 * GBps, 0}, {"r", 3 * GBps, 3 * GBps, 0}});
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  net.send(t.node("a"), t.node("r"), 6 * MB, &rec, 0);
  net.send(t.node("b"), t.node("r"), 6 * MB, &rec, 1);
  struct Later {
    FlowNetwork* net;
    const Topology* t;
    Recorder* rec;
    void go() { net->send(t->node("c"), t->node("r"), 1 * MB, rec, 2); }
  } later{&net, &t, &rec};
  sim.schedule_at(4'000'000, [l = &later] { l->go(); });
  sim.run();
  CHECK(rec.arrived.at(1) == 3'000'000);
  CHECK(rec.arrived.at(2) == 4'500'000);
  CHECK(rec.arrived.at(0) == 6'000'000);
}

TEST_CASE("textbook max-min over two links, timed", "[flow_network]") {
  // Hosts x -> y crosses x up and y down. Flow 0: x -> y (2 MB); flow 1: x -> z (2 MB);
  // flow 2: w -> y (4 MB). Capacities: x up 1 GB/s, y down 2 GB/s, others 10 GB/s.
  // x up is shared by flows 0 and 1: 0.5 GB/s each. y down: flow 0 at 0.5, flow 2 gets 1.5.
  // At 2.666.. ms flow 2 (4 MB at 1.5) ends? No: flows 0/1 end at 4 ms (2 MB at 0.5);
  // flow 2 has moved 1.5 GB/s * 2.6667 ms = 4 MB at 2.666667 ms: it ends first.
  // Then flow 0 still 0.5 (x up shared with flow 1): both end at 4 ms.
  Simulator sim;
  const Topology t = build_star({{"x", 1 * GBps, 10 * GBps, 0}, {"y", 10 * GBps, 2 * GBps, 0},
                                 {"z", 10 * GBps, 10 * GBps, 0}, {"w", 10 * GBps, 10 * GBps, 0}});
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  net.send(t.node("x"), t.node("y"), 2 * MB, &rec, 0);
  net.send(t.node("x"), t.node("z"), 2 * MB, &rec, 1);
  net.send(t.node("w"), t.node("y"), 4 * MB, &rec, 2);
  sim.run();
  CHECK(rec.arrived.at(2) == 2'666'667);  // 4 MB / 1.5 GB/s, to the nearest ns
  CHECK(rec.arrived.at(0) == 4'000'000);
  CHECK(rec.arrived.at(1) == 4'000'000);
}

TEST_CASE("local and empty messages arrive after the latency alone", "[flow_network]") {
  Simulator sim;
  const Topology t = build_star(hosts(2, 1 * GBps, 5 * kMicrosecond));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h0"), 1 * MB, &rec, 1);
  net.send(t.node("h0"), t.node("h1"), 0, &rec, 2);
  sim.run();
  CHECK(rec.arrived.at(1) == 0);
  CHECK(rec.arrived.at(2) == 10'000);
  CHECK(net.flows() == 0);
  CHECK_THROWS_AS(net.send(t.node("h0"), t.node("h1"), -1, &rec, 3), std::invalid_argument);
}

TEST_CASE("link utilization is recorded in exact bins", "[flow_network]") {
  // One 1.5 MB flow at 1 GB/s from t = 0: busy for 1.5 ms. Bins of 1 ms: 100%, then 50%.
  Simulator sim;
  const Topology t = build_star(hosts(2, 1 * GBps, 0));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  const ResourceId up = t.route(t.node("h0"), t.node("h1")).resources[0];
  net.record_utilization(kMillisecond, {up});
  net.send(t.node("h0"), t.node("h1"), 1.5 * MB, &rec, 0);
  sim.run_until(2 * kMillisecond);
  net.finish();
  REQUIRE(net.link_utilization().size() == 2);
  CHECK(net.link_utilization()[0][0] == Approx(1.0).epsilon(1e-6));
  CHECK(net.link_utilization()[1][0] == Approx(0.5).epsilon(1e-6));
  CHECK(net.resource_bytes()[up] == 1.5 * MB);
}

TEST_CASE("bytes in flight are counted at finish", "[flow_network]") {
  Simulator sim;
  const Topology t = build_star(hosts(2, 1 * GBps, 0));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 10 * MB, &rec, 0);
  sim.run_until(4 * kMillisecond);
  net.finish();
  const ResourceId up = t.route(t.node("h0"), t.node("h1")).resources[0];
  CHECK(net.resource_bytes()[up] == Approx(4 * MB).epsilon(1e-9));
  CHECK(rec.arrived.empty());
}
