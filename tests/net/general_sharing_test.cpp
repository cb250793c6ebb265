// GeneralSharingSolver: weights, caps, consumption coefficients and strict priority
// classes. Small systems solved by hand (expected rates in the comments), then
// random systems against an independent textbook solution.
#include <algorithm>
#include <limits>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <catch2/catch.hpp>

#include "sim/net/general_sharing.hpp"
#include "sim/net/maxmin_solver.hpp"

using pssim::net::GeneralSharingSolver;
using pssim::net::MaxMinSolver;
using pssim::net::SharingSolver;
using Route = std::vector<SharingSolver::ResourceId>;

namespace {
SharingSolver::FlowShape Shape(double weight, double cap = std::numeric_limits<double>::infinity(),
                              std::uint32_t priority = 0, std::span<const double> coefficients = {}) {
  SharingSolver::FlowShape s;
  s.weight = weight, s.cap = cap, s.priority = priority, s.coefficients = coefficients;
  return s;
}
}  // namespace

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Spec {
  Route route;
  std::vector<double> coefficients;  // empty: all 1
  double weight = 1, cap = std::numeric_limits<double>::infinity();
  std::uint32_t priority = 0;
};

// Reference: weighted progressive filling class by class, O(R x F) per step, written
// from the problem statement alone.
std::vector<double> reference(const std::vector<double>& capacity, const std::vector<Spec>& flows) {
  std::vector<double> rate(flows.size(), 0.0), remaining = capacity;
  std::uint32_t top = 0;
  for (const auto& f : flows) top = std::max(top, f.priority);
  for (std::uint32_t cls = 0; cls <= top; ++cls) {
    std::vector<bool> open(flows.size());
    std::size_t left = 0;
    for (std::size_t f = 0; f < flows.size(); ++f) open[f] = flows[f].priority == cls, left += open[f];
    const auto a = [&](std::size_t f, std::size_t r) {
      for (std::size_t i = 0; i < flows[f].route.size(); ++i)
        if (flows[f].route[i] == r) return flows[f].coefficients.empty() ? 1.0 : flows[f].coefficients[i];
      return 0.0;
    };
    while (left > 0) {
      double best = std::numeric_limits<double>::infinity();
      for (std::size_t r = 0; r < capacity.size(); ++r) {
        double usage = 0;
        for (std::size_t f = 0; f < flows.size(); ++f)
          if (open[f]) usage += a(f, r) * flows[f].weight;
        if (usage > 0) best = std::min(best, std::max(0.0, remaining[r]) / usage);
      }
      for (std::size_t f = 0; f < flows.size(); ++f)
        if (open[f]) best = std::min(best, flows[f].cap / flows[f].weight);
      // Freeze every open flow at a saturated resource, or at its cap, at this level.
      std::vector<std::size_t> freeze;
      for (std::size_t f = 0; f < flows.size(); ++f) {
        if (!open[f]) continue;
        bool stop = flows[f].cap / flows[f].weight <= best * (1 + 1e-12);
        for (std::size_t r = 0; r < capacity.size() && !stop; ++r) {
          if (a(f, r) == 0) continue;
          double usage = 0;
          for (std::size_t g = 0; g < flows.size(); ++g)
            if (open[g]) usage += a(g, r) * flows[g].weight;
          stop = std::max(0.0, remaining[r]) / usage <= best * (1 + 1e-12);
        }
        if (stop) freeze.push_back(f);
      }
      for (std::size_t f : freeze) {
        rate[f] = std::min(flows[f].cap, flows[f].weight * best);
        open[f] = false;
        --left;
        for (std::size_t r = 0; r < capacity.size(); ++r) remaining[r] -= a(f, r) * rate[f];
      }
    }
  }
  return rate;
}

Spec flow(Route route, double weight = 1, double cap = std::numeric_limits<double>::infinity(),
          std::uint32_t priority = 0, std::vector<double> coefficients = {}) {
  return {std::move(route), std::move(coefficients), weight, cap, priority};
}

