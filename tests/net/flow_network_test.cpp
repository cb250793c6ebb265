#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"
#include "tests/support/delivery_recorder.hpp"

using namespace pssim;
using namespace pssim::net;

namespace {

using Recorder = pssim::testing::DeliveryRecorder;

std::vector<HostSpec> hosts(int n, double bandwidth, TimeNs latency, const std::string& prefix = "h") {
  std::vector<HostSpec> out;
  for (int i = 0; i < n; ++i) out.push_back({prefix + std::to_string(i), bandwidth, bandwidth, latency});
  return out;
}

constexpr double MB = 1e6;
constexpr double GBps = 1e9;

// A message sent later: events capture one pointer, so the send's arguments live here.
struct LaterSend {
  FlowNetwork* net;
  NodeId from, to;
  double bytes;
  Recorder* rec;
  std::uint64_t tag;
  void at(Simulator& sim, TimeNs time) {
    sim.schedule_at(time, [this] { net->send(from, to, bytes, rec, tag); });
  }
};

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
  LaterSend later{&net, t.node("c"), t.node("r"), 1 * MB, &rec, 2};
  later.at(sim, 4'000'000);
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
  REQUIRE(net.link_utilization().bins() == 2);
  CHECK(net.link_utilization().at(0, 0) == Approx(1.0).epsilon(1e-6));
  CHECK(net.link_utilization().at(1, 0) == Approx(0.5).epsilon(1e-6));
  CHECK(net.resource_bytes()[up] == 1.5 * MB);
}

TEST_CASE("utilization follows every rate change, within and across bins", "[flow_network]") {
  // NICs of 1 GB/s, no latency. A: h0 -> h2, 1.5 MB from 0; B: h1 -> h2, 1 MB from 0.5 ms.
  // 0 - 0.5 ms: A alone at 1 GB/s (0.5 MB). Then h2's downlink is shared: 0.5 GB/s each;
  // both have 1 MB left and end at 2.5 ms. Bins of 1 ms, in GB/s-ms per ms:
  //   h0 up:   [0,1) 0.5 + 0.25 = 0.75, [1,2) 0.5, [2,3) 0.25
  //   h1 up:   [0,1) 0.25,              [1,2) 0.5, [2,3) 0.25
  //   h2 down: [0,1) 1,                 [1,2) 1,   [2,3) 0.5
  Simulator sim;
  const Topology t = build_star(hosts(3, 1 * GBps, 0));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  const auto route_a = t.route(t.node("h0"), t.node("h2")).resources;
  const auto route_b = t.route(t.node("h1"), t.node("h2")).resources;
  net.record_utilization(kMillisecond, {route_a[0], route_b[0], route_a[1]});
  net.send(t.node("h0"), t.node("h2"), 1.5 * MB, &rec, 0);
  LaterSend later{&net, t.node("h1"), t.node("h2"), 1 * MB, &rec, 1};
  later.at(sim, 500'000);
  sim.run_until(3 * kMillisecond);
  net.finish();
  CHECK(rec.arrived.at(0) == 2'500'000);
  CHECK(rec.arrived.at(1) == 2'500'000);
  const auto& u = net.link_utilization();
  REQUIRE(u.bins() == 3);
  const double expected[3][3] = {{0.75, 0.25, 1.0}, {0.5, 0.5, 1.0}, {0.25, 0.25, 0.5}};
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t i = 0; i < 3; ++i) CHECK(u.at(b, i) == Approx(expected[b][i]).margin(1e-6));
}

