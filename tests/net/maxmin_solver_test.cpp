#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/net/maxmin_solver.hpp"

using pssim::net::MaxMinSolver;
using Routes = std::vector<std::vector<MaxMinSolver::ResourceId>>;

namespace {

// Reference: textbook progressive filling, O(R * F) per round, no shortcuts. Independent
// of the solver under test.
std::vector<double> reference_rates(const std::vector<double>& capacity, const Routes& routes) {
  const std::size_t n = routes.size();
  std::vector<double> rate(n, 0.0);
  std::vector<bool> frozen(n, false);
  std::vector<double> remaining = capacity;
  std::size_t left = n;
  while (left > 0) {
    double best = -1;
    std::size_t best_r = 0;
    for (std::size_t r = 0; r < capacity.size(); ++r) {
      std::size_t count = 0;
      for (std::size_t f = 0; f < n; ++f)
        if (!frozen[f] && std::count(routes[f].begin(), routes[f].end(), r)) ++count;
      if (count == 0) continue;
      const double share = remaining[r] / static_cast<double>(count);
      if (best < 0 || share < best) best = share, best_r = r;
    }
    for (std::size_t f = 0; f < n; ++f) {
      if (frozen[f] || !std::count(routes[f].begin(), routes[f].end(), best_r)) continue;
      frozen[f] = true;
      rate[f] = best;
      --left;
      for (auto r : routes[f]) remaining[r] -= best;
    }
  }
  return rate;
}

}  // namespace

TEST_CASE("one flow gets the smallest capacity on its route", "[maxmin]") {
  MaxMinSolver s({10.0, 4.0, 7.0});
  const std::vector<MaxMinSolver::ResourceId> route = {0, 1, 2};
  const auto f = s.add_flow(route);
  s.solve();
  CHECK(s.rate(f) == 4.0);
  CHECK(s.bottleneck(f) == 1);
}

