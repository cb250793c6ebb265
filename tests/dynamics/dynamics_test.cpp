// Dynamics through whole experiments: protocols under crashes, checkpoints and speed
// changes, with expectations worked out from the scenario (sim/dynamics, sim/ps).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/experiment/experiment.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;

namespace {

struct Record : protocol::Observer {
  std::vector<protocol::UpdateRecord> updates;
  std::vector<protocol::RoundRecord> rounds;
  std::vector<protocol::GradientRecord> gradients;
  std::vector<protocol::EventRecord> events;
  void on_update(const protocol::UpdateRecord& u) override { updates.push_back(u); }
  void on_round(const protocol::RoundRecord& r) override { rounds.push_back(r); }
  void on_gradient(const protocol::GradientRecord& g) override { gradients.push_back(g); }
  void on_event(const protocol::EventRecord& e) override { events.push_back(e); }
  const protocol::EventRecord* event(const std::string& kind) const {
    for (const auto& e : events)
      if (e.kind == kind) return &e;
    return nullptr;
  }
};

scenario::Scenario load(const std::string& text, std::vector<std::string> overrides = {}) {
  return scenario::load_scenario_text(text, "dyn.yaml", {std::move(overrides), {}}).scenario;
}

// 4 workers and one server on a fast star; compute 7 ms per iteration (7 MFLOP at
// 1 GFLOPS), 4 kB of parameters: a round is 7 ms and a few microseconds.
std::string cluster(const std::string& protocol, const std::string& stop, const std::string& extra,
                    const std::string& servers = "  servers: {count: 1}\n") {
  return "name: dyn\nmodel: {kind: synthetic, params: 1000, flops_per_sample: 7MFLOP}\ndata: {batch_size: 1}\n"
         "training: {stop: " + stop + "}\n"
         "cluster:\n  workers: {count: 4, throughput: 1GFLOPS}\n" + servers +
         "network:\n  worker_nic: {bandwidth: 10Gbps, latency: 1us}\n  server_nic: {bandwidth: 10Gbps, latency: 1us}\n"
         "protocol: " + protocol + "\n" + extra;
}

// The first ring rebuild happened at `time`, over `workers` workers.
void check_first_rebuild(const Record& r, TimeNs time, int workers) {
  const auto* rebuilt = r.event("ring_rebuilt");
  REQUIRE(rebuilt);
  CHECK(rebuilt->time == time);
  CHECK(rebuilt->value == workers);
}

double harmonic(int n) {
  double h = 0;
  for (int k = 1; k <= n; ++k) h += 1.0 / k;
  return h;
}

}  // namespace

TEST_CASE("sync with a crashed worker finishes its rounds with N-1 gradients", "[dynamics][sync]") {
  const TimeNs crash = 100'000'000;  // 100 ms, mid-round (rounds are ~7 ms)
  experiment::Experiment e(load(cluster("{mode: sync}", "{updates: 40}",
                                        "events: [{at: 100ms, kind: worker_crash, target: worker-2}]\n")));
  Record r;
  const auto stats = e.run(&r);
  CHECK(stats.stopped_by == experiment::StopReason::Updates);
  REQUIRE(r.updates.size() == 40);
  for (const auto& u : r.updates) CHECK(u.gradients == (u.time < crash ? 4 : 3));
  CHECK(r.updates.back().time > crash);
  // Its gradient in flight or under way at the crash is never delivered late.
  for (const auto& g : r.gradients)
    if (g.worker == 2) CHECK(g.time <= crash);
  CHECK(e.protocol().worker_stats(2).crashes == 1);
  CHECK(e.protocol().worker_stats(2).down == stats.sim_time - crash);
  REQUIRE(r.event("worker_crash"));
  CHECK(r.event("worker_crash")->time == crash);
}

TEST_CASE("a failure timeout holds the sync barrier that long, then it goes on", "[dynamics][sync]") {
  // Worker 2 crashes at 100 ms; the round under way waits until 150 ms.
  experiment::Experiment e(load(cluster("{mode: sync, failure_timeout: 50ms}", "{updates: 30}",
                                        "events: [{at: 100ms, kind: worker_crash, target: worker-2}]\n")));
  Record r;
  e.run(&r);
  const auto* detected = r.event("failure_detected");
  REQUIRE(detected);
  CHECK(detected->time == 150'000'000);
  CHECK(detected->note == "barriers stop waiting for it");
  bool gap = false;
  for (std::size_t i = 1; i < r.updates.size(); ++i)
    if (r.updates[i - 1].time < 100'000'000 && r.updates[i].time >= 100'000'000) {
      CHECK(r.updates[i].time == 150'000'000);  // closed as the failure is detected
      CHECK(r.updates[i].gradients == 3);
      gap = true;
    }
  CHECK(gap);
}