std::vector<SharingSolver::FlowId> add_all(SharingSolver& s, const std::vector<Spec>& flows) {
  std::vector<SharingSolver::FlowId> ids;
  for (const auto& f : flows) ids.push_back(s.add_flow(f.route, Shape(f.weight, f.cap, f.priority, f.coefficients)));
  return ids;
}

}  // namespace

TEST_CASE("general: weights share a link in proportion", "[net][general]") {
  // One link of 9. Weights 1 and 2: level L with L + 2L = 9, so L = 3: rates 3 and 6.
  GeneralSharingSolver s({9.0});
  const auto ids = add_all(s, {flow({0}, 1.0), flow({0}, 2.0)});
  s.solve();
  CHECK(s.rate(ids[0]) == Approx(3.0).epsilon(1e-12));
  CHECK(s.rate(ids[1]) == Approx(6.0).epsilon(1e-12));
}

TEST_CASE("general: a capped flow leaves the rest to the others", "[net][general]") {
  // One link of 10, three flows, one capped at 2: it freezes at 2 when the level reaches
  // 2 (before the link fills at 10/3); the other two share 8: 4 each.
  GeneralSharingSolver s({10.0});
  const auto ids = add_all(s, {flow({0}, 1.0, 2.0), flow({0}), flow({0})});
  s.solve();
  CHECK(s.rate(ids[0]) == Approx(2.0).epsilon(1e-12));
  CHECK(s.rate(ids[1]) == Approx(4.0).epsilon(1e-12));
  CHECK(s.rate(ids[2]) == Approx(4.0).epsilon(1e-12));
  // A cap above the fair share binds nothing: caps 5 and 7 on one link of 10 with a
  // third flow: the link fills first, at 10/3 each.
  GeneralSharingSolver t({10.0});
  const auto more = add_all(t, {flow({0}, 1.0, 5.0), flow({0}, 1.0, 7.0), flow({0})});
  t.solve();
  for (auto f : more) CHECK(t.rate(f) == Approx(10.0 / 3).epsilon(1e-12));
}

TEST_CASE("general: a consumption coefficient charges a fraction of the rate", "[net][general]") {
  // One link of 10: flow A takes its whole rate from it, flow B (an ACK stream) a quarter.
  // Equal weights, one level L: L + 0.25 L = 10, so L = 8 for both (B uses 2 of the link).
  GeneralSharingSolver s({10.0, 100.0});
  const auto ids = add_all(s, {flow({0}), flow({1, 0}, 1, kInf, 0, {1.0, 0.25})});
  s.solve();
  CHECK(s.rate(ids[0]) == Approx(8.0).epsilon(1e-12));
  CHECK(s.rate(ids[1]) == Approx(8.0).epsilon(1e-12));
}

TEST_CASE("general: cross-traffic of two opposite flows", "[net][general]") {
  // Hosts A and B on a star, NIC directions A.up 0, A.down 1, B.up 2, B.down 3, all 10.
  // A -> B crosses 0 and 3 and takes 0.05 of its rate on the reverse path (2 and 1);
  // B -> A the other way round. Every direction carries x + 0.05 x = 10: x = 10 / 1.05.
  GeneralSharingSolver s({10.0, 10.0, 10.0, 10.0});
  const auto ids = add_all(s, {flow({0, 3, 2, 1}, 1, kInf, 0, {1, 1, 0.05, 0.05}), flow({2, 1, 0, 3}, 1, kInf, 0, {1, 1, 0.05, 0.05})});
  s.solve();
  CHECK(s.rate(ids[0]) == Approx(10.0 / 1.05).epsilon(1e-12));
  CHECK(s.rate(ids[1]) == Approx(10.0 / 1.05).epsilon(1e-12));
}

