// The collective runner over the flow network (and a fake transport): closed forms and
// hand-solved cases. Derivations in the comments; times are exact to 1 ns.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/collective/collective.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/topology_builders.hpp"
#include "tests/support/delay_transport.hpp"

using namespace pssim;
using namespace pssim::collective;

namespace {

constexpr double GBps = 1e9;

// Records when each rank holds each round's result; optionally starts the next round at
// once, up to `rounds`.
struct Done : Collective::Listener {
  std::vector<std::vector<TimeNs>> at;  // [round][rank]
  Collective* collective = nullptr;
  Simulator* sim = nullptr;
  std::int64_t rounds = 1;
  double sent_bytes = 0;
  std::int64_t in_flight = 0;
  void on_done(std::size_t rank, std::int64_t round) override {
    if (at.size() <= static_cast<std::size_t>(round)) at.resize(static_cast<std::size_t>(round) + 1);
    auto& row = at[static_cast<std::size_t>(round)];
    if (row.size() <= rank) row.resize(rank + 1, -1);
    row[rank] = sim->now();
    if (round + 1 < rounds) collective->contribute(rank);
  }
  void on_message(std::size_t, std::size_t, Phase, double bytes, bool sent) override {
    in_flight += sent ? 1 : -1;
    if (sent) sent_bytes += bytes;
  }
  TimeNs last(std::int64_t round) const {
    TimeNs t = 0;
    for (TimeNs x : at.at(static_cast<std::size_t>(round))) t = std::max(t, x);
    return t;
  }
};

// n workers on a star; NICs of `bandwidth` both ways and `latency` each (alpha, the one-way
// route latency between two workers, is 2 x latency).
struct Star {
  Simulator sim{1};
  net::Topology topology;
  std::unique_ptr<net::FlowNetwork> network;
  std::vector<net::NodeId> hosts;
  Star(std::size_t n, double bandwidth, TimeNs latency) {
    std::vector<net::HostSpec> specs;
    for (std::size_t i = 0; i < n; ++i) specs.push_back({"w" + std::to_string(i), bandwidth, bandwidth, latency});
    topology = net::build_star(specs);
    network = std::make_unique<net::FlowNetwork>(sim, topology);
    for (std::size_t i = 0; i < n; ++i) hosts.push_back(topology.node("w" + std::to_string(i)));
  }
};

// Runs `rounds` all-reduces of `elements` floats started by every rank at time 0.
Done run(Simulator& sim, net::Transport& transport, const std::vector<net::NodeId>& hosts, AlgorithmKind kind,
         std::int64_t elements, std::optional<double> chunk = {}, std::int64_t rounds = 1, std::size_t racks = 1) {
  Done done;
  done.sim = &sim;
  done.rounds = rounds;
  Collective c(sim, transport, hosts, make_algorithm(kind, hosts.size(), racks), elements, chunk, done);
  done.collective = &c;
  for (std::size_t r = 0; r < hosts.size(); ++r) c.contribute(r);
  sim.run();
  REQUIRE(done.at.size() == static_cast<std::size_t>(rounds));
  for (const auto& row : done.at) REQUIRE(row.size() == hosts.size());
  CHECK(done.in_flight == 0);
  return done;
}

void check_close(TimeNs got, double expected_seconds) {
  INFO("got " << got << " ns, expected " << expected_seconds * 1e9 << " ns");
  CHECK(std::abs(static_cast<double>(got) - expected_seconds * 1e9) <= 1e-9 * expected_seconds * 1e9);
}

}  // namespace