TEST_CASE("a worker that recovers rejoins the sync barrier", "[dynamics][sync]") {
  experiment::Experiment e(
      load(cluster("{mode: sync}", "{sim_time: 400ms}",
                   "events: [{at: 100ms, kind: worker_crash, target: worker-1, recover_after: 100ms}]\n")));
  Record r;
  e.run(&r);
  int full_after = 0;
  for (const auto& u : r.updates) {
    if (u.time > 100'000'000 && u.time < 200'000'000) CHECK(u.gradients == 3);
    if (u.time > 220'000'000) {
      CHECK(u.gradients == 4);
      ++full_after;
    }
  }
  CHECK(full_after > 10);
  CHECK(e.protocol().worker_stats(1).down == 100'000'000);
}

TEST_CASE("async goes on with the live workers, every worker down stops the run", "[dynamics][async]") {
  experiment::Experiment e(load(cluster("{mode: async}", "{sim_time: 10s}",
                                        "events:\n  - {at: 50ms, kind: worker_crash, target: worker-0}\n"
                                        "  - {at: 60ms, kind: worker_crash, target: worker-1}\n"
                                        "  - {at: 70ms, kind: worker_crash, target: worker-2}\n"
                                        "  - {at: 80ms, kind: worker_crash, target: worker-3}\n")));
  Record r;
  const auto stats = e.run(&r);
  CHECK(stats.stopped_by == experiment::StopReason::NoLiveWorkers);
  CHECK(stats.sim_time == 80'000'000);
  for (const auto& u : r.updates) {
    CHECK(u.time <= 80'000'000);
    if (u.time > 50'000'000) CHECK(u.worker != 0);
  }
  CHECK(r.event("no_live_workers"));
  REQUIRE(r.event("failure_detected"));
  CHECK(r.event("failure_detected")->note == "nothing waited for it (async)");  // async has no barrier
}

TEST_CASE("all-reduce rebuilds its ring without the lost worker after the timeout", "[dynamics][allreduce]") {
  experiment::Experiment e(load(cluster("{mode: allreduce, failure_timeout: 20ms}", "{updates: 30}",
                                        "events: [{at: 50ms, kind: worker_crash, target: worker-3}]\n", "")));
  Record r;
  const auto stats = e.run(&r);
  CHECK(stats.stopped_by == experiment::StopReason::Updates);
  check_first_rebuild(r, 70'000'000, 3);
  REQUIRE(r.event("failure_detected"));
  CHECK(r.event("failure_detected")->note == "the ring is rebuilt without it");
  for (const auto& u : r.updates) CHECK(u.gradients == (u.time <= 70'000'000 ? 4 : 3));
  CHECK(r.updates.back().time > 70'000'000);
}

namespace {
// All-reduce with real math (the store checks that an average has every gradient it
// counts): a 784-16-10 MLP on synthetic images, about 5 ms per iteration.
std::string allreduce_with_math(int workers, const std::string& protocol, const std::string& events) {
  return fmt::format("name: ar\nmodel: {{kind: mlp, hidden: [16]}}\n"
                     "data: {{kind: synthetic, batch_size: 4, train_items: 256, test_items: 32}}\n"
                     "training: {{stop: {{sim_time: 1s}}}}\n"
                     "cluster: {{workers: {{count: {}, throughput: 60MFLOPS}}}}\n"
                     "network: {{worker_nic: {{bandwidth: 1Gbps, latency: 50us}}}}\n"
                     "protocol: {{mode: allreduce, failure_timeout: 200ms, {}}}\nevents:\n{}",
                     workers, protocol, events);
}
}  // namespace

