// Hold-model benchmark of the event core: N events pending; each event, when it fires,
// schedules one new event at now + a random increment, so the queue size stays N.
// Prints events per second of Simulator::run (pop, dispatch, push) on one core.
//
//   event_queue_bench [pending=1000000] [events=20000000] [max_increment_ns=2000000]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <boost/random/uniform_int_distribution.hpp>

#include "sim/core/simulator.hpp"

namespace {

struct Hold {
  pssim::Simulator* sim;
  pssim::RandomEngine rng;
  boost::random::uniform_int_distribution<pssim::TimeNs> increment;
  std::uint64_t remaining;
  void fire() {
    if (remaining == 0) return;
    --remaining;
    sim->schedule_after(increment(rng), [this] { fire(); });
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t pending = argc > 1 ? std::stoull(argv[1]) : 1'000'000;
  const std::uint64_t events = argc > 2 ? std::stoull(argv[2]) : 20'000'000;
  const pssim::TimeNs max_increment = argc > 3 ? std::stoll(argv[3]) : 2'000'000;

  pssim::Simulator sim(1);
  Hold hold{&sim, sim.random().stream("hold"),
            boost::random::uniform_int_distribution<pssim::TimeNs>(0, max_increment), events};
  for (std::uint64_t i = 0; i < pending; ++i)
    sim.schedule_at(hold.increment(hold.rng), [h = &hold] { h->fire(); });

  const auto start = std::chrono::steady_clock::now();
  sim.run_until_condition([&] { return hold.remaining == 0; });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double executed = static_cast<double>(sim.events_executed());
  std::printf("hold model: %llu pending, increments uniform in [0, %lld] ns\n",
              static_cast<unsigned long long>(pending), static_cast<long long>(max_increment));
  std::printf("events executed: %.0f in %.3f s wall\n", executed, wall);
  std::printf("events per second: %.2f M (target >= 10 M)\n", executed / wall / 1e6);
  return 0;
}
