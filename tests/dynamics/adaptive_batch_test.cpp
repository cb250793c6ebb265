// Adaptive batches (cluster.workers.batch: adaptive): sync rounds under a persistent
// straggler against the closed form, fixed batches unchanged, the global batch kept, and
// the sample-weighted average equal to the gradient of the union batch (real math).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "models/core/seed.hpp"
#include "models/data/training_data.hpp"
#include "models/nets/build_network.hpp"
#include "sim/experiment/experiment.hpp"
#include "sim/parallel/job_pool.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/training/model_gradients.hpp"
#include "sim/training/model_parameters.hpp"

using namespace pssim;

namespace {

struct Rounds : protocol::Observer {
  std::vector<protocol::RoundRecord> rounds;
  void on_round(const protocol::RoundRecord& r) override { rounds.push_back(r); }
};

scenario::Scenario load(const std::string& text) {
  return scenario::load_scenario_text(text, "adaptive.yaml", {{}, {}}).scenario;
}

// 4 workers on a fast star, one 4x slower (speeds 1, 1, 1, 0.25 of 1 GFLOPS); 1 MFLOP per
// sample, batch 8: with fixed batches a sync round is the straggler's 8 x 4 ms = 32 ms
// (plus a few microseconds of network).
std::string straggler_job(const std::string& batch, const std::string& speed = "{dist: list, factors: [1, 1, 1, 0.25]}") {
  return "name: adaptive\nmodel: {kind: synthetic, params: 1000, flops_per_sample: 1MFLOP}\ndata: {batch_size: 8}\n"
         "training: {stop: {updates: 12}}\n"
         "cluster:\n  workers: {count: 4, throughput: 1GFLOPS, speed: " + speed + batch + "}\n"
         "  servers: {count: 1}\n"
         "network:\n  worker_nic: {bandwidth: 10Gbps, latency: 1us}\n  server_nic: {bandwidth: 10Gbps, latency: 1us}\n"
         "protocol: {mode: sync}\n";
}

std::vector<protocol::RoundRecord> run_rounds(const std::string& text) {
  experiment::Experiment e(load(text));
  Rounds r;
  e.run(&r);
  return r.rounds;
}

constexpr double kNetworkSlack = 50e-6;  // seconds: a round's pulls and pushes on this star

}  // namespace

TEST_CASE("adaptive batches shorten sync rounds under a persistent straggler to the closed form",
          "[dynamics][adaptive]") {
  const auto fixed = run_rounds(straggler_job(""));
  const auto adaptive = run_rounds(straggler_job(", batch: adaptive, adaptive_batch: {window: 3}"));
  REQUIRE(fixed.size() == 12);
  REQUIRE(adaptive.size() == 12);
  for (const auto& r : fixed) {
    CHECK(to_seconds(r.duration) >= 0.032);
    CHECK(to_seconds(r.duration) < 0.032 + kNetworkSlack);
  }
  // Rounds 0 .. 2 measure (equal shares: 32 ms). Then throughputs 1000, 1000, 1000 and 250
  // samples/s share the global batch 32: 32 x [1, 1, 1, 0.25] / 3.25 = 9.85 x 3 and 2.46,
  // rounded to [10, 10, 10, 2]. Unrounded, every worker would compute 32 samples x 1 MFLOP
  // / 3.25 GFLOPS = 9.85 ms; rounded, the fast workers take 10 ms, the straggler 8 ms.
  for (std::size_t k = 0; k < adaptive.size(); ++k) {
    INFO("round " << k);
    const double compute = k < 3 ? 0.032 : 0.010;
    CHECK(to_seconds(adaptive[k].duration) >= compute);
    CHECK(to_seconds(adaptive[k].duration) < compute + kNetworkSlack);
  }
  CHECK(32e6 / 3.25e9 == Approx(0.00985).epsilon(1e-3));  // the closed form the 10 ms rounds
}

TEST_CASE("adaptive batches clamp the straggler's share to the lower bound", "[dynamics][adaptive]") {
  // min 0.5: the straggler's 2.46 samples become 4 (its 16 ms are the round); the others
  // share 28: 9.33 -> [10, 9, 9].
  const auto rounds = run_rounds(straggler_job(", batch: adaptive, adaptive_batch: {window: 2, min: 0.5}"));
  REQUIRE(rounds.size() == 12);
  for (std::size_t k = 2; k < rounds.size(); ++k) {
    INFO("round " << k);
    CHECK(to_seconds(rounds[k].duration) >= 0.016);
    CHECK(to_seconds(rounds[k].duration) < 0.016 + kNetworkSlack);
  }
}