TEST_CASE("utilization of links crossed by a group follows the group's level", "[flow_network]") {
  // h0, h1, h2 and s (10 GB/s NICs) send to r (1 GB/s down), 1 MB each from h0-h2 at 0, and
  // 0.5 MB from s at 1.5 ms; h0 also sends 1 MB to s. r's downlink is the bottleneck of its
  // group: level 1/3 GB/s, then 1/4 when s joins (each old member has 0.5 MB left then, so
  // all four end at 1.5 + 0.5 / 0.25 = 3.5 ms). h0 -> s runs at 10 - 1/3 GB/s (h0's NIC) and
  // ends at 0.1 ms. In 1 ms bins, h1's uplink (capacity 10 GB/s) carries
  //   [0,1) 1/3 GB/s, [1,2) (0.5/3 + 0.5/4) GB/s, [2,3) 1/4, [3,4) 0.5/4,
  // and r's downlink is full until 3.5 ms.
  Simulator sim;
  auto h = hosts(3, 10 * GBps, 0);
  h.push_back({"r", 10 * GBps, 1 * GBps, 0});
  h.push_back({"s", 10 * GBps, 10 * GBps, 0});
  const Topology t = build_star(h);
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  const ResourceId h1_up = t.route(t.node("h1"), t.node("r")).resources[0];
  const ResourceId r_down = t.route(t.node("h1"), t.node("r")).resources[1];
  net.record_utilization(kMillisecond, {h1_up, r_down});
  for (int i = 0; i < 3; ++i) net.send(t.node("h" + std::to_string(i)), t.node("r"), 1 * MB, &rec, i);
  net.send(t.node("h0"), t.node("s"), 1 * MB, &rec, 3);
  LaterSend later{&net, t.node("s"), t.node("r"), 0.5 * MB, &rec, 4};
  later.at(sim, 1'500'000);
  sim.run_until(4 * kMillisecond);
  net.finish();
  for (int i : {0, 1, 2, 4}) CHECK(rec.arrived.at(i) == 3'500'000);
  const auto& u = net.link_utilization();
  REQUIRE(u.bins() == 4);
  const double h1[4] = {1.0 / 3, 0.5 / 3 + 0.5 / 4, 1.0 / 4, 0.5 / 4};
  const double r[4] = {1, 1, 1, 0.5};
  for (std::size_t b = 0; b < 4; ++b) {
    CHECK(u.at(b, 0) == Approx(h1[b] / 10).margin(1e-7));
    CHECK(u.at(b, 1) == Approx(r[b]).margin(1e-7));
  }
}

namespace {

// A random workload over a two-tier network: `messages` messages between random hosts at
// random times with random sizes. Returns the network after finish().
struct RandomRun {
  Simulator sim{1};
  Topology topology;
  std::unique_ptr<FlowNetwork> net;
  Recorder rec{&sim};
  std::vector<std::tuple<TimeNs, NodeId, NodeId, double>> plan;
  std::size_t next = 0;

  RandomRun(std::uint64_t seed, int messages, TimeNs bin, std::size_t max_values) {
    std::vector<HostSpec> h;
    std::vector<int> rack_of;
    for (int i = 0; i < 12; ++i) {
      h.push_back({"h" + std::to_string(i), (1 + i % 3) * GBps, (1 + i % 4) * 0.5 * GBps, (i % 2) * kMicrosecond});
      rack_of.push_back(i % 3);
    }
    topology = build_two_tier(h, rack_of, 3, 2.0, kMicrosecond);
    net = std::make_unique<FlowNetwork>(sim, topology);
    std::vector<ResourceId> all(topology.resource_count());
    for (ResourceId r = 0; r < all.size(); ++r) all[r] = r;
    net->record_utilization(bin, all, max_values);
    std::uint64_t x = seed;
    const auto draw = [&x](std::uint64_t n) {  // SplitMix64: a test needs no more
      x += 0x9e3779b97f4a7c15ull;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return (z ^ (z >> 31)) % n;
    };
    for (int m = 0; m < messages; ++m) {
      const NodeId a = topology.node("h" + std::to_string(draw(12)));
      const NodeId b = topology.node("h" + std::to_string(draw(12)));
      plan.emplace_back(static_cast<TimeNs>(draw(20'000'000)), a, b, static_cast<double>(1 + draw(3'000'000)));
    }
    std::sort(plan.begin(), plan.end());
    for (std::size_t i = 0; i < plan.size(); ++i)
      sim.schedule_at(std::get<0>(plan[i]), [this] { send_next(); });
    sim.run();
    net->finish();
  }
  void send_next() {
    const auto& [time, a, b, bytes] = plan[next];
    net->send(a, b, bytes, &rec, next++);
  }
};

}  // namespace

TEST_CASE("utilization of random traffic adds up to the bytes carried", "[flow_network]") {
  // Every link direction recorded; every bin's utilization within [0, 1] (up to 1e-5: a
  // flow's end is rounded to the nanosecond, so a bin may count up to 1 ns of transfer
  // per flow ending in it that the flow never made), and over the run
  // sum(utilization x capacity x bin width) = the bytes the direction carried.
  RandomRun run(7, 300, 250 * kMicrosecond, UtilizationSeries::kDefaultMaxValues);
  const auto& u = run.net->link_utilization();
  const TimeNs end = run.sim.now();
  REQUIRE(u.bins() == static_cast<std::size_t>((end + u.bin() - 1) / u.bin()));
  for (std::size_t i = 0; i < u.links(); ++i) {
    const ResourceId r = run.net->recorded_resources()[i];
    double bytes = 0;
    for (std::size_t b = 0; b < u.bins(); ++b) {
      CHECK(u.at(b, i) >= 0.f);
      CHECK(u.at(b, i) <= 1.f + 1e-5f);
      const TimeNs width = std::min(u.bin(), end - u.bin_start(b));
      bytes += u.at(b, i) * run.topology.capacity(r) * to_seconds(width);
    }
    CHECK(bytes == Approx(run.net->resource_bytes()[r]).epsilon(1e-5).margin(1.0));
  }
}