TEST_CASE("all-reduce: a worker back before failure_timeout rejoins the ring at once, for every algorithm",
          "[dynamics][allreduce]") {
  // It crashes at 300 ms and is back at 450 ms, before its failure would be detected
  // (500 ms): the stalled ring is rebuilt with it at 450 ms and the round under way runs
  // again with every worker's gradient (its own computed anew).
  for (const auto& [workers, algorithm] : std::vector<std::pair<int, std::string>>{
           {4, "algorithm: ring"},
           {5, "algorithm: halving-doubling, chunk_bytes: 8KB"},
           {5, "algorithm: recursive-doubling"},
           {5, "algorithm: tree"}}) {
    CAPTURE(workers, algorithm);
    experiment::Experiment e(load(allreduce_with_math(
        workers, algorithm, "  - {at: 300ms, kind: worker_crash, target: worker-1, recover_after: 150ms}\n")));
    Record r;
    const auto stats = e.run(&r);
    CHECK(stats.stopped_by == experiment::StopReason::SimTime);
    check_first_rebuild(r, 450'000'000, workers);
    CHECK_FALSE(r.event("failure_detected"));
    int after = 0;
    for (const auto& u : r.updates) {
      CHECK(u.gradients == workers);
      after += u.time > 450'000'000 ? 1 : 0;
    }
    CHECK(after > 50);
  }
}

TEST_CASE("all-reduce: every worker down at once, back before failure_timeout, trains on", "[dynamics][allreduce]") {
  // Both crash at 300 ms and are back at 310 ms: the ring is rebuilt with the first (1
  // worker), then with both, from the round that was under way; memory stays bounded.
  for (const std::string algorithm : {"ring", "halving-doubling", "recursive-doubling", "tree"}) {
    CAPTURE(algorithm);
    experiment::Experiment e(load(allreduce_with_math(
        2, "algorithm: " + algorithm,
        "  - {at: 300ms, kind: worker_crash, target: worker-0, recover_after: 10ms}\n"
        "  - {at: 300ms, kind: worker_crash, target: worker-1, recover_after: 10ms}\n")));
    Record r;
    const auto stats = e.run(&r);
    CHECK(stats.stopped_by == experiment::StopReason::SimTime);
    std::vector<double> rebuilt;
    for (const auto& ev : r.events)
      if (ev.kind == "ring_rebuilt") {
        CHECK(ev.time == 310'000'000);
        rebuilt.push_back(ev.value);
      }
    CHECK(rebuilt == std::vector<double>{1, 2});
    int after = 0;
    for (const auto& u : r.updates)
      if (u.time > 310'000'000) {
        CHECK(u.gradients == 2);
        ++after;
      }
    CHECK(after > 50);
  }
}

TEST_CASE("the updates lost in a server crash are those since its last checkpoint", "[dynamics][checkpoint]") {
  // Checkpoints every 100 ms (instant); the server fails at 555 ms and is back 10 ms later.
  for (const char* bandwidth : {"", ", bandwidth: 1MB/s"}) {  // 4 kB at 1 MB/s: a 4 ms write
    CAPTURE(bandwidth);
    experiment::Experiment e(load(cluster(
        "{mode: sync}", "{sim_time: 900ms}",
        "events: [{at: 555ms, kind: server_crash, target: server-0, recover_after: 10ms}]\n",
        std::string("  servers: {count: 1, checkpoint: {every: 100ms") + bandwidth + "}}\n")));
    Record r;
    e.run(&r);
    // The version a checkpoint holds: that of the last update before its write began
    // (at 500 ms; updates wait while it is written).
    std::int64_t at_checkpoint = 0, at_crash = 0;
    for (const auto& u : r.updates) {
      if (u.time <= 500'000'000) at_checkpoint = u.version;
      if (u.time <= 555'000'000) at_crash = u.version;
    }
    REQUIRE(at_crash - at_checkpoint > 3);
    const auto* lost = r.event("shard_lost");
    REQUIRE(lost);
    CHECK(lost->value == static_cast<double>(at_crash - at_checkpoint));
    CHECK(e.protocol().failure_totals().lost_updates == at_crash - at_checkpoint);
    // Training goes on from the checkpoint: the first update after the restore is the
    // checkpoint's version + 1.
    const auto* restored = r.event("shard_restored");
    REQUIRE(restored);
    CHECK(restored->value == static_cast<double>(at_checkpoint));
    const auto next = std::find_if(r.updates.begin(), r.updates.end(),
                                   [&](const auto& u) { return u.time > restored->time; });
    REQUIRE(next != r.updates.end());
    CHECK(next->version == at_checkpoint + 1);
    CHECK(e.protocol().failure_totals().checkpoints >= 8);
  }
}