TEST_CASE("batch: fixed is the default, and adaptive with equal speeds times every round alike",
          "[dynamics][adaptive]") {
  const auto absent = run_rounds(straggler_job(""));
  const auto fixed = run_rounds(straggler_job(", batch: fixed"));
  const auto equal_adaptive =
      run_rounds(straggler_job(", batch: adaptive, adaptive_batch: {window: 1}", "{dist: constant}"));
  const auto equal_fixed = run_rounds(straggler_job("", "{dist: constant}"));
  REQUIRE(absent.size() == fixed.size());
  for (std::size_t k = 0; k < absent.size(); ++k) CHECK(absent[k].end == fixed[k].end);
  REQUIRE(equal_adaptive.size() == equal_fixed.size());
  for (std::size_t k = 0; k < equal_fixed.size(); ++k) CHECK(equal_adaptive[k].end == equal_fixed[k].end);
}

TEST_CASE("adaptive batches keep the global batch with real math", "[dynamics][adaptive]") {
  // A small MLP on synthetic images; worker 3 is 4x slower. Every round's gradients cover
  // workers x batch_size = 32 samples, whatever the shares.
  const std::string text =
      "name: adaptive-math\nmodel: {kind: mlp, hidden: [16]}\n"
      "data: {kind: synthetic, batch_size: 8, train_items: 512, test_items: 64}\n"
      "training: {stop: {updates: 10}, optimizer: {kind: sgd, lr: 0.1}}\n"
      "cluster:\n  workers: {count: 4, throughput: 1GFLOPS, speed: {dist: list, factors: [1, 1, 1, 0.25]},"
      " batch: adaptive, adaptive_batch: {window: 2}}\n"
      "  servers: {count: 1}\n"
      "network:\n  worker_nic: {bandwidth: 10Gbps, latency: 1us}\n  server_nic: {bandwidth: 10Gbps, latency: 1us}\n"
      "protocol: {mode: sync}\n";
  experiment::Experiment e(load(text));
  Rounds r;
  e.run(&r);
  REQUIRE(r.rounds.size() == 10);
  CHECK(e.protocol().totals().samples == 10 * 32);
  // The shares did change: rounds after the window are shorter than the first.
  CHECK(r.rounds.back().duration < r.rounds.front().duration);
}

TEST_CASE("the sample-weighted average is the gradient of the union batch", "[dynamics][adaptive][math]") {
  // One worker's sampler cut 3 + 5 gives the same 8 items as cut 8 (same order, other
  // cuts): the weighted average of the two gradients must equal the gradient of the 8.
  models::DataSpec spec;
  spec.kind = "synthetic";
  spec.batch_size = 8;
  spec.synthetic_train = 64, spec.synthetic_test = 16;
  const auto data = models::TrainingData::load(spec, 3);
  models::NetworkSpec net_spec;
  net_spec.preset = "mlp";
  net_spec.hidden = {16};
  data.adapt(net_spec);
  const auto network = models::build_network<float>(net_spec);
  const std::vector<float> initial = network->init_params(5);
  const auto n = static_cast<std::int64_t>(initial.size());
  const std::vector<training::Part> parts{{{{0, n}}, n}};
  parallel::JobPool pool(2);
  training::ModelGradientsConfig g;
  g.workers = 1, g.batch_size = 8, g.seed = 9;
  const std::vector<training::SliceRef> held{std::make_shared<const std::vector<float>>(initial)};

  training::ModelGradients whole(*network, data, parts, g, std::make_unique<training::GradientRule>(), pool);
  const auto union_gradient = whole.get(whole.start(0, 0, held))[0];
  REQUIRE(union_gradient->samples == 8);

  training::ModelGradients cut(*network, data, parts, g, std::make_unique<training::GradientRule>(), pool);
  cut.set_batch(0, 3);
  const auto g3 = cut.get(cut.start(0, 0, held))[0];
  cut.set_batch(0, 5);
  const auto g5 = cut.get(cut.start(0, 1, held))[0];
  REQUIRE(g3->samples == 3);
  REQUIRE(g5->samples == 5);

  // Plain SGD with lr 1: the update is the parameters minus the average.
  const auto average = [&](bool weighted) {
    training::ModelParametersConfig m;
    m.optimizer.lr = 1.0;
    m.workers = 2;
    m.weight_by_samples = weighted;
    training::ModelParameters store(initial, parts, m, std::make_unique<training::OptimizerRule>(m.optimizer, std::nullopt),
                                     pool);
    store.accumulate(0, 0, 0, g3, 0);
    store.accumulate(0, 0, 1, g5, 0);
    const auto after = store.apply_average(0, 0, 2);
    std::vector<double> avg(initial.size());
    for (std::size_t i = 0; i < avg.size(); ++i) avg[i] = double(initial[i]) - double((*after)[i]);
    return avg;
  };
  const auto relative_error = [&](const std::vector<double>& a) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double u = union_gradient->values[i];
      num += (a[i] - u) * (a[i] - u), den += u * u;
    }
    return std::sqrt(num / den);
  };
  CHECK(relative_error(average(true)) < 1e-5);  // float sums in another order
  CHECK(relative_error(average(false)) > 1e-3);  // the plain mean is not the union's gradient
}
