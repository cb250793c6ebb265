// The math anchors' small jobs (tests/experiment/math_anchor_test.cpp and the schemes'
// tests): a classification job on synthetic images, its parameters after a simulated run,
// and one worker's SGD in one process to hold them against.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/core/seed.hpp"
#include "models/data/training_data.hpp"
#include "models/nets/build_network.hpp"
#include "models/optim/clip_norm.hpp"
#include "models/optim/optimizer.hpp"
#include "sim/experiment/experiment.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace pssim::testing {

// A small classification job on synthetic images over a star network.
inline std::string scenario_text(const std::string& model, const std::string& protocol, int workers, int batch,
                                 int updates, const std::string& extra = "") {
  return "name: anchor\nseed: 5\nmodel: " + model +
         "\ndata: {kind: synthetic, batch_size: " + std::to_string(batch) +
         ", train_items: 512, test_items: 128}\n"
         "training:\n  optimizer: {kind: sgd, lr: 0.1}\n  stop: {updates: " +
         std::to_string(updates) + "}\ncluster:\n  workers: {count: " + std::to_string(workers) +
         ", speed: {dist: lognormal, sigma: 0.5}}\nprotocol: " + protocol + "\n" + extra;
}

inline std::vector<float> run_params(const std::string& text, std::vector<std::string> overrides = {},
                                     unsigned threads = 1) {
  const auto loaded = scenario::load_scenario_text(text, "anchor.yaml", {overrides, {}});
  experiment::Experiment e(loaded.scenario, threads);
  e.run(nullptr);
  return e.parameters();
}

struct Reference {
  models::TrainingData data;
  std::unique_ptr<models::Network> net;
  std::vector<float> params;
};

inline Reference reference(const std::string& text) {
  const auto s = scenario::load_scenario_text(text, "anchor.yaml").scenario;
  Reference r{models::TrainingData::load(s.data.spec, s.seed), nullptr, {}};
  models::NetworkSpec spec = s.model.network;
  r.data.adapt(spec);
  r.net = models::build_network<float>(spec);
  r.params = r.net->init_params(models::derive_seed(s.seed, "init"));
  return r;
}

// One worker's SGD in one process, as the anchors' single-worker scenarios run it (seed 5,
// batch 16, lr 0.1, momentum 0.9; dropout seeds of step k; clipped to clip_norm when
// given): the parameters after `steps` steps.
inline std::vector<float> sequential_sgd(const std::string& text, int steps, std::optional<double> clip_norm) {
  Reference r = reference(text);
  const models::Partition parts = r.data.partition(1, models::derive_seed(5, "partition"));
  models::BatchSampler sampler(parts[0], 16, models::derive_seed(5, "sampler", 0));
  auto ws = r.net->make_workspace();
  std::vector<float> grad(r.params.size());
  models::OptimizerSpec sgd;
  sgd.lr = 0.1;
  sgd.momentum = 0.9;
  models::SliceOptimizer opt(sgd, 0, r.params.size());
  models::Batch batch;
  const std::uint64_t dropout = models::derive_seed(5, "dropout", 0);
  for (int k = 0; k < steps; ++k) {
    r.data.fill_batch(sampler.next(), batch);
    r.net->loss_and_gradient(r.params, batch.view(), grad, *ws, models::derive_seed(dropout, "iteration", k));
    if (clip_norm) models::clip_global_norm(grad, *clip_norm);
    opt.step_full(r.params, grad, sgd.lr);
  }
  return r.params;
}

}  // namespace pssim::testing
