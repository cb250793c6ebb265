// Random crash and recovery timelines against every scheme and all-reduce algorithm, with
// real (tiny) math: every run must end at its time limit, with counts that add up and
// bounded memory. Returns before and after failure_timeout, several workers down at once
// and every worker down together are all drawn.
#include <sys/resource.h>

#include <fstream>
#include <string>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/experiment/experiment.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;

namespace {

constexpr int kWorkers = 6;           // not a power of two: the folding of every algorithm runs
constexpr TimeNs kEnd = 600'000'000;  // 600 ms simulated; the timeline ends at 400 ms

struct Record : protocol::Observer {
  std::vector<protocol::UpdateRecord> updates;
  std::int64_t rounds = 0;
  void on_update(const protocol::UpdateRecord& u) override { updates.push_back(u); }
  void on_round(const protocol::RoundRecord&) override { ++rounds; }
};

// Crashes of each worker at random times, recovering after 2-150 ms (failure_timeout is
// drawn from 0-100 ms, so some come back before it, some after), some without a
// recover_after and brought back by a worker_recover; every worker down at once at
// 250 ms; and Poisson crashes of worker 0.
std::string random_events(std::uint32_t seed, TimeNs& failure_timeout) {
  boost::random::mt19937 rng(seed);
  const auto ms = [&rng](int lo, int hi) { return boost::random::uniform_int_distribution<int>(lo, hi)(rng); };
  failure_timeout = TimeNs{ms(0, 4) * 25} * 1'000'000;
  std::string events = "events:\n";
  for (int w = 0; w < kWorkers; ++w) {
    for (int t = ms(0, 60); t < 380; t += ms(10, 80)) {
      const int down = ms(2, 150);
      if (ms(0, 3) == 0) {  // an explicit recovery
        events += fmt::format("  - {{at: {}ms, kind: worker_crash, target: worker-{}}}\n", t, w);
        events += fmt::format("  - {{at: {}ms, kind: worker_recover, target: worker-{}}}\n", t + down, w);
      } else {
        events += fmt::format("  - {{at: {}ms, kind: worker_crash, target: worker-{}, recover_after: {}ms}}\n", t,
                              w, down);
      }
      t += down;
    }
    events += fmt::format("  - {{at: 250ms, kind: worker_crash, target: worker-{}, recover_after: {}ms}}\n", w,
                          ms(1, 120));
  }
  events += "  - {rate: 20, kind: worker_crash, target: worker-0, recover_after: 7ms, until: 400ms}\n";
  return events;
}

std::string scenario_text(const std::string& protocol, const std::string& network, bool servers,
                          const std::string& events, TimeNs failure_timeout) {
  // A 784-8-10 MLP (6.4 k parameters, 25 kB messages) on synthetic images, batch 4: an
  // iteration computes about 5 ms at 30 MFLOPS.
  return fmt::format(R"(name: random-timeline
model: {{kind: mlp, hidden: [8]}}
data: {{kind: synthetic, batch_size: 4, train_items: 256, test_items: 32}}
training: {{optimizer: {{kind: sgd, lr: 0.05}}, stop: {{sim_time: 600ms}}}}
cluster:
  workers: {{count: {}, throughput: 30MFLOPS}}
{}network: {{{}worker_nic: {{bandwidth: 1Gbps, latency: 20us}}, server_nic: {{bandwidth: 1Gbps, latency: 20us}}}}
protocol: {{{}, failure_timeout: {}ns}}
{})",
                     kWorkers, servers ? "  servers: {count: 2}\n" : "", network, protocol, failure_timeout, events);
}

std::int64_t resident_bytes() {
  long pages = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  return static_cast<std::int64_t>(resident) * 4096;
}

}  // namespace

TEST_CASE("random crash and recovery timelines: every scheme and algorithm ends, with counts that add up",
          "[dynamics][random]") {
  struct Case {
    const char* protocol;
    const char* network = "";
    bool rounds = true;
  };
  const std::vector<Case> cases = {
      {"mode: sync"},
      {"mode: async", "", false},
      {"mode: ssp, staleness: 2"},
      {"mode: local-sgd, local_steps: 2"},
      {"mode: allreduce, algorithm: ring"},
      {"mode: allreduce, algorithm: ring, chunk_bytes: 4KB"},
      {"mode: allreduce, algorithm: halving-doubling"},
      {"mode: allreduce, algorithm: halving-doubling, chunk_bytes: 4KB"},
      {"mode: allreduce, algorithm: recursive-doubling"},
      {"mode: allreduce, algorithm: recursive-doubling, chunk_bytes: 4KB"},
      {"mode: allreduce, algorithm: tree"},
      {"mode: allreduce, algorithm: tree, chunk_bytes: 4KB"},
      {"mode: allreduce, algorithm: hierarchical", "topology: two-tier, racks: 2, "},
      {"mode: allreduce, algorithm: hierarchical, chunk_bytes: 4KB", "topology: two-tier, racks: 2, "},
  };
  const std::int64_t resident_before = resident_bytes();
  for (const Case& c : cases)
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
      TimeNs timeout = 0;
      const std::string events = random_events(seed, timeout);
      const bool allreduce = std::string(c.protocol).find("allreduce") != std::string::npos;
      const std::string text = scenario_text(c.protocol, c.network, !allreduce, events, timeout);
      CAPTURE(c.protocol, seed, timeout);
      experiment::Experiment e(scenario::load_scenario_text(text, "random.yaml").scenario);
      Record r;
      experiment::RunStats stats;
      REQUIRE_NOTHROW(stats = e.run(&r));
      CHECK(stats.stopped_by == experiment::StopReason::SimTime);
      CHECK(stats.sim_time == kEnd);
      // Counts add up: every update recorded, each with at most one gradient per worker,
      // and training goes on once the timeline is over.
      const auto& totals = e.protocol().totals();
      std::int64_t gradients = 0, last = -1, after_timeline = 0;
      for (const auto& u : r.updates) {
        CHECK(u.gradients >= 1);
        CHECK(u.gradients <= (c.rounds ? kWorkers : 1));
        gradients += u.gradients;
        if (allreduce) CHECK(u.version == ++last + 1);  // one part, versions in order
        if (u.time > 550'000'000) ++after_timeline;
      }
      CHECK(static_cast<std::int64_t>(r.updates.size()) == totals.updates);
      CHECK(gradients == totals.gradients_applied);
      CHECK(after_timeline > 0);
      if (c.rounds) CHECK(r.rounds == totals.rounds);
      if (allreduce) CHECK(totals.rounds == e.protocol().least_updates());
    }
  // Memory stays bounded: a run that lost track of its rounds grew to gigabytes in seconds.
  CHECK(resident_bytes() - resident_before < (256 << 20));
}