TEST_CASE("general: strict priority between classes, max-min within", "[net][general]") {
  // Link 0 (capacity 10) carries a class-0 flow and two class-1 flows; link 1 (4) also
  // carries the class-0 flow, so it is held at 4 there. Class 1 then shares what link 0
  // has left, 10 - 4 = 6: 3 each.
  GeneralSharingSolver s({10.0, 4.0});
  const auto ids = add_all(s, {flow({0, 1}, 1, kInf, 0), flow({0}, 1, kInf, 1), flow({0}, 1, kInf, 1)});
  s.solve();
  CHECK(s.rate(ids[0]) == Approx(4.0).epsilon(1e-12));
  CHECK(s.rate(ids[1]) == Approx(3.0).epsilon(1e-12));
  CHECK(s.rate(ids[2]) == Approx(3.0).epsilon(1e-12));
  // Without the narrow link the class-0 flow takes all 10 and class 1 gets nothing (it
  // waits: strict priority); when the class-0 flow leaves, they get 5 each.
  GeneralSharingSolver t({10.0});
  const auto more = add_all(t, {flow({0}, 1, kInf, 0), flow({0}, 1, kInf, 3), flow({0}, 1, kInf, 3)});
  t.solve();
  CHECK(t.rate(more[0]) == Approx(10.0).epsilon(1e-12));
  CHECK(t.rate(more[1]) == 0.0);
  CHECK(t.rate(more[2]) == 0.0);
  t.remove_flow(more[0]);
  t.solve();
  CHECK(t.rate(more[1]) == Approx(5.0).epsilon(1e-12));
  CHECK(t.rate(more[2]) == Approx(5.0).epsilon(1e-12));
}

TEST_CASE("general: listeners hear every placed flow and every changed rate", "[net][general]") {
  struct Log : SharingSolver::Listener {
    std::vector<std::tuple<SharingSolver::FlowId, double, double>> changes;
    void level_changed(SharingSolver::ResourceId, double, double) override { FAIL("no levels under General"); }
    void bottleneck_changed(SharingSolver::FlowId, SharingSolver::ResourceId, SharingSolver::ResourceId) override {
      FAIL("no bottlenecks under General");
    }
    void rate_changed(SharingSolver::FlowId f, double o, double n) override { changes.emplace_back(f, o, n); }
  } log;
  // Link of 6: one flow gets 6; a second (weight 2) joins: 2 and 4.
  GeneralSharingSolver s({6.0}, &log);
  const auto a = s.add_flow(Route{0});
  s.solve();
  REQUIRE(log.changes.size() == 1);
  CHECK(log.changes[0] == std::make_tuple(a, 0.0, 6.0));
  const auto b = s.add_flow(Route{0}, Shape(2.0));
  s.solve();
  REQUIRE(log.changes.size() == 3);
  CHECK(std::get<0>(log.changes[1]) == b);  // the new flow first
  CHECK(std::get<2>(log.changes[1]) == Approx(4.0).epsilon(1e-12));
  CHECK(log.changes[2] == std::make_tuple(a, 6.0, std::get<2>(log.changes[2])));
  CHECK(std::get<2>(log.changes[2]) == Approx(2.0).epsilon(1e-12));
}

TEST_CASE("general: bad shapes and a max-min solver refuse them", "[net][general]") {
  MaxMinSolver plain({1.0});
  CHECK_THROWS_AS(plain.add_flow(Route{0}, Shape(2.0)), std::logic_error);
  GeneralSharingSolver s({1.0, 1.0});
  CHECK_THROWS_AS(s.add_flow(Route{0}, Shape(0.0)), std::invalid_argument);
  CHECK_THROWS_AS(s.add_flow(Route{0}, Shape(1.0, 0.0)), std::invalid_argument);
  const std::vector<double> one = {1.0}, bad = {1.0, -1.0};
  CHECK_THROWS_AS(s.add_flow(Route{0, 1}, Shape(1.0, 1.0, 0, one)), std::invalid_argument);
  CHECK_THROWS_AS(s.add_flow(Route{0, 1}, Shape(1.0, 1.0, 0, bad)), std::invalid_argument);
}

