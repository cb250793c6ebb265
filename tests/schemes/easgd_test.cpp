// EASGD (sim/schemes/easgd.cpp): its math against sequential SGD and by hand, the bytes of
// an exchange, and what a worker back from a crash holds.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/parallel/job_pool.hpp"
#include "sim/schemes/registry.hpp"
#include "sim/training/model_parameters.hpp"
#include "tests/support/anchor_jobs.hpp"
#include "tests/support/delay_transport.hpp"

using namespace pssim;
using namespace pssim::testing;

namespace {

constexpr double GBps = 1e9;

// The protocol section of a scenario, read by the registry as a scenario's is.
protocol::ProtocolConfig easgd(int tau, double alpha, int workers) {
  const std::string text = scenario_text("{kind: mlp, hidden: [4]}",
                                         "{mode: easgd, tau: " + std::to_string(tau) +
                                             ", alpha: " + std::to_string(alpha) + "}",
                                         workers, 4, 1);
  return scenario::load_scenario_text(text, "easgd.yaml").scenario.protocol;
}

// A worker's computation, faked: its replica comes back as what it held plus 1 (every
// element); each start records what the worker held.
class PlusOne final : public training::GradientSource {
 public:
  std::uint64_t start(std::size_t worker, std::int64_t, const std::vector<training::SliceRef>& held) override {
    held_at_start.push_back({worker, *held.at(0)});
    auto replica = std::make_shared<training::GradientData>();
    replica->values = *held[0];
    for (float& x : replica->values) x += 1;
    replica->loss = 1, replica->samples = 1;
    results_[next_] = {replica};
    return next_++;
  }
  std::vector<training::GradientRef> get(std::uint64_t ticket) override {
    auto out = results_.at(ticket);
    results_.erase(ticket);
    return out;
  }
  void cancel(std::uint64_t ticket) override { results_.erase(ticket); }
  std::vector<std::pair<std::size_t, std::vector<float>>> held_at_start;

 private:
  std::map<std::uint64_t, std::vector<training::GradientRef>> results_;
  std::uint64_t next_ = 1;
};

// EASGD over a fake transport: workers 0 .. N-1 on hosts 0 .. N-1, one shard of `params`
// on host N, the registry's protocol and server rule, PlusOne workers.
struct Rig {
  Simulator sim{1};
  DelayTransport transport{sim, GBps, 1000};
  std::unique_ptr<compute::ComputeModel> compute;
  parallel::JobPool pool{1};
  PlusOne gradients;
  std::unique_ptr<training::ModelParameters> store;
  std::unique_ptr<protocol::TrainingProtocol> protocol;
  std::size_t workers;
  double model_bytes;

  Rig(const protocol::ProtocolConfig& p, std::size_t n, std::int64_t params, std::int64_t updates) : workers(n) {
    compute::ComputeSpec spec;
    spec.throughput = 1e12;
    compute = std::make_unique<compute::ComputeModel>(spec, n, sim.random());
    const schemes::Scheme& scheme = schemes::find(p.scheme);
    const std::vector<training::Part> parts{{{{0, params}}, params}};
    training::ModelParametersConfig m;
    m.workers = static_cast<std::int64_t>(n);
    store = std::make_unique<training::ModelParameters>(std::vector<float>(static_cast<std::size_t>(params), 0.0f),
                                                        parts, m, scheme.server_rule(p, {}), pool);
    ps::PsConfig config;
    config.flops_per_iteration = 1e9;  // 1 ms
    config.stop.updates = updates;
    ps::PsLayout layout;
    for (std::size_t w = 0; w < n; ++w) layout.worker_hosts.push_back(static_cast<net::NodeId>(w));
    layout.shards = parts;
    layout.shard_hosts = {static_cast<net::NodeId>(n)};
    model_bytes = parts[0].bytes();
    protocol = schemes::build(scheme, {sim, transport, *compute, nullptr, p, config, layout, {&gradients, store.get()}});
  }
  void run() {
    protocol->start();
    sim.run_until_condition([this] { return protocol->finished(); });
  }
  const std::vector<float>& center() const { return *store->current(0); }
};

}  // namespace

