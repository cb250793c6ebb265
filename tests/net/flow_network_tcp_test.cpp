// FlowNetwork with the tcp model (LV08) and with priority classes: each TCP factor alone,
// solved by hand, on a star of hosts (route h_i -> h_j: h_i's up link, then h_j's down).
#include <map>

#include <catch2/catch.hpp>

#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"
#include "tests/support/delivery_recorder.hpp"

using namespace pssim;
using namespace pssim::net;

namespace {

using Recorder = pssim::testing::DeliveryRecorder;

constexpr double MB = 1e6;
constexpr double B = 1.25e9;  // 10 Gbps
constexpr TimeNs kLat = 20 * kMicrosecond;

// Every factor neutral: the tcp model is then max-min with weights 1 / route latency.
NetworkModel neutral() {
  NetworkModel m;
  m.kind = NetworkModel::Kind::Tcp;
  m.tcp = {1.0, 1.0, 0.0, 0.0, 0.0};
  return m;
}

Topology two_hosts(TimeNs latency = kLat) { return build_star({{"h0", B, B, latency}, {"h1", B, B, latency}}); }

TimeNs ns(double seconds) { return seconds_to_ns(seconds); }

// When 4.8 MB sent from h0 to h1, alone on two_hosts(), arrive under model m.
TimeNs arrival_of_one_message(const NetworkModel& m) {
  Simulator sim;
  const Topology t = two_hosts();
  FlowNetwork net(sim, t, m);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 4.8 * MB, &rec, 1);
  sim.run();
  return rec.arrived.at(1);
}

}  // namespace