TEST_CASE("general: default shapes give the max-min rates", "[net][general]") {
  boost::random::mt19937 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    const std::size_t n_res = 3 + trial % 6;
    std::vector<double> capacity(n_res);
    boost::random::uniform_real_distribution<double> cap(1.0, 20.0);
    for (auto& c : capacity) c = cap(rng);
    GeneralSharingSolver general(capacity), plain(capacity);
    std::vector<SharingSolver::FlowId> g, p;
    boost::random::uniform_int_distribution<std::size_t> pick(0, n_res - 1), len(1, 3);
    for (int f = 0; f < 12; ++f) {
      Route route;
      for (std::size_t k = len(rng); route.size() < k;) {
        const auto r = static_cast<SharingSolver::ResourceId>(pick(rng));
        if (std::find(route.begin(), route.end(), r) == route.end()) route.push_back(r);
      }
      g.push_back(general.add_flow(route));
      p.push_back(plain.add_flow(route));
    }
    general.solve();
    plain.solve();
    for (std::size_t f = 0; f < g.size(); ++f) CHECK(general.rate(g[f]) == Approx(plain.rate(p[f])).epsilon(1e-9));
  }
}

TEST_CASE("general: random weighted, capped, classed systems against the textbook", "[net][general]") {
  boost::random::mt19937 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n_res = 2 + trial % 7;
    std::vector<double> capacity(n_res);
    boost::random::uniform_real_distribution<double> unit(0.0, 1.0);
    for (auto& c : capacity) c = 1 + 19 * unit(rng);
    std::vector<Spec> flows;
    boost::random::uniform_int_distribution<std::size_t> pick(0, n_res - 1), len(1, 4), cls(0, 2);
    for (int f = 0; f < 14; ++f) {
      Spec s;
      for (std::size_t k = std::min(len(rng), n_res); s.route.size() < k;) {
        const auto r = static_cast<SharingSolver::ResourceId>(pick(rng));
        if (std::find(s.route.begin(), s.route.end(), r) == s.route.end()) s.route.push_back(r);
      }
      for (std::size_t i = 0; i < s.route.size(); ++i) s.coefficients.push_back(unit(rng) < 0.3 ? 0.05 : 1.0);
      s.weight = 0.2 + 3 * unit(rng);
      if (unit(rng) < 0.3) s.cap = 0.5 + 5 * unit(rng);
      if (trial % 2) s.priority = static_cast<std::uint32_t>(cls(rng));
      flows.push_back(s);
    }
    GeneralSharingSolver s(capacity);
    auto ids = add_all(s, flows);
    s.solve();
    auto expected = reference(capacity, flows);
    for (std::size_t f = 0; f < flows.size(); ++f) CHECK(s.rate(ids[f]) == Approx(expected[f]).epsilon(1e-9).margin(1e-12));
    // Remove a third of the flows: the rest is solved again.
    std::vector<Spec> kept;
    std::vector<SharingSolver::FlowId> kept_ids;
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (f % 3 == 0) s.remove_flow(ids[f]);
      else kept.push_back(flows[f]), kept_ids.push_back(ids[f]);
    }
    s.solve();
    expected = reference(capacity, kept);
    for (std::size_t f = 0; f < kept.size(); ++f)
      CHECK(s.rate(kept_ids[f]) == Approx(expected[f]).epsilon(1e-9).margin(1e-12));
  }
}

TEST_CASE("make_solver builds the strategy of the sharing asked for", "[net][general]") {
  auto general = pssim::net::make_solver({1.0}, nullptr, SharingSolver::Sharing::General);
  auto maxmin = pssim::net::make_solver({1.0}, nullptr, SharingSolver::Sharing::MaxMin);
  CHECK(dynamic_cast<GeneralSharingSolver*>(general.get()) != nullptr);
  CHECK(dynamic_cast<MaxMinSolver*>(maxmin.get()) != nullptr);
  // Both solve the same plain problem: two flows over one resource share it.
  for (auto* s : {general.get(), maxmin.get()}) {
    const Route route{0};
    const auto a = s->add_flow(route), b = s->add_flow(route);
    s->solve();
    CHECK(s->rate(a) == 0.5);
    CHECK(s->rate(b) == 0.5);
  }
}