namespace {

// Sync over N workers, shifted-exponential noise with shift 0 and mean 1, a FLOP time of
// 1 ms and a network ~1e-4 of a round: returns the mean round in ms.
double mean_round_ms(int n, int backup, bool abandon, int rounds) {
  const std::string text =
      "name: order\nseed: 3\nmodel: {kind: synthetic, params: 1000, flops_per_sample: 1MFLOP}\n"
      "data: {batch_size: 1}\ntraining: {stop: {updates: " + std::to_string(rounds) + "}}\n"
      "cluster:\n  workers: {count: " + std::to_string(n) +
      ", throughput: 1GFLOPS, noise: {dist: shifted-exponential, shift: 0, mean: 1}}\n  servers: {count: 1}\n"
      "network:\n  worker_nic: {bandwidth: 1Tbps, latency: 0s}\n  server_nic: {bandwidth: 1Tbps, latency: 0s}\n"
      "protocol: {mode: sync, backup_workers: " + std::to_string(backup) +
      ", abandon_stale: " + (abandon ? "true" : "false") + "}\n";
  experiment::Experiment e(load(text));
  Record r;
  e.run(&r);
  REQUIRE(r.rounds.size() == static_cast<std::size_t>(rounds));
  double sum = 0;
  for (const auto& round : r.rounds) sum += static_cast<double>(round.duration);
  return sum / rounds / 1e6;
}

}  // namespace

TEST_CASE("order statistics: sync rounds under exponential noise take H_N, and H_N - H_(N-K) with K of N",
          "[dynamics][noise]") {
  // The maximum of N Exp(1) has mean H_N and variance sum 1/k^2 < pi^2/6 (sd < 1.29); over
  // 10000 rounds the standard error is < 0.013 FLOP times, 0.5 % of H_8 = 2.718. The K-th
  // smallest has mean H_N - H_(N-K) and variance sum_{i=N-K+1..N} 1/i^2 (N = 8, K = 5:
  // sd 0.41, standard error 0.5 % of 0.885). Tolerance 2 % (4 standard errors).
  const int n = 8, rounds = 10000;
  CHECK(mean_round_ms(n, 0, false, rounds) == Approx(harmonic(n)).epsilon(0.02));
  const double k_of_n = mean_round_ms(n, 3, true, rounds);
  CHECK(k_of_n == Approx(harmonic(n) - harmonic(n - 5)).epsilon(0.02));
  // Without abandoning, the stragglers finish their stale computations first and fall out
  // of the next round's race: rounds are longer.
  CHECK(mean_round_ms(n, 3, false, rounds) > 1.1 * k_of_n);
}

TEST_CASE("runs with events are deterministic across thread counts", "[dynamics][determinism]") {
  const std::string text = R"(name: det
seed: 11
model: {kind: mlp, hidden: [16]}
data: {kind: synthetic, batch_size: 8, train_items: 512, test_items: 64}
training: {optimizer: {kind: sgd, lr: 0.1}, stop: {sim_time: 2s}}
cluster:
  workers: {count: 4, throughput: 1MFLOPS, speed: {dist: markov, slowdown: 4, mean_slow: 100ms, mean_normal: 300ms},
            noise: {dist: shifted-exponential, shift: 1, mean: 0.5}}
  servers: {count: 2, checkpoint: {every: 300ms, bandwidth: 1MB/s}}
network:
  worker_nic: {bandwidth: 100Mbps, latency: 50us}
  server_nic: {bandwidth: 100Mbps, latency: 50us}
protocol: {mode: sync, failure_timeout: 30ms}
events:
  - {at: 200ms, kind: worker_crash, target: worker-1, recover_after: 400ms}
  - {rate: 2, kind: worker_speed, target: worker-3, factor: 0.5, until: 1500ms}
  - {at: 700ms, kind: server_crash, target: server-1, recover_after: 50ms}
  - {every: 500ms, kind: link, target: worker-0, bandwidth: 50Mbps}
  - {at: 1100ms, kind: link, target: server-0, bandwidth: 0}
  - {at: 1200ms, kind: link, target: server-0, bandwidth: 100Mbps}
)";
  const auto run = [&](unsigned threads) {
    experiment::Experiment e(load(text), threads);
    Record r;
    e.run(&r);
    const std::vector<float> params = e.parameters();
    std::vector<double> out(params.begin(), params.end());
    for (const auto& u : r.updates) out.push_back(static_cast<double>(u.time)), out.push_back(u.train_loss);
    for (const auto& ev : r.events) out.push_back(static_cast<double>(ev.time));
    return std::make_pair(out, r.events.size());
  };
  const auto one = run(1), two = run(2);
  CHECK(one.second > 8);
  CHECK(one.first == two.first);
}