TEST_CASE("textbook: three flows over two links", "[maxmin]") {
  // Links A (capacity 1) and B (capacity 2). Flow 0 crosses A and B, flow 1 only A,
  // flow 2 only B. Filling: A saturates first at 1/2 (flows 0 and 1 get 0.5); B then
  // has 2 - 0.5 = 1.5 left for flow 2 alone.
  MaxMinSolver s({1.0, 2.0});
  const std::vector<MaxMinSolver::ResourceId> ab = {0, 1}, a = {0}, b = {1};
  const auto f0 = s.add_flow(ab), f1 = s.add_flow(a), f2 = s.add_flow(b);
  s.solve();
  CHECK(s.rate(f0) == Approx(0.5).epsilon(1e-12));
  CHECK(s.rate(f1) == Approx(0.5).epsilon(1e-12));
  CHECK(s.rate(f2) == Approx(1.5).epsilon(1e-12));
  // Flow 1 leaves: A now holds only flow 0; B binds at 1 each (flows 0 and 2).
  s.remove_flow(f1);
  s.solve();
  CHECK(s.rate(f0) == Approx(1.0).epsilon(1e-12));
  CHECK(s.rate(f2) == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("heterogeneous capacities: a slow sender frees capacity for the others", "[maxmin]") {
  // Three senders with uplinks 1, 10, 10 into one receiver downlink of capacity 12.
  // Sender 0 is limited by its own uplink at 1; the others split 12 - 1 = 11: 5.5 each.
  MaxMinSolver s({1.0, 10.0, 10.0, 12.0});
  std::vector<MaxMinSolver::FlowId> f;
  for (MaxMinSolver::ResourceId up = 0; up < 3; ++up) {
    const std::vector<MaxMinSolver::ResourceId> route = {up, 3};
    f.push_back(s.add_flow(route));
  }
  s.solve();
  CHECK(s.rate(f[0]) == Approx(1.0).epsilon(1e-12));
  CHECK(s.rate(f[1]) == Approx(5.5).epsilon(1e-12));
  CHECK(s.rate(f[2]) == Approx(5.5).epsilon(1e-12));
  CHECK(s.bottleneck(f[0]) == 0);
  CHECK(s.bottleneck(f[1]) == 3);
}

TEST_CASE("incremental updates agree with progressive filling under random churn", "[maxmin]") {
  // Random "hosts up -> hosts down" routes, some through two extra shared uplinks (four
  // resources), with equal, two-valued or random capacities; batches of 1 to 20 adds and
  // removes, and every 25th batch first removes every flow. After every batch, every rate
  // must equal the reference solution.
  std::uint64_t incremental = 0, full = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    boost::random::mt19937_64 rng(seed);
    boost::random::uniform_int_distribution<std::size_t> host_count(2, 24), kind_of(0, 3), coin(0, 9), batch(1, 20);
    const std::size_t hosts = host_count(rng);
    const std::size_t kind = kind_of(rng);
    boost::random::uniform_real_distribution<double> random_capacity(1.0, 10.0);
    std::vector<double> capacity;
    for (std::size_t i = 0; i < 2 * hosts + 4; ++i)
      capacity.push_back(kind == 0 ? 10.0 : kind == 1 ? (i < hosts ? 10.0 : 25.0) : random_capacity(rng));
    MaxMinSolver solver(capacity);
    std::map<MaxMinSolver::FlowId, std::vector<MaxMinSolver::ResourceId>> live;
    boost::random::uniform_int_distribution<std::size_t> host(0, hosts - 1);
    for (int step = 0; step < 150; ++step) {
      const std::size_t k = coin(rng) < 7 ? batch(rng) % 3 + 1 : batch(rng);
      if (step % 25 == 24) {  // now and then every flow leaves at once (the solver clears what they touched)
        for (const auto& [id, route] : live) solver.remove_flow(id);
        live.clear();
        solver.solve();
      }
      for (std::size_t i = 0; i < k; ++i) {
        if (!live.empty() && coin(rng) < 5) {
          auto it = live.begin();
          std::advance(it, static_cast<long>(rng() % live.size()));
          solver.remove_flow(it->first);
          live.erase(it);
        } else {
          const auto src = static_cast<MaxMinSolver::ResourceId>(host(rng));
          const auto dst = static_cast<MaxMinSolver::ResourceId>(hosts + host(rng));
          std::vector<MaxMinSolver::ResourceId> route = {src, dst};
          if (kind == 3 && coin(rng) < 5) {
            route.push_back(static_cast<MaxMinSolver::ResourceId>(2 * hosts + src % 2));
            route.push_back(static_cast<MaxMinSolver::ResourceId>(2 * hosts + 2 + dst % 2));
          }
          live[solver.add_flow(route)] = route;
        }
      }
      solver.solve();
      Routes routes;
      std::vector<MaxMinSolver::FlowId> ids;
      for (const auto& [id, route] : live) ids.push_back(id), routes.push_back(route);
      const auto expected = reference_rates(capacity, routes);
      for (std::size_t i = 0; i < ids.size(); ++i) {
        INFO("seed " << seed << ", step " << step << ", flow " << ids[i]);
        REQUIRE(solver.rate(ids[i]) == Approx(expected[i]).epsilon(1e-9));
      }
    }
    incremental += solver.stats().incremental_updates;
    full += solver.stats().full_solves;
  }
  // The point of the design: most changes are handled without a full solve.
  CHECK(incremental > 4 * full);
}

TEST_CASE("many flows into one resource are updated without full solves", "[maxmin]") {
  // Fan-in: 200 senders (capacity 10) into one receiver (capacity 100): every flow gets
  // 100 / n. Flows leave one by one; each removal must be incremental.
  std::vector<double> capacity(201, 10.0);
  capacity[200] = 100.0;
  MaxMinSolver s(capacity);
  std::vector<MaxMinSolver::FlowId> f;
  for (MaxMinSolver::ResourceId i = 0; i < 200; ++i) {
    const std::vector<MaxMinSolver::ResourceId> route = {i, 200};
    f.push_back(s.add_flow(route));
  }
  s.solve();
  const auto solves_before = s.stats().full_solves;
  for (std::size_t n = 200; n > 20; --n) {
    CHECK(s.rate(f[n - 1]) == Approx(100.0 / n).epsilon(1e-12));
    s.remove_flow(f[n - 1]);
    s.solve();
  }
  CHECK(s.stats().full_solves == solves_before);
  CHECK(s.rate(f[0]) == Approx(5.0).epsilon(1e-12));
}

TEST_CASE("bad flows are rejected", "[maxmin]") {
  MaxMinSolver s({1.0, 1.0});
  const std::vector<MaxMinSolver::ResourceId> empty, twice = {0, 0}, unknown = {5};
  CHECK_THROWS_AS(s.add_flow(empty), std::invalid_argument);
  CHECK_THROWS_AS(s.add_flow(twice), std::invalid_argument);
  CHECK_THROWS_AS(s.add_flow(unknown), std::out_of_range);
  CHECK_THROWS_AS(s.remove_flow(3), std::invalid_argument);
  CHECK_THROWS_AS(MaxMinSolver({0.0}), std::invalid_argument);
}

TEST_CASE("flows alone on two equal links (an all-reduce ring) are solved incrementally", "[maxmin]") {
  // Ring of 6: flow i crosses up link i (resource 2i) and the down link of i+1 (resource
  // 2(i+1)+1), all of capacity 5. Each flow gets 5; the link it is not bottlenecked at is
  // exactly full, which is feasible: no full solve is needed, flow by flow, step by step.
  const int n = 6;
  MaxMinSolver s(std::vector<double>(2 * n, 5.0));
  std::vector<MaxMinSolver::FlowId> flows;
  for (int step = 0; step < 3; ++step) {
    for (auto f : flows) {
      s.remove_flow(f);
      s.solve();
    }
    flows.clear();
    for (int i = 0; i < n; ++i) {
      const std::vector<MaxMinSolver::ResourceId> route = {static_cast<MaxMinSolver::ResourceId>(2 * i),
                                                          static_cast<MaxMinSolver::ResourceId>(2 * ((i + 1) % n) + 1)};
      flows.push_back(s.add_flow(route));
      s.solve();
    }
    for (auto f : flows) CHECK(s.rate(f) == 5.0);
  }
  CHECK(s.stats().full_solves == 0);
}

TEST_CASE("after every flow leaves at once, the solver continues exactly as a fresh one", "[maxmin]") {
  // Solver a carries flows over shared links, then loses them all in one batch (too many
  // for incremental removal: its resources are cleared without a full progressive
  // filling). From then on it must act exactly as solver b, which never had a flow: same
  // rates to the bit, and the same work (incremental updates and full solves), for a
  // sequence of single changes over the same links.
  const std::vector<double> capacity = {10, 10, 10, 4, 25, 25, 7, 10};
  MaxMinSolver a(capacity), b(capacity);
  const Routes first = {{0, 4}, {1, 4}, {2, 4, 6}, {3, 5}, {0, 5, 7}, {2, 6}};
  std::vector<MaxMinSolver::FlowId> gone;
  for (int copy = 0; copy < 3; ++copy)  // 18 flows: more than an incremental batch takes
    for (const auto& route : first) {
      gone.push_back(a.add_flow(route));
      a.solve();
    }
  const auto full_before_leaving = a.stats().full_solves;
  for (auto f : gone) a.remove_flow(f);
  a.solve();
  REQUIRE(a.stats().full_solves == full_before_leaving + 1);  // the clearing, not an incremental removal
  const auto a_before = a.stats(), b_before = b.stats();
  const Routes then = {{0, 4}, {2, 4}, {1, 5, 7}, {3, 4}, {2, 6}, {0, 5}, {1, 6}};
  std::vector<MaxMinSolver::FlowId> fa, fb;
  for (std::size_t i = 0; i < then.size(); ++i) {
    fa.push_back(a.add_flow(then[i]));
    fb.push_back(b.add_flow(then[i]));
    a.solve();
    b.solve();
    if (i == 4) {  // and one leaves again
      a.remove_flow(fa[1]);
      b.remove_flow(fb[1]);
      a.solve();
      b.solve();
    }
    for (std::size_t j = 0; j < fa.size(); ++j)
      if (j != 1 || i < 4) CHECK(a.rate(fa[j]) == b.rate(fb[j]));
  }
  CHECK(a.stats().full_solves - a_before.full_solves == b.stats().full_solves - b_before.full_solves);
  CHECK(a.stats().incremental_updates - a_before.incremental_updates ==
        b.stats().incremental_updates - b_before.incremental_updates);
}

TEST_CASE("a flow alone on links of different capacities is bottlenecked at the smallest, incrementally",
          "[maxmin]") {
  // Routes over a 10, a 4 and a 7 in every order: alone, each flow gets 4 (its bottleneck is
  // the 4), one flow at a time and with no full solve.
  MaxMinSolver s({10.0, 4.0, 7.0});
  const Routes routes = {{0, 1, 2}, {2, 1, 0}, {1, 0}, {0, 2, 1}};
  for (const auto& route : routes) {
    const auto f = s.add_flow(route);
    s.solve();
    CHECK(s.rate(f) == 4.0);
    CHECK(s.bottleneck(f) == 1u);
    s.remove_flow(f);
    s.solve();
  }
  CHECK(s.stats().full_solves == 0);
}

namespace {

// Records every change a solver reports, in order, to compare two solvers call by call.
struct RecordingListener : MaxMinSolver::Listener {
  std::vector<std::string> log;
  void level_changed(MaxMinSolver::ResourceId r, double old_level, double new_level) override {
    log.push_back(fmt::format("level {} {:a} {:a}", r, old_level, new_level));
  }
  void bottleneck_changed(MaxMinSolver::FlowId f, MaxMinSolver::ResourceId from, MaxMinSolver::ResourceId to) override {
    log.push_back(fmt::format("bottleneck {} {} {}", f, from, to));
  }
};

}  // namespace

TEST_CASE("lone flows give the same results, reports and work with the shortcut as without", "[maxmin]") {
  // Two solvers take the same random changes, one placing lone flows by the shortcut (the
  // default), one the ordinary way. Hosts send to hosts (an up and a down link each, often
  // alone: lone flows), some through a shared uplink or into a shared server link (flows
  // that share, and settle the lone ones they meet); batches of 1 to 40 changes (large
  // ones are solved in full), every 30th batch all flows leave, now and then a capacity
  // changes (0 included: a failed link) and flows_at() is read. After every solve, every
  // report (in order, levels to the bit), the statistics and every rate must be the same.
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    boost::random::mt19937_64 rng(seed);
    boost::random::uniform_int_distribution<std::size_t> host_count(3, 40), kind_of(0, 2), coin(0, 99), batch(1, 40);
    const std::size_t hosts = host_count(rng), kind = kind_of(rng);
    boost::random::uniform_real_distribution<double> random_capacity(1.0, 10.0);
    std::vector<double> capacity;  // up links, down links, two uplinks, a server link
    for (std::size_t i = 0; i < 2 * hosts + 3; ++i)
      capacity.push_back(kind == 0 ? 10.0 : kind == 1 ? (i < hosts ? 10.0 : 25.0) : random_capacity(rng));
    RecordingListener la, lb;
    MaxMinSolver a(capacity, &la), b(capacity, &lb);
    b.set_lone_shortcut(false);
    const auto uplink = static_cast<MaxMinSolver::ResourceId>(2 * hosts);
    const auto server = static_cast<MaxMinSolver::ResourceId>(2 * hosts + 2);
    std::map<MaxMinSolver::FlowId, MaxMinSolver::FlowId> live;  // a's id -> b's id
    boost::random::uniform_int_distribution<std::size_t> host(0, hosts - 1);
    for (int step = 0; step < 200; ++step) {
      INFO("seed " << seed << ", step " << step);
      if (step % 30 == 29) {
        for (const auto& [fa, fb] : live) a.remove_flow(fa), b.remove_flow(fb);
        live.clear();
      }
      const std::size_t k = coin(rng) < 70 ? batch(rng) % 3 + 1 : batch(rng);
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t c = coin(rng);
        if (!live.empty() && c < 45) {
          auto it = live.begin();
          std::advance(it, static_cast<long>(rng() % live.size()));
          a.remove_flow(it->first);
          b.remove_flow(it->second);
          live.erase(it);
          continue;
        }
        const auto src = static_cast<MaxMinSolver::ResourceId>(host(rng));
        std::vector<MaxMinSolver::ResourceId> route = {src};
        if (c < 55) route.push_back(uplink + src % 2);           // through a shared uplink
        route.push_back(c < 65 ? server : static_cast<MaxMinSolver::ResourceId>(hosts + host(rng)));
        const auto fa = a.add_flow(route), fb = b.add_flow(route);
        REQUIRE(fa == fb);  // the same ids: reports name flows
        live[fa] = fb;
      }
      if (coin(rng) < 3) {
        const auto r = static_cast<MaxMinSolver::ResourceId>(rng() % capacity.size());
        const double value = coin(rng) < 30 ? 0.0 : random_capacity(rng);
        a.set_capacity(r, value);
        b.set_capacity(r, value);
      }
      a.solve();
      b.solve();
      REQUIRE(la.log == lb.log);
      la.log.clear(), lb.log.clear();
      REQUIRE(a.stats().incremental_updates == b.stats().incremental_updates);
      REQUIRE(a.stats().full_solves == b.stats().full_solves);
      REQUIRE(a.stats().reaccounts == b.stats().reaccounts);
      for (const auto& [fa, fb] : live) {
        REQUIRE(a.rate(fa) == b.rate(fb));
        REQUIRE(a.bottleneck(fa) == b.bottleneck(fb));
      }
      if (coin(rng) < 5) {  // settles a's lone flows: from then on, still the same
        for (MaxMinSolver::ResourceId r = 0; r < capacity.size(); ++r) {
          auto fa = a.flows_at(r), fb = b.flows_at(r);
          std::vector<MaxMinSolver::FlowId> va(fa.begin(), fa.end()), vb(fb.begin(), fb.end());
          std::sort(va.begin(), va.end()), std::sort(vb.begin(), vb.end());
          REQUIRE(va == vb);
        }
      }
    }
  }
}