TEST_CASE("a capped utilization series merges bins and keeps the whole run", "[flow_network]") {
  // The same traffic recorded in 250 us bins without limit and with room for few bins:
  // the capped series has bins 2^k times wider, each the mean of the fine ones it covers.
  RandomRun fine(11, 200, 250 * kMicrosecond, UtilizationSeries::kDefaultMaxValues);
  const std::size_t links = fine.net->recorded_resources().size();
  RandomRun coarse(11, 200, 250 * kMicrosecond, 21 * links);
  const auto& f = fine.net->link_utilization();
  const auto& c = coarse.net->link_utilization();
  REQUIRE(c.merges() > 0);
  const std::size_t k = std::size_t{1} << c.merges();
  CHECK(c.bin() == f.bin() * static_cast<TimeNs>(k));
  CHECK(c.bins() <= 21);
  REQUIRE(c.bins() == (f.bins() + k - 1) / k);
  for (std::size_t b = 0; b + 1 < c.bins(); ++b)  // the last coarse bin was never merged
    for (std::size_t i = 0; i < links; ++i) {
      double mean = 0;
      for (std::size_t j = 0; j < k; ++j) mean += f.at(b * k + j, i);
      CHECK(c.at(b, i) == Approx(mean / static_cast<double>(k)).margin(1e-6));
    }
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

TEST_CASE("bytes moved: per account, what crossed links so far, nothing for a local message", "[flow_network]") {
  // h0 sends 10 MB to h1 at 1 GB/s (Push) and 2 MB to itself (Pull); h1 sends 1 MB to h0
  // (Pull). At 4 ms: 4 MB of the first moved, the 1 MB one arrived at 1 ms, the local one
  // crossed nothing. At the end: 10 MB and 1 MB.
  Simulator sim;
  const Topology t = build_star(hosts(2, 1 * GBps, 0));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 10 * MB, &rec, 0, {.account = ByteAccount::Push});
  net.send(t.node("h0"), t.node("h0"), 2 * MB, &rec, 1, {.account = ByteAccount::Pull});
  net.send(t.node("h1"), t.node("h0"), 1 * MB, &rec, 2, {.account = ByteAccount::Pull});
  sim.run_until(4 * kMillisecond);
  CHECK(rec.arrived.count(1) == 1);  // delivered, having crossed no link
  CHECK(net.bytes_moved(ByteAccount::Push) == Approx(4 * MB).epsilon(1e-9));
  CHECK(net.bytes_moved(ByteAccount::Pull) == 1 * MB);
  sim.run();
  net.finish();
  CHECK(net.bytes_moved(ByteAccount::Push) == 10 * MB);
  CHECK(net.bytes_moved() == 11 * MB);
  const ResourceId up0 = t.route(t.node("h0"), t.node("h1")).resources[0];
  const ResourceId up1 = t.route(t.node("h1"), t.node("h0")).resources[0];
  CHECK(net.resource_bytes()[up0] + net.resource_bytes()[up1] == net.bytes_moved());
}

TEST_CASE("messages starting together, sent back to back, start in one event counted as each",
          "[flow_network]") {
  // h0 -> h1 and h2 -> h3 (disjoint links), 1.25 MB at 1.25 GB/s: 1 ms after 40 us.
  Simulator sim;
  const Topology t = build_star(hosts(4, 1.25 * GBps, 20 * kMicrosecond));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 1.25 * MB, &rec, 1);
  net.send(t.node("h2"), t.node("h3"), 1.25 * MB, &rec, 2);
  CHECK(sim.pending() == 1);  // one start event for both
  // An event scheduled in between closes the batch: it must see the first flow started
  // and not the next one, as with an event per message.
  struct Probe {
    FlowNetwork* net;
    std::size_t seen = 0;
  } probe{&net};
  auto* p = &probe;
  sim.schedule_at(40'000, [p] { p->seen = p->net->active_flows(); });
  net.send(t.node("h1"), t.node("h0"), 1.25 * MB, &rec, 3);
  CHECK(sim.pending() == 3);
  sim.run();
  CHECK(probe.seen == 2);
  for (std::uint64_t tag : {1, 2, 3}) CHECK(rec.arrived.at(tag) == 40'000 + 1'000'000);
  // Per message a start, then one solve after the three (run in line or as an event: it
  // counts once either way), the probe, and one completion for the three equal flows.
  CHECK(sim.events_executed() == 3 + 1 + 1 + 1);
  CHECK(net.flows() == 3);
}
