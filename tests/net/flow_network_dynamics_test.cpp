// FlowNetwork under change: capacities that change mid-flow (link degradation, failure
// and repair) and messages cancelled when a host goes down. Expectations solved by hand.
#include <cmath>
#include <map>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"
#include "tests/support/delivery_recorder.hpp"

using namespace pssim;
using namespace pssim::net;

namespace {

using Recorder = pssim::testing::DeliveryRecorder;

std::vector<HostSpec> hosts(int n, double bandwidth, TimeNs latency) {
  std::vector<HostSpec> out;
  for (int i = 0; i < n; ++i) out.push_back({"h" + std::to_string(i), bandwidth, bandwidth, latency});
  return out;
}

constexpr double MB = 1e6;
constexpr double B = 1.25e9;  // bytes/s (10 Gbps)

// A capacity change at a later time: events capture one pointer.
struct LaterCapacity {
  FlowNetwork* net;
  ResourceId r;
  double capacity;
  void at(Simulator& sim, TimeNs t) {
    sim.schedule_at(t, [this] { net->set_capacity(r, capacity); });
  }
};

ResourceId uplink(const Topology& t, const char* host) { return t.direction(t.access_link(t.node(host)), t.node(host)); }

}  // namespace

TEST_CASE("a flow whose link halves at t0 ends at t0 + (M - B t0) / (B / 2)", "[flow_network][dynamics]") {
  // One flow of M bytes alone on h0's uplink (capacity B, no latency): by t0 it moved B t0
  // bytes; the rest, M - B t0, moves at the new capacity B / 2. M = 10 MB, t0 = 2 ms:
  // 2.5 MB moved, 7.5 MB at 0.625 GB/s = 12 ms more: 14 ms.
  Simulator sim;
  const Topology t = build_star(hosts(2, B, 0));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  const double M = 10 * MB;
  const TimeNs t0 = 2 * kMillisecond;
  const ResourceId up = uplink(t, "h0");
  net.send(t.node("h0"), t.node("h1"), M, &rec, 1);
  LaterCapacity halve{&net, up, B / 2};
  halve.at(sim, t0);
  sim.run();
  const double expected = to_seconds(t0) + (M - B * to_seconds(t0)) / (B / 2);
  CHECK(std::abs(to_seconds(rec.arrived.at(1)) - expected) <= 1e-9);
  CHECK(expected == Approx(0.014));
  CHECK(net.capacity(up) == B / 2);
}

TEST_CASE("a failed link stalls its flows until it comes back", "[flow_network][dynamics]") {
  // 10 MB at B: 2.5 MB by 2 ms; capacity 0 from 2 ms to 5 ms (nothing moves); the 7.5 MB
  // left take 6 ms from 5 ms: 11 ms. The other direction's flow is not affected: 8 ms.
  Simulator sim;
  const Topology t = build_star(hosts(2, B, 0));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  const ResourceId up = uplink(t, "h0");
  net.send(t.node("h0"), t.node("h1"), 10 * MB, &rec, 1);
  net.send(t.node("h1"), t.node("h0"), 10 * MB, &rec, 2);
  LaterCapacity fail{&net, up, 0}, repair{&net, up, B};
  fail.at(sim, 2 * kMillisecond);
  repair.at(sim, 5 * kMillisecond);
  sim.run();
  CHECK(rec.arrived.at(1) == 11 * kMillisecond);
  CHECK(rec.arrived.at(2) == 8 * kMillisecond);
}

TEST_CASE("utilization divides by the capacity integrated over time", "[flow_network][dynamics]") {
  // The flow of the halving test keeps h0's uplink full all along: every bin is at 1.0,
  // although the link carried 3.75 MB in the first 4 ms bin, 0.75 of its nominal 5 MB.
  // Over the run (14 ms): 10 MB over 2.5 MB + 7.5 MB of capacity-seconds = 1.0.
  Simulator sim;
  const Topology t = build_star(hosts(2, B, 0));
  FlowNetwork net(sim, t);
  const ResourceId up = uplink(t, "h0");
  net.record_utilization(4 * kMillisecond, {up});
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 10 * MB, &rec, 1);
  LaterCapacity halve{&net, up, B / 2};
  halve.at(sim, 2 * kMillisecond);
  sim.run();
  net.finish();
  const auto& series = net.link_utilization();
  REQUIRE(series.bins() == 4);  // 0-4, 4-8, 8-12, 12-14 ms
  for (std::size_t b = 0; b < series.bins(); ++b) CHECK(series.at(b, 0) == Approx(1.0).epsilon(1e-6));
  CHECK(net.capacity_changed(up));
  CHECK(net.capacity_seconds(up) == Approx(10 * MB));
  CHECK(net.resource_bytes()[up] / net.capacity_seconds(up) == Approx(1.0));
}

TEST_CASE("cancelling a host's messages frees their share at once", "[flow_network][dynamics]") {
  // h0 and h1 each send 10 MB to h2: they share h2's downlink at B/2. At 4 ms h1 goes
  // down: its flow (2.5 MB moved) is withdrawn; h0's 7.5 MB left move at B: 6 ms, so it
  // arrives at 10 ms. h1's message is never delivered and its sink hears of it at 4 ms.
  Simulator sim;
  const Topology t = build_star(hosts(3, B, 0));
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h2"), 10 * MB, &rec, 1);
  net.send(t.node("h1"), t.node("h2"), 10 * MB, &rec, 2);
  struct Down {
    FlowNetwork* net;
    NodeId host;
    std::size_t cancelled = 0;
  } down{&net, t.node("h1")};
  sim.schedule_at(4 * kMillisecond, [d = &down] { d->cancelled = d->net->cancel_host(d->host); });
  sim.run();
  net.finish();
  CHECK(down.cancelled == 1);
  CHECK(rec.arrived.at(1) == 10 * kMillisecond);
  CHECK(rec.arrived.count(2) == 0);
  CHECK(rec.cancelled.at(2) == 4 * kMillisecond);
  CHECK(net.resource_bytes()[uplink(t, "h1")] == Approx(2.5 * MB));
  CHECK(net.bytes_moved() == Approx(12.5 * MB));  // all of h0's, what h1's moved before the cancel
  CHECK(net.active_flows() == 0);
}

TEST_CASE("a message cancelled during its latency never starts", "[flow_network][dynamics]") {
  // Latency 1 ms per link (2 ms end to end); cancelled at 0.5 ms by its sink.
  Simulator sim;
  const Topology t = build_star(hosts(2, B, kMillisecond));
  FlowNetwork net(sim, t);
  Recorder rec(&sim), other(&sim);
  net.send(t.node("h0"), t.node("h1"), 1 * MB, &rec, 1);
  net.send(t.node("h0"), t.node("h1"), 1 * MB, &other, 2);
  struct Cancel {
    FlowNetwork* net;
    Recorder* sink;
  } c{&net, &rec};
  sim.schedule_at(kMillisecond / 2, [c = &c] { c->net->cancel_sink(c->sink); });
  sim.run();
  CHECK(rec.arrived.empty());
  CHECK(rec.cancelled.at(1) == kMillisecond / 2);
  // The other message had the link to itself: 2 ms + 1 MB / B = 2.8 ms.
  CHECK(other.arrived.at(2) == 2'800'000);
  CHECK(net.flows() == 1);
}
