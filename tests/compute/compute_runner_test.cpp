#include <vector>

#include <catch2/catch.hpp>

#include "sim/compute/compute_runner.hpp"

using namespace pssim;
using namespace pssim::compute;

namespace {
struct Ends : ComputeRunner::Listener {
  Simulator* sim = nullptr;
  std::vector<std::pair<std::size_t, TimeNs>> ends;
  void on_computed(std::size_t w) override { ends.push_back({w, sim->now()}); }
};
}  // namespace

TEST_CASE("a speed change mid-computation applies to the rest of it", "[compute][dynamics]") {
  Simulator sim;
  Ends ends;
  ends.sim = &sim;
  ComputeRunner runner(sim, 2, ends);
  runner.start(0, 10'000'000);  // 10 ms at factor 1
  runner.start(1, 10'000'000);
  // At 4 ms worker 0 halves its speed: the 6 ms of work left take 12 ms, it ends at 16 ms.
  ComputeRunner* r = &runner;
  sim.schedule_at(4'000'000, [r] { r->set_factor(0, 0.5); });
  // Worker 1 is cancelled at 5 ms: no end is reported, and it had run 5 ms.
  struct State {
    ComputeRunner* runner;
    TimeNs ran = 0;
  } state{&runner};
  State* st = &state;
  sim.schedule_at(5'000'000, [st] { st->ran = st->runner->cancel(1); });
  sim.run();
  REQUIRE(ends.ends.size() == 1);
  CHECK(ends.ends[0] == std::make_pair(std::size_t{0}, TimeNs{16'000'000}));
  CHECK(state.ran == 5'000'000);
  CHECK_FALSE(runner.running(1));
  // A new computation at factor 0.5 takes twice its duration; back at factor 2 mid-way.
  runner.start(1, 4'000'000);  // at 16 ms
  sim.schedule_at(18'000'000, [r] { r->set_factor(1, 2); });  // 1 ms of work done, 3 left: 1.5 ms
  runner.set_factor(1, 0.5);
  sim.run();
  REQUIRE(ends.ends.size() == 2);
  CHECK(ends.ends[1] == std::make_pair(std::size_t{1}, TimeNs{19'500'000}));
  CHECK_THROWS(runner.set_factor(0, 0));
}