TEST_CASE("tcp, all factors neutral: one flow as max-min", "[flow_network][tcp]") {
  // 4.8 MB at 1.25 GB/s = 3.84 ms after 2 x 20 us.
  CHECK(arrival_of_one_message(neutral()) == 40'000 + 3'840'000);
}

TEST_CASE("tcp, latency factor alone: the latency is 13.01 times longer", "[flow_network][tcp]") {
  // 13.01 x 40 us = 520.4 us, then 3.84 ms.
  NetworkModel m = neutral();
  m.tcp.latency_factor = 13.01;
  CHECK(arrival_of_one_message(m) == 520'400 + 3'840'000);
}

TEST_CASE("tcp, bandwidth factor alone: payload at 0.97 of the share", "[flow_network][tcp]") {
  // 40 us + 4.8 MB / (0.97 x 1.25 GB/s) = 40 us + 3.958763 ms; the link still counts the
  // message's bytes (4.8 MB), not the share.
  Simulator sim;
  const Topology t = two_hosts();
  NetworkModel m = neutral();
  m.tcp.bandwidth_factor = 0.97;
  FlowNetwork net(sim, t, m);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 4.8 * MB, &rec, 1);
  sim.run();
  CHECK(rec.arrived.at(1) == 40'000 + ns(4.8 * MB / (0.97 * B)));
  net.finish();
  CHECK(net.resource_bytes()[t.direction(t.access_link(t.node("h0")), t.node("h0"))] == 4.8 * MB);
}

TEST_CASE("tcp, cross-traffic alone: opposite flows slow each other down", "[flow_network][tcp]") {
  // Alone, a flow does not notice its ACKs (they cross the other directions). h0 -> h1
  // and h1 -> h0 at once: each NIC direction carries one flow and the other's ACKs,
  // x + 0.05 x = B, so each takes 4.8 MB x 1.05 / B = 4.032 ms after 40 us.
  Simulator sim;
  const Topology t = two_hosts();
  NetworkModel m = neutral();
  m.tcp.crosstraffic = 0.05;
  FlowNetwork net(sim, t, m);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 4.8 * MB, &rec, 1);
  net.send(t.node("h1"), t.node("h0"), 4.8 * MB, &rec, 2);
  sim.run();
  CHECK(rec.arrived.at(1) == 40'000 + ns(4.8 * MB * 1.05 / B));
  CHECK(rec.arrived.at(2) == rec.arrived.at(1));
  CHECK(arrival_of_one_message(m) == 40'000 + 3'840'000);
}

TEST_CASE("tcp, window alone: gamma / (2 x route latency) caps a long path", "[flow_network][tcp]") {
  // gamma 64 KiB over a 40 us route: 65,536 / 80 us = 819.2 MB/s < 1.25 GB/s, so
  // 4.8 MB take 5.859375 ms after the 40 us.
  NetworkModel m = neutral();
  m.tcp.gamma = 65536;
  CHECK(arrival_of_one_message(m) == 40'000 + ns(4.8 * MB / (65536 / 80e-6)));
}

TEST_CASE("tcp, RTT unfairness: the latency term of the penalty", "[flow_network][tcp]") {
  // h0 (10 us) and h1 (30 us) send to h2 (10 us): routes of 20 and 40 us. Penalties
  // p = route latency (weight_s 0), weights 1/p: 50,000 and 25,000, so h2's downlink
  // (1.25 GB/s) splits 2:1, 833.3 and 416.7 MB/s, from 40 us (h0 alone moved 25 kB at
  // full rate since 20 us). h0 ends when its 1.975 MB left are through at 833.3 MB/s; h1
  // then moves what it has left at full rate.
  Simulator sim;
  const Topology t = build_star({{"h0", B, B, 10 * kMicrosecond}, {"h1", B, B, 30 * kMicrosecond},
                                 {"h2", B, B, 10 * kMicrosecond}});
  FlowNetwork net(sim, t, neutral());
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h2"), 2 * MB, &rec, 0);
  net.send(t.node("h1"), t.node("h2"), 2 * MB, &rec, 1);
  sim.run();
  const double first = 40e-6 + (2 * MB - 25e3) / (B * 2 / 3);
  CHECK(rec.arrived.at(0) == ns(first));
  const double left = 2 * MB - (first - 40e-6) * B / 3;
  CHECK(std::abs(rec.arrived.at(1) - ns(first + left / B)) <= 1);
}

TEST_CASE("tcp, RTT unfairness: the weight_s / bandwidth term of the penalty", "[flow_network][tcp]") {
  // No latency; h0 has a 1.25 GB/s NIC, h1 2.5 GB/s, both send to h2 (1.25 GB/s down).
  // Penalties S (1/1.25e9 + 1/1.25e9) = 1.6e-9 S and S (1/2.5e9 + 1/1.25e9) = 1.2e-9 S:
  // weights 3:4, so h2's downlink splits 3/7 and 4/7 of 1.25 GB/s while both run.
  Simulator sim;
  const Topology t = build_star({{"h0", B, B, 0}, {"h1", 2 * B, 2 * B, 0}, {"h2", B, B, 0}});
  NetworkModel m = neutral();
  m.tcp.weight_s = 20537;
  FlowNetwork net(sim, t, m);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h2"), 3 * MB, &rec, 0);
  net.send(t.node("h1"), t.node("h2"), 4 * MB, &rec, 1);
  sim.run();
  // Both end together: 7 MB through 1.25 GB/s.
  CHECK(rec.arrived.at(0) == ns(7 * MB / B));
  CHECK(rec.arrived.at(1) == ns(7 * MB / B));
}

TEST_CASE("tcp with every LV08 default on a two-host exchange", "[flow_network][tcp]") {
  // Defaults: latency 13.01 x 40 us = 520.4 us; equal penalties; the window cap
  // 4 MiB / 80 us = 52 GB/s does not bind; h0 -> h1 and h1 -> h0 at once share each
  // direction with the other's ACKs: x = B / 1.05, payload 0.97 x: 4.8 MB x 1.05 /
  // (0.97 B) = 4.156701 ms.
  Simulator sim;
  const Topology t = two_hosts();
  NetworkModel m;
  m.kind = NetworkModel::Kind::Tcp;
  FlowNetwork net(sim, t, m);
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 4.8 * MB, &rec, 1);
  net.send(t.node("h1"), t.node("h0"), 4.8 * MB, &rec, 2);
  sim.run();
  CHECK(rec.arrived.at(1) == 520'400 + ns(4.8 * MB * 1.05 / (0.97 * B)));
}

TEST_CASE("priority classes: a later, higher-priority message overtakes", "[flow_network][priority]") {
  // h0 sends 4 MB of class 1 to h1 at 0, and 1 MB of class 0 at 1 ms (no latency). The
  // class-0 flow takes the whole link from 1 ms to 1.8 ms; the class-1 flow moved 1.25 MB
  // by 1 ms and finishes its 2.75 MB left after 1.8 ms: at 4 ms.
  Simulator sim;
  const Topology t = two_hosts(0);
  NetworkModel m;
  m.priorities = true;
  FlowNetwork net(sim, t, m);
  Recorder rec(&sim);
  SendOptions low;
  low.priority = 1;
  net.send(t.node("h0"), t.node("h1"), 4 * MB, &rec, 1, low);
  struct Later {
    FlowNetwork* net;
    const Topology* t;
    Recorder* rec;
    void send() { net->send(t->node("h0"), t->node("h1"), 1 * MB, rec, 0, SendOptions{}); }
  } later{&net, &t, &rec};
  sim.schedule_at(kMillisecond, [p = &later] { p->send(); });
  sim.run();
  CHECK(rec.arrived.at(0) == 1'800'000);
  CHECK(rec.arrived.at(1) == 4'000'000);
  // Without classes the same network refuses a class.
  FlowNetwork plain(sim, t);
  CHECK_THROWS_AS(plain.send(t.node("h0"), t.node("h1"), MB, &rec, 3, low), std::logic_error);
}

TEST_CASE("a message that follows another skips the route latency", "[flow_network]") {
  // 1 MB with 40 us of route latency, then (follows) 1 MB sent when the first arrives:
  // it moves at once, ending 0.8 ms after.
  Simulator sim;
  const Topology t = two_hosts();
  FlowNetwork net(sim, t);
  Recorder rec(&sim);
  struct Next : MessageSink {
    FlowNetwork* net;
    const Topology* t;
    Recorder* rec;
    void on_delivered(std::uint64_t) override {
      SendOptions train;
      train.follows = true;
      rec->on_delivered(1);
      net->send(t->node("h0"), t->node("h1"), MB, rec, 2, train);
    }
  } next;
  next.net = &net, next.t = &t, next.rec = &rec;
  net.send(t.node("h0"), t.node("h1"), MB, &next, 1);
  sim.run();
  CHECK(rec.arrived.at(1) == 40'000 + 800'000);
  CHECK(rec.arrived.at(2) == 40'000 + 1'600'000);
}

TEST_CASE("tcp: utilization counts payload, and bytes in flight at finish", "[flow_network][tcp]") {
  // 0.97 of the link at most: 4.8 MB over 10 ms bins of a 1.25 GB/s link.
  Simulator sim;
  const Topology t = two_hosts(0);
  NetworkModel m = neutral();
  m.tcp.bandwidth_factor = 0.97;
  FlowNetwork net(sim, t, m);
  const ResourceId up = t.direction(t.access_link(t.node("h0")), t.node("h0"));
  net.record_utilization(kMillisecond, {up});
  Recorder rec(&sim);
  net.send(t.node("h0"), t.node("h1"), 4.8 * MB, &rec, 1);
  sim.run_until(2 * kMillisecond);
  net.finish();
  CHECK(net.link_utilization().at(0, 0) == Approx(0.97).epsilon(1e-6));
  CHECK(net.resource_bytes()[up] == Approx(0.97 * B * 2e-3).epsilon(1e-9));
  CHECK(net.bytes_moved() == Approx(0.97 * B * 2e-3).epsilon(1e-9));  // payload in flight, under general sharing
}