TEST_CASE("ring all-reduce takes 2(N-1)/N M/B + 2(N-1) alpha", "[collective][golden]") {
  // Every step each rank sends one segment of M/N to the next: every NIC carries one flow
  // each way, at B, after the route latency alpha; 2(N-1) steps follow each other
  // (reduce-scatter, then all-gather). M = N x 1 MB, B = 1 GB/s: a step moves 1 ms.
  for (std::size_t n : {2u, 3u, 8u, 16u, 48u}) {
    INFO(n << " workers");
    Star star(n, GBps, 10 * kMicrosecond);
    const double m = static_cast<double>(n) * 1e6, alpha = 20e-6;
    const Done d = run(star.sim, *star.network, star.hosts, AlgorithmKind::Ring, static_cast<std::int64_t>(m / 4));
    const double expected = 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * m / GBps +
                            2.0 * static_cast<double>(n - 1) * alpha;
    for (TimeNs t : d.at[0]) check_close(t, expected);
    CHECK(d.sent_bytes == Approx(2.0 * static_cast<double>(n - 1) * m));
  }
}

TEST_CASE("halving-doubling takes 2(N-1)/N M/B + 2 log2(N) alpha, recursive doubling log2(N) (alpha + M/B)",
          "[collective][golden]") {
  // Halving step k exchanges M/2^(k+1) with one partner (each NIC one flow each way):
  // alpha + M/(2^(k+1) B); the log2 N halvings sum to (1 - 1/N) M/B + log2(N) alpha, and the
  // doublings walk the same sizes back. Recursive doubling exchanges all of M, log2 N times.
  for (std::size_t n : {2u, 4u, 8u, 32u}) {
    INFO(n << " workers");
    const double m = 8e6 * static_cast<double>(n), alpha = 20e-6;
    double log2n = 0;
    for (std::size_t k = n; k > 1; k /= 2) ++log2n;
    Star hd(n, GBps, 10 * kMicrosecond);
    const Done a = run(hd.sim, *hd.network, hd.hosts, AlgorithmKind::HalvingDoubling, static_cast<std::int64_t>(m / 4));
    for (TimeNs t : a.at[0])
      check_close(t, 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * m / GBps + 2.0 * log2n * alpha);
    Star rd(n, GBps, 10 * kMicrosecond);
    const Done b = run(rd.sim, *rd.network, rd.hosts, AlgorithmKind::RecursiveDoubling, static_cast<std::int64_t>(m / 4));
    for (TimeNs t : b.at[0]) check_close(t, log2n * (alpha + m / GBps));
  }
}

TEST_CASE("halving-doubling with a non-power-of-two: the extra rank hands over and gets the result", "[collective]") {
  // 3 ranks: rank 0 sends M to rank 1 (alpha + M/B); rank 2's first message waits until
  // rank 1 has posted that step (rendezvous), then ranks 1 and 2 halve and double (M/2 each
  // way: 2 alpha + M/B); then rank 1 sends M back to rank 0 (alpha + M/B) and is done when
  // that send is. M = 4 MB, B = 1 GB/s, alpha = 20 us: rank 2 is done at 4.02 + 4.04 =
  // 8.06 ms, ranks 0 and 1 at 12.08 ms.
  Star star(3, GBps, 10 * kMicrosecond);
  const Done d = run(star.sim, *star.network, star.hosts, AlgorithmKind::HalvingDoubling, 1'000'000);
  CHECK(d.at[0][2] == 8'060'000);
  CHECK(d.at[0][1] == 12'080'000);
  CHECK(d.at[0][0] == 12'080'000);
}

TEST_CASE("a binary tree shares the parent's NIC, chunks pipeline the two halves", "[collective][golden]") {
  // 3 ranks: leaves 1 and 2 send M to the root at once through its down NIC (B/2 each):
  // alpha + 2M/B; the root sends M to both through its up NIC: alpha + 2M/B again.
  // With C chunks the root broadcasts chunk c while it receives chunk c+1: the two stages
  // overlap and the whole takes (C + 1)(alpha + 2M/(C B)). M = 4 MB, B = 1 GB/s, alpha = 20 us.
  const double m = 4e6, alpha = 20e-6;
  for (int chunks : {1, 2, 4, 8}) {
    INFO(chunks << " chunks");
    Star star(3, GBps, 10 * kMicrosecond);
    const std::optional<double> chunk = chunks == 1 ? std::nullopt : std::optional<double>(m / chunks);
    const Done d = run(star.sim, *star.network, star.hosts, AlgorithmKind::Tree, 1'000'000, chunk);
    check_close(d.last(0), (chunks + 1) * (alpha + 2 * m / (chunks * GBps)));
  }
}

