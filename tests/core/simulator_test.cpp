#include <cmath>
#include <thread>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <catch2/catch.hpp>

#include "sim/core/simulator.hpp"

using pssim::Simulator;
using pssim::TimeNs;
using pssim::EventId;
using pssim::kTimeMax;

namespace {
// Records the clock each time it fires; the first firing schedules two more.
struct ClockLog {
  Simulator* sim;
  std::vector<TimeNs> seen;
  void record() { seen.push_back(sim->now()); }
  void first() {
    record();
    sim->schedule_after(0, [this] { record(); });  // zero delay: same time, runs later
    sim->schedule_at(7 * pssim::kMillisecond, [this] { record(); });
  }
};
}  // namespace

TEST_CASE("schedule_after and schedule_at advance the clock to each event", "[simulator]") {
  Simulator sim;
  ClockLog log{&sim, {}};
  sim.schedule_after(5 * pssim::kMillisecond, [l = &log] { l->first(); });
  sim.run();
  const auto& seen = log.seen;
  CHECK(seen == std::vector<TimeNs>{5'000'000, 5'000'000, 7'000'000});
  CHECK(sim.events_executed() == 3);
  CHECK(sim.pending() == 0);
}

TEST_CASE("scheduling in the past or out of range is an error", "[simulator]") {
  Simulator sim;
  sim.run_until(100);
  CHECK(sim.now() == 100);
  CHECK_THROWS_AS(sim.schedule_at(99, [] {}), std::invalid_argument);
  CHECK_THROWS_AS(sim.schedule_after(-1, [] {}), std::invalid_argument);
  CHECK_THROWS_AS(sim.schedule_after(pssim::kTimeMax, [] {}), std::overflow_error);
}

TEST_CASE("run_until runs events up to the limit and moves the clock there", "[simulator]") {
  Simulator sim;
  int count = 0;
  int* c = &count;
  for (TimeNs t : {10, 20, 30, 40}) sim.schedule_at(t, [c] { ++*c; });
  sim.run_until(30);
  CHECK(count == 3);
  CHECK(sim.now() == 30);
  sim.schedule_at(35, [c] { *c += 100; });  // between the limit and the next pending event
  sim.run_until(39);
  CHECK(count == 103);
  CHECK(sim.now() == 39);
  sim.run();
  CHECK(count == 104);
  CHECK(sim.now() == 40);
}

TEST_CASE("run_until_condition stops right after the event that makes it true", "[simulator]") {
  Simulator sim;
  int count = 0;
  int* c = &count;
  for (TimeNs t = 1; t <= 10; ++t) sim.schedule_at(t, [c] { ++*c; });
  CHECK(sim.run_until_condition([&] { return count == 4; }));
  CHECK(sim.now() == 4);
  CHECK(sim.pending() == 6);
  CHECK_FALSE(sim.run_until_condition([&] { return count == 100; }));  // queue runs dry
  CHECK(count == 10);
}

TEST_CASE("stop ends the run after the current event", "[simulator]") {
  struct Counter {
    Simulator sim;
    int count = 0;
  } state;
  auto& sim = state.sim;
  const int& count = state.count;
  auto* s = &state;
  sim.schedule_at(1, [s] { ++s->count; });
  sim.schedule_at(2, [s] {
    ++s->count;
    s->sim.stop();
  });
  sim.schedule_at(3, [s] { ++s->count; });
  sim.run();
  CHECK(count == 2);
  CHECK(sim.now() == 2);
  sim.run();
  CHECK(count == 3);
}

TEST_CASE("cancelled events never fire", "[simulator]") {
  Simulator sim;
  int count = 0;
  int* c = &count;
  auto id = sim.schedule_at(5, [c] { *c += 1; });
  sim.schedule_at(6, [c] { *c += 10; });
  CHECK(sim.cancel(id));
  sim.run();
  CHECK(count == 10);
}

namespace {
// A small self-rescheduling workload whose trace depends on the random stream only.
std::vector<TimeNs> random_walk_trace(std::uint64_t seed) {
  Simulator sim(seed);
  auto rng = sim.random().stream("walker");
  std::vector<TimeNs> trace;
  struct State {
    Simulator* sim;
    pssim::RandomEngine* rng;
    std::vector<TimeNs>* trace;
    void tick() {
      trace->push_back(sim->now());
      if (trace->size() == 2000) return;
      boost::random::uniform_int_distribution<TimeNs> delay(0, 1000);
      sim->schedule_after(delay(*rng), [this] { tick(); });
    }
  } state{&sim, &rng, &trace};
  sim.schedule_at(0, [&state] { state.tick(); });
  sim.run();
  return trace;
}
}  // namespace

TEST_CASE("simulations are independent objects: same seed, same trace, on any thread",
          "[simulator]") {
  const auto reference = random_walk_trace(7);
  std::vector<TimeNs> a, b;
  std::thread t1([&] { a = random_walk_trace(7); });
  std::thread t2([&] { b = random_walk_trace(7); });
  t1.join();
  t2.join();
  CHECK(a == reference);
  CHECK(b == reference);
  CHECK(random_walk_trace(8) != reference);
}

TEST_CASE("inline work: last_scheduled, nothing_else_now and the event count", "[simulator]") {
  Simulator sim;
  int count = 0;
  int* c = &count;
  const EventId first = sim.schedule_at(10, [c] { ++*c; });
  CHECK(sim.last_scheduled(first));
  const EventId second = sim.schedule_at(10, [c] { ++*c; });
  CHECK_FALSE(sim.last_scheduled(first));
  CHECK(sim.last_scheduled(second));
  CHECK_FALSE(sim.last_scheduled(EventId{}));
  CHECK(sim.step(kTimeMax));
  CHECK_FALSE(sim.nothing_else_now());  // the second event is due at 10 too
  CHECK(sim.step(kTimeMax));
  CHECK(sim.nothing_else_now());
  sim.schedule_at(11, [c] { ++*c; });
  CHECK(sim.nothing_else_now());  // later than now
  sim.count_inline_event();
  CHECK(sim.events_executed() == 3);
  sim.run();
  CHECK(sim.events_executed() == 4);
  CHECK(count == 3);
}

TEST_CASE("round_ns rounds as std::llround, halves away from zero", "[time]") {
  // Halves, the double just below a half, integers beyond 2^52 (no fraction), and
  // random values across the range.
  const double cases[] = {0.0, 0.5, 1.5, 2.5, 0.49999999999999994, 1e9 - 0.5, 4503599627370495.5,
                          4503599627370497.0, 9007199254740993.0, 9.2e18, 123456.5000000001};
  for (const double x : cases) CHECK(pssim::round_ns(x) == std::llround(x));
  boost::random::mt19937_64 rng(5);
  boost::random::uniform_real_distribution<double> exponent(-3, 17.9);  // up to 7.9e18 < 2^63
  boost::random::uniform_real_distribution<double> mantissa(1, 10);
  for (int i = 0; i < 100'000; ++i) {
    const double x = mantissa(rng) * std::pow(10.0, exponent(rng));
    REQUIRE(pssim::round_ns(x) == std::llround(x));
  }
}