TEST_CASE("EASGD with one worker, alpha 1 and tau 1 is sequential SGD", "[schemes][easgd]") {
  // Momentum and dropout too: the worker's optimizer state and the dropout seeds of its
  // steps must line up with one process's, and the center must follow the replica exactly.
  const std::string model = "{kind: cnn, layers: [{kind: conv2d, out: 2, kernel: 3}, {kind: relu}, {kind: dropout, p: "
                            "0.3}, {kind: flatten}, {kind: linear, out: 10}]}";
  const int steps = 7;
  const std::string text = scenario_text(model, "{mode: easgd, tau: 1, alpha: 1}", 1, 16, steps);
  CHECK(run_params(text, {"training.optimizer.momentum=0.9"}) == sequential_sgd(text, steps, std::nullopt));
  // tau steps per exchange: the center after 3 exchanges of tau 2 is 6 steps of SGD.
  const std::string tau2 = scenario_text(model, "{mode: easgd, tau: 2, alpha: 1}", 1, 16, 3);
  CHECK(run_params(tau2, {"training.optimizer.momentum=0.9"}) == sequential_sgd(text, 6, std::nullopt));
  // A smaller alpha keeps the center behind the replica (the comparison can fail).
  CHECK(run_params(text, {"training.optimizer.momentum=0.9", "protocol.alpha=0.5"}) !=
        sequential_sgd(text, steps, std::nullopt));
}

TEST_CASE("the elastic exchange: the center moves toward the replica, the replica toward the new center",
          "[schemes][easgd]") {
  // One worker, alpha 1/4, everything at 0. Exchange 1: x = 0 + 1 = 1; c = 3/4 0 + 1/4 1 =
  // 1/4; the worker gets x = 3/4 1 + 1/4 1/4 = 13/16. Exchange 2: x = 29/16; c = 3/4 1/4 +
  // 1/4 29/16 = 41/64; the worker gets 3/4 29/16 + 1/4 41/64 = 389/256.
  Rig rig(easgd(1, 0.25, 1), 1, 3, 2);
  rig.run();
  REQUIRE(rig.gradients.held_at_start.size() == 2);
  CHECK(rig.gradients.held_at_start[0].second == std::vector<float>(3, 0.0f));
  CHECK(rig.gradients.held_at_start[1].second == std::vector<float>(3, 13.0f / 16));
  CHECK(rig.center() == std::vector<float>(3, 41.0f / 64));
  CHECK(rig.protocol->least_updates() == 2);
}

TEST_CASE("an EASGD exchange moves one model each way", "[schemes][easgd]") {
  // 3 workers, a model of 1,000 parameters (4 kB), 12 exchanges: every message is the whole
  // model; the shard received a replica per exchange (and those still in flight at the
  // stop) and answered each exchange, after its first slice to every worker.
  Rig rig(easgd(2, 0.5, 3), 3, 1000, 12);
  rig.run();
  const net::NodeId shard = 3;
  std::size_t up = 0, down = 0;
  for (const auto& m : rig.transport.sent) {
    CHECK(m.bytes == rig.model_bytes);
    (m.dst == shard ? up : down) += 1;
  }
  const auto exchanges = static_cast<std::size_t>(rig.protocol->least_updates());
  CHECK(exchanges >= 12);  // replicas queued at the shard when the 12th was applied go in too
  CHECK(down == rig.workers + exchanges);
  CHECK(up >= exchanges);
  CHECK(up <= exchanges + rig.workers - 1);  // at most the others' replicas in flight
}

TEST_CASE("a worker back from a crash holds the center of its return, not its old replica", "[schemes][easgd]") {
  Rig rig(easgd(1, 0.5, 2), 2, 4, 1000);
  rig.protocol->start();
  rig.sim.run_until(20'000'000);  // about ten exchanges each
  rig.protocol->worker_down(1);
  rig.sim.run_until(30'000'000);
  const std::vector<float> center = rig.center();
  const auto before = rig.gradients.held_at_start.size();
  rig.protocol->worker_up(1);
  rig.sim.run_until(31'000'000);  // the center's slice reaches it; it starts at once
  std::vector<float> first;
  for (std::size_t i = before; i < rig.gradients.held_at_start.size(); ++i)
    if (rig.gradients.held_at_start[i].first == 1) {
      first = rig.gradients.held_at_start[i].second;
      break;
    }
  REQUIRE_FALSE(first.empty());
  // The center moved on while worker 1 was down (worker 0 kept exchanging), and worker 1's
  // replica before the crash was elsewhere: it starts from the center as sent at its return.
  CHECK(first == center);
  std::vector<float> last_before;
  for (std::size_t i = 0; i < before; ++i)
    if (rig.gradients.held_at_start[i].first == 1) last_before = rig.gradients.held_at_start[i].second;
  CHECK(first != last_before);
}
