// FlowNetwork with framing (NetworkModel::framing): a message of b bytes puts b / f bytes
// on the wire, under both models. Closed forms on a star of hosts (route h_i -> h_j: h_i's
// up link, then h_j's down), solved by hand in each comment.
#include <catch2/catch.hpp>

#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"
#include "tests/support/delivery_recorder.hpp"

using namespace pssim;
using namespace pssim::net;

namespace {

using Recorder = pssim::testing::DeliveryRecorder;

constexpr double MB = 1e6;
constexpr double B = 125e6;  // 1 Gbps
constexpr TimeNs kLat = 20 * kMicrosecond;
constexpr double kEthernet = 1448.0 / 1538.0;  // MTU 1500, IPv4 + TCP timestamps

TimeNs ns(double seconds) { return seconds_to_ns(seconds); }

Topology star(int hosts) {
  std::vector<HostSpec> specs;
  for (int i = 0; i < hosts; ++i) specs.push_back({"h" + std::to_string(i), B, B, kLat});
  return build_star(specs);
}

NetworkModel maxmin(double framing) {
  NetworkModel m;
  m.framing = framing;
  return m;
}

}  // namespace

TEST_CASE("ethernet framing: payload per wire byte", "[flow_network][framing]") {
  // 1500 - 52 = 1448 bytes of payload per 1500 + 38 = 1538 on the wire.
  CHECK(ethernet_framing(1500) == kEthernet);
  CHECK(ethernet_framing(9000) == 8948.0 / 9038.0);
  CHECK(ethernet_framing(1500, 40) == 1460.0 / 1538.0);  // no TCP timestamps
}

TEST_CASE("maxmin with framing f: one flow of M bytes takes M / (f B)", "[flow_network][framing]") {
  // 8 MB over 1 Gbps at f = 1448/1538: 8e6 x 1538 / 1448 / 125e6 = 67.978 ms after the
  // 40 us of the route; without framing 64 ms.
  for (const double f : {1.0, kEthernet, 0.5}) {
    Simulator sim;
    const Topology t = star(2);
    FlowNetwork net(sim, t, maxmin(f));
    Recorder rec(&sim);
    net.send(t.node("h0"), t.node("h1"), 8 * MB, &rec, 1);
    sim.run();
    CHECK(rec.arrived.at(1) == 2 * kLat + ns(8 * MB / (f * B)));
    // The links count wire bytes; bytes_moved the payload.
    net.finish();
    const ResourceId up = t.direction(t.access_link(t.node("h0")), t.node("h0"));
    CHECK(net.resource_bytes()[up] == 8 * MB / f);
    CHECK(net.bytes_moved() == Approx(8 * MB).epsilon(1e-12));  // x f / f: one rounding
  }
}

TEST_CASE("maxmin with framing: fan-in of N flows into one NIC takes N M / (f B)", "[flow_network][framing]") {
  // h1..h4 each send 2 MB to h0: h0's downlink carries 4 x 2 MB / f at B; all end
  // together at 40 us + 8 MB / (f B) = 40 us + 67.978 ms.
  Simulator sim;
  const Topology t = star(5);
  FlowNetwork net(sim, t, maxmin(kEthernet));
  Recorder rec(&sim);
  for (int i = 1; i <= 4; ++i) net.send(t.node("h" + std::to_string(i)), t.node("h0"), 2 * MB, &rec, i);
  sim.run();
  for (int i = 1; i <= 4; ++i) CHECK(rec.arrived.at(i) == 2 * kLat + ns(8 * MB / (kEthernet * B)));
}

TEST_CASE("tcp with framing: the framing and the bandwidth factor multiply", "[flow_network][framing][tcp]") {
  // Defaults but the window and RTT weights, alone on the path (ACKs on the other
  // directions): 13.01 x 40 us = 520.4 us, then 8 MB / (f x 0.97 x B) = 70.080 ms.
  NetworkModel m = maxmin(kEthernet);
  m.kind = NetworkModel::Kind::Tcp;
  Simulator sim;
  const Topology t = star(2);
  FlowNetwork net(sim, t, m);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 8 * MB, &rec, 1);
  sim.run();
  CHECK(rec.arrived.at(1) == 520'400 + ns(8 * MB / (kEthernet * 0.97 * B)));
}

TEST_CASE("tcp with framing and bandwidth factor 1: the framing alone", "[flow_network][framing][tcp]") {
  // Opposite flows h0 <-> h1 each carry the other's ACKs (0.05 of its rate): x = B / 1.05,
  // payload f x: 4 MB x 1.05 / (f B) = 35.682 ms after 520.4 us.
  NetworkModel m = maxmin(kEthernet);
  m.kind = NetworkModel::Kind::Tcp;
  m.tcp.bandwidth_factor = 1.0;
  Simulator sim;
  const Topology t = star(2);
  FlowNetwork net(sim, t, m);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 4 * MB, &rec, 1);
  net.send(t.node("h1"), t.node("h0"), 4 * MB, &rec, 2);
  sim.run();
  CHECK(rec.arrived.at(1) == 520'400 + ns(4 * MB * 1.05 / (kEthernet * B)));
  CHECK(rec.arrived.at(2) == rec.arrived.at(1));
}

TEST_CASE("a framing of 0 or above 1 is refused", "[flow_network][framing]") {
  Simulator sim;
  const Topology t = star(2);
  CHECK_THROWS_AS(FlowNetwork(sim, t, maxmin(0.0)), std::invalid_argument);
  CHECK_THROWS_AS(FlowNetwork(sim, t, maxmin(1.5)), std::invalid_argument);
  CHECK_NOTHROW(FlowNetwork(sim, t, maxmin(1.0)));
}