TEST_CASE("a link failed for good or a server that never comes back stops the run as no_progress",
          "[dynamics][link]") {
  for (const char* event : {"{at: 10ms, kind: link, target: server-0, bandwidth: 0}",
                            "{at: 10ms, kind: server_crash, target: server-0}"}) {
    CAPTURE(event);
    experiment::Experiment e(load(cluster("{mode: sync}", "{updates: 50}", std::string("events: [") + event + "]\n")));
    Record r;
    const auto stats = e.run(&r);
    CHECK(stats.stopped_by == experiment::StopReason::NoProgress);
    CHECK(r.event("no_progress"));
    CHECK(r.updates.size() <= 2);
  }
  // Periodic checkpoints keep a timer pending for ever: the run still sees that nothing
  // else can move once the round under way has drained.
  experiment::Experiment timers(load(cluster("{mode: sync}", "{updates: 500}",
                                             "events: [{at: 30ms, kind: server_crash, target: server-0}]\n",
                                             "  servers: {count: 1, checkpoint: {every: 10ms}}\n")));
  Record timers_record;
  const auto timers_stats = timers.run(&timers_record);
  CHECK(timers_stats.stopped_by == experiment::StopReason::NoProgress);
  CHECK(timers_stats.sim_time < 40'000'000);
  // The link comes back: flows stalled at 10 ms go on at 200 ms and the run ends normally.
  experiment::Experiment e(load(cluster("{mode: sync}", "{updates: 50}",
                                        "events: [{at: 10ms, kind: link, target: server-0, bandwidth: 0},\n"
                                        "         {at: 200ms, kind: link, target: server-0, bandwidth: 10Gbps}]\n")));
  Record r;
  CHECK(e.run(&r).stopped_by == experiment::StopReason::Updates);
  for (const auto& u : r.updates) CHECK((u.time < 10'000'000 || u.time > 200'000'000));
}

TEST_CASE("SSP counts only live workers in its clocks after a crash", "[dynamics][ssp]") {
  experiment::Experiment e(load(cluster("{mode: ssp, staleness: 2}", "{updates: 40}",
                                        "events: [{at: 100ms, kind: worker_crash, target: worker-0}]\n")));
  Record r;
  CHECK(e.run(&r).stopped_by == experiment::StopReason::Updates);
  REQUIRE(r.updates.size() == 40);
  for (const auto& u : r.updates)
    if (u.time > 100'000'000) CHECK(u.gradients == 3);
  CHECK(r.updates.back().time > 100'000'000);
}

TEST_CASE("worker speed: an event and Markov on/off stragglers change the pace of iterations",
          "[dynamics][speed]") {
  // One async worker, 10 ms iterations (and ~10 us of messages each).
  const auto one_worker = [](const std::string& speed, const std::string& stop, const std::string& events) {
    return "name: speed\nmodel: {kind: synthetic, params: 1000, flops_per_sample: 10MFLOP}\ndata: {batch_size: 1}\n"
           "training: {stop: " + stop + "}\n"
           "cluster:\n  workers: {count: 1, throughput: 1GFLOPS" + speed + "}\n  servers: {count: 1}\n"
           "network:\n  worker_nic: {bandwidth: 100Gbps, latency: 0s}\n  server_nic: {bandwidth: 100Gbps, latency: 0s}\n"
           "protocol: {mode: async}\n" + events;
  };
  // Half speed from 1 s: 1 s at 100 iterations per second, 1 s at 50.
  experiment::Experiment halved(load(one_worker("", "{sim_time: 2s}",
                                                "events: [{at: 1s, kind: worker_speed, target: worker-0, factor: 0.5}]\n")));
  halved.run(nullptr);
  CHECK(halved.protocol().worker_stats(0).iterations == Approx(150).margin(2));
  // Markov: slow (4x) and normal states of mean 1 s each: the mean speed is
  // 0.5 + 0.5 / 4 = 0.625 of full speed. Over 2000 s (~1000 sojourns each way) the share of
  // time slow has a standard deviation near 1.6 %; tolerance 5 %.
  experiment::Experiment markov(load(one_worker(", speed: {dist: markov, slowdown: 4, mean_slow: 1s, mean_normal: 1s}",
                                                "{sim_time: 2000s}", "")));
  Record r;
  markov.run(&r);
  const double full = 2000 / 0.01;
  CHECK(static_cast<double>(markov.protocol().worker_stats(0).iterations) == Approx(0.625 * full).epsilon(0.05));
  CHECK(r.event("straggler_slow"));
  CHECK(r.event("straggler_normal"));
}