TEST_CASE("hierarchical all-reduce: rings inside racks, a ring across oversubscribed uplinks", "[collective][golden]") {
  // 2 racks of 2 workers, NICs B = 1 GB/s with latency 10 us, uplinks 1 us at
  // oversubscription 2: each uplink carries 2 x B / 2 = B. M = 4 MB.
  // Inside a rack (route latency 20 us): 1 reduce-scatter step and 1 all-gather step of
  // M/2 over the NICs: 20 us + 2 ms each. Across racks (route latency 22 us): 2 steps in
  // which both ranks of a rack send M/4 through the rack's uplink (B/2 each): 22 us + 2 ms
  // each. Total 2 x 2.020 + 2 x 2.022 = 8.084 ms.
  std::vector<net::HostSpec> specs;
  for (int i = 0; i < 4; ++i) specs.push_back({"w" + std::to_string(i), GBps, GBps, 10 * kMicrosecond});
  Simulator sim(1);
  const net::Topology topology = net::build_two_tier(specs, {0, 0, 1, 1}, 2, 2.0, kMicrosecond);
  net::FlowNetwork network(sim, topology);
  std::vector<net::NodeId> hosts;
  for (int i = 0; i < 4; ++i) hosts.push_back(topology.node("w" + std::to_string(i)));
  const Done d = run(sim, network, hosts, AlgorithmKind::Hierarchical, 1'000'000, {}, 1, 2);
  for (TimeNs t : d.at[0]) CHECK(t == 8'084'000);
}

TEST_CASE("rounds follow each other, a rank may start the next round while others finish", "[collective]") {
  // On the fake transport (no sharing) a ring round of 4 ranks takes 6 x (5 us + 1 ms); a
  // rank that holds its result contributes again at once, so round r ends at (r+1) x that.
  Simulator sim(1);
  testing::DelayTransport transport(sim, GBps, 5 * kMicrosecond);
  const std::vector<net::NodeId> hosts = {0, 1, 2, 3};
  const Done d = run(sim, transport, hosts, AlgorithmKind::Ring, 1'000'000, {}, 3);
  for (std::int64_t r = 0; r < 3; ++r)
    for (TimeNs t : d.at[static_cast<std::size_t>(r)]) CHECK(t == (r + 1) * 6 * 1'005'000);
  CHECK(transport.sent.size() == 3u * 4 * 6);
}

TEST_CASE("a late contributor holds the others back, and they wait without losing messages", "[collective]") {
  // Ring of 3 on the fake transport, steps of 1 ms + 0 latency. Ranks 1 and 2 contribute at
  // 0, rank 0 at 10 ms. Rank 1's first message reaches rank 2 at 1 ms; rank 2's first message
  // waits for rank 0 to post its step 0 at 10 ms (rendezvous) and arrives at 11 ms, as does
  // rank 0's to rank 1: step 0 ends everywhere at 11 ms, and the 3 steps left take 3 ms.
  Simulator sim(1);
  testing::DelayTransport transport(sim, GBps, 0);
  const std::vector<net::NodeId> hosts = {0, 1, 2};
  Done done;
  done.sim = &sim;
  Collective c(sim, transport, hosts, make_algorithm(AlgorithmKind::Ring, 3), 750'000, {}, done);
  done.collective = &c;
  c.contribute(1);
  c.contribute(2);
  sim.schedule_at(10'000'000, [&c] { c.contribute(0); });
  sim.run();
  REQUIRE(done.at.size() == 1);
  for (TimeNs t : done.at[0]) CHECK(t == 14'000'000);
}

TEST_CASE("a single rank holds its own input at once", "[collective]") {
  Simulator sim(1);
  testing::DelayTransport transport(sim, GBps, 0);
  const Done d = run(sim, transport, {0}, AlgorithmKind::Ring, 10);
  CHECK(d.at[0][0] == 0);
  CHECK(transport.sent.empty());
}
