// Correctness anchors of training inside the simulation: the protocols must do exactly the
// math they claim, whatever the timing. Small models and synthetic data.
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "models/core/seed.hpp"
#include "models/data/training_data.hpp"
#include "models/nets/build_network.hpp"
#include "models/optim/optimizer.hpp"
#include "sim/experiment/experiment.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "tests/support/anchor_jobs.hpp"

using namespace pssim;
using namespace pssim::testing;


TEST_CASE("sync with N workers x batch b equals one-process SGD with batch N*b", "[anchor]") {
  // The same samples: worker w's batches come from its sampler (seeded as documented in
  // training_math.hpp). Mean of N batch means = mean over the N*b samples.
  const int n = 4, b = 8, rounds = 6;
  const std::string text = scenario_text("{kind: mlp, hidden: [16]}", "{mode: sync}", n, b, rounds);
  const std::vector<float> simulated = run_params(text);

  Reference r = reference(text);
  const models::Partition parts = r.data.partition(n, models::derive_seed(5, "partition"));
  std::vector<models::BatchSampler> samplers;
  for (int w = 0; w < n; ++w) samplers.emplace_back(parts[w], b, models::derive_seed(5, "sampler", w));
  auto ws = r.net->make_workspace();
  std::vector<float> grad(r.params.size());
  models::OptimizerSpec sgd;
  sgd.lr = 0.1;
  models::SliceOptimizer opt(sgd, 0, r.params.size());
  models::Batch batch;
  for (int k = 0; k < rounds; ++k) {
    std::vector<std::int64_t> items;
    for (auto& s : samplers) {
      const auto next = s.next();
      items.insert(items.end(), next.begin(), next.end());
    }
    r.data.fill_batch(items, batch);
    r.net->loss_and_gradient(r.params, batch.view(), grad, *ws, 0);
    opt.step_full(r.params, grad, sgd.lr);
  }
  REQUIRE(simulated.size() == r.params.size());
  for (std::size_t i = 0; i < r.params.size(); ++i) REQUIRE(simulated[i] == Approx(r.params[i]).margin(1e-5));
}

TEST_CASE("async with one worker equals sequential SGD exactly", "[anchor]") {
  // Momentum and dropout too: the optimizer state and the dropout seeds must line up.
  const std::string model = "{kind: cnn, layers: [{kind: conv2d, out: 2, kernel: 3}, {kind: relu}, {kind: dropout, p: 0.3}, "
                            "{kind: flatten}, {kind: linear, out: 10}]}";
  const int steps = 7;
  std::string text = scenario_text(model, "{mode: async}", 1, 16, steps);
  const std::vector<float> simulated = run_params(text, {"training.optimizer.momentum=0.9"});
  CHECK(simulated == sequential_sgd(text, steps, std::nullopt));  // bit for bit
}

TEST_CASE("sharding changes time, not math: sharded sync equals unsharded sync exactly", "[anchor]") {
  const std::string text = scenario_text("{kind: mlp, hidden: [16]}", "{mode: sync}", 3, 8, 5);
  const auto one = run_params(text);
  CHECK(run_params(text, {"cluster.servers={count: 3, shards: 3}"}) == one);
  CHECK(run_params(text, {"cluster.servers={count: 2, shards: 4, partition: layer, placement: balanced}"}) == one);
  CHECK(run_params(text, {"cluster.servers={placement: colocated}"}) == one);
  CHECK(run_params(text, {"training.optimizer.momentum=0.9"}) != one);  // the comparison can fail
}

TEST_CASE("SSP with bound 0 equals sync exactly", "[anchor]") {
  const std::string text = scenario_text("{kind: mlp, hidden: [16]}", "{mode: sync}", 4, 8, 6);
  CHECK(run_params(text, {"protocol={mode: ssp, staleness: 0}"}) == run_params(text));
  CHECK(run_params(text, {"protocol={mode: ssp, staleness: 2}"}) != run_params(text));
}

TEST_CASE("results are bit-identical for any number of threads", "[anchor]") {
  const std::string text = scenario_text("{kind: mlp, hidden: [16]}", "{mode: async}", 6, 8, 12);
  const std::vector<std::string> two_servers = {"cluster.servers={count: 2}"};
  const auto one = run_params(text, two_servers, 1);
  CHECK(run_params(text, two_servers, 2) == one);
  CHECK(run_params(text, two_servers, 4) == one);
}

TEST_CASE("all-reduce trains exactly as sync PS, its algorithm changes time, not math", "[anchor][allreduce]") {
  // Both average the same workers' gradients in worker order and apply the same optimizer
  // to the same state (one replica stands for all), so the parameters are bit-identical.
  const std::string sync = scenario_text("{kind: mlp, hidden: [16]}", "{mode: sync}", 4, 8, 5);
  const auto reference = run_params(sync, {"training.optimizer.momentum=0.9"});
  for (const char* algorithm : {"ring", "halving-doubling", "recursive-doubling", "tree"}) {
    INFO(algorithm);
    CHECK(run_params(sync, {"training.optimizer.momentum=0.9",
                            std::string("protocol={mode: allreduce, algorithm: ") + algorithm + "}"}) == reference);
  }
  CHECK(run_params(sync, {"training.optimizer.momentum=0.9", "protocol={mode: allreduce, chunk_bytes: 4KB}"}, 2) ==
        reference);
  CHECK(run_params(sync, {"protocol={mode: allreduce}"}) != reference);  // the comparison can fail
}

namespace {
// A small word model on Markov-chain text: 50 tokens, embedding 8, LSTM 16.
std::string lm_text(const std::string& protocol) {
  return "name: lm\nseed: 4\nmodel: {kind: lstm-lm, embed_dim: 8, hidden_size: 16}\n"
         "data: {kind: synthetic-text, batch_size: 4, seq_len: 6}\n"
         "training: {optimizer: {kind: sgd, lr: 0.5}, stop: {updates: 4}}\n"
         "cluster: {workers: {count: 3}, servers: {count: 2}}\nprotocol: " +
         protocol + "\n";
}

struct Outcome {
  std::vector<float> params;
  double push_bytes, pull_bytes;
};

Outcome run_lm(const std::string& text, std::vector<std::string> overrides = {}) {
  const auto loaded = scenario::load_scenario_text(text, "lm.yaml", {overrides, {}});
  experiment::Experiment e(loaded.scenario, 1);
  e.run(nullptr);
  return {e.parameters(), e.network().bytes_moved(net::ByteAccount::Push),
          e.network().bytes_moved(net::ByteAccount::Pull)};
}
}  // namespace

TEST_CASE("sparse embedding rows change bytes, not sync parameters, hybrid trains exactly as sync", "[anchor][allreduce]") {
  const Outcome dense = run_lm(lm_text("{mode: sync}"));
  const Outcome sparse = run_lm(lm_text("{mode: sync}"), {"cluster.servers.sparse_embeddings=true"});
  CHECK(sparse.params == dense.params);
  CHECK(sparse.push_bytes < dense.push_bytes);
  CHECK(sparse.pull_bytes < dense.pull_bytes);
  // (Async parameters depend on timing, which smaller messages change: no such identity.)
  // Hybrid: the embedding's rows on the 2 servers, sparse; the rest all-reduced.
  const Outcome hybrid = run_lm(lm_text("{mode: hybrid}"));
  CHECK(hybrid.params == dense.params);
  CHECK(run_lm(lm_text("{mode: hybrid, algorithm: halving-doubling}")).params == dense.params);
  CHECK(run_lm(lm_text("{mode: sync}"), {"training.optimizer.lr=0.4"}).params != dense.params);
}

TEST_CASE("staleness-aware rate lr / (1 + c tau): c = 1 is inverse-plus-one, c = 0 no scaling", "[anchor]") {
  const std::string text = scenario_text("{kind: mlp, hidden: [16]}", "{mode: async}", 4, 8, 12);
  const auto plus_one = run_params(text, {"training.staleness_lr=inverse-plus-one"});
  CHECK(run_params(text, {"training.staleness_lr=inverse-plus-one", "training.staleness_lr_coefficient=1"}) ==
        plus_one);
  CHECK(run_params(text, {"training.staleness_lr=inverse-plus-one", "training.staleness_lr_coefficient=0"}) ==
        run_params(text));
  const auto tenth =
      run_params(text, {"training.staleness_lr=inverse-plus-one", "training.staleness_lr_coefficient=0.1"});
  CHECK(tenth != plus_one);  // four async workers: gradients are stale
  CHECK(tenth != run_params(text));
}

TEST_CASE("local SGD with one worker is sequential SGD: H local steps, then the change is added", "[anchor][local-sgd]") {
  // Momentum, dropout and clipping: the worker's optimizer state persists across rounds,
  // its local steps draw the dropout seeds of steps t = round x H + k, and each step is
  // clipped. The server adds w_H - w_0 to w_0: equal to w_H up to one rounding.
  const std::string model = "{kind: cnn, layers: [{kind: conv2d, out: 2, kernel: 3}, {kind: relu}, {kind: dropout, p: 0.3}, "
                            "{kind: flatten}, {kind: linear, out: 10}]}";
  const int rounds = 3, local = 4;
  const std::string text = scenario_text(model, "{mode: local-sgd, local_steps: 4}", 1, 16, rounds,
                                         "");
  const std::vector<float> simulated =
      run_params(text, {"training.optimizer.momentum=0.9", "training.clip_norm=0.5"});
  const std::vector<float> expected = sequential_sgd(text, rounds * local, 0.5);
  REQUIRE(simulated.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) REQUIRE(simulated[i] == Approx(expected[i]).margin(1e-6));
}

TEST_CASE("local SGD with one local step is sync SGD with averaged gradients, up to rounding", "[anchor][local-sgd]") {
  const std::string text = scenario_text("{kind: mlp, hidden: [16]}", "{mode: sync}", 4, 8, 6);
  const auto sync = run_params(text);
  const auto local = run_params(text, {"protocol={mode: local-sgd, local_steps: 1}"});
  REQUIRE(local.size() == sync.size());
  for (std::size_t i = 0; i < sync.size(); ++i) REQUIRE(local[i] == Approx(sync[i]).margin(1e-6));
  // ... and more local steps move further per round (the comparison can fail).
  CHECK(run_params(text, {"protocol={mode: local-sgd, local_steps: 4}"}) != local);
}

TEST_CASE("a round of local SGD computes H batches: iteration time and samples scale with H", "[anchor][local-sgd]") {
  const std::string text = scenario_text("{kind: mlp, hidden: [16]}", "{mode: local-sgd, local_steps: 1}", 2, 8, 4);
  const auto once = [&](const std::string& h) {
    const auto loaded = scenario::load_scenario_text(text, "anchor.yaml",
                                                     {{"protocol.local_steps=" + h, "cluster.workers.speed={dist: constant}"}, {}});
    experiment::Experiment e(loaded.scenario, 1);
    e.run(nullptr);
    return std::pair{e.protocol().worker_stats(0).computing, e.protocol().totals().samples};
  };
  const auto [compute1, samples1] = once("1");
  const auto [compute5, samples5] = once("5");
  CHECK(std::llabs(compute5 - 5 * compute1) <= 4 * 5);  // nanoseconds rounded per iteration
  CHECK(samples1 == 4 * 2 * 8);
  CHECK(samples5 == 5 * samples1);
}

TEST_CASE("learning-rate schedules reach the servers' updates", "[anchor][lr_schedule]") {
  const std::string text = scenario_text("{kind: mlp, hidden: [16]}", "{mode: sync}", 2, 8, 6);
  const auto constant = run_params(text);
  // A step schedule that decays after the last update changes nothing; one that decays
  // earlier does.
  CHECK(run_params(text, {"training.lr_schedule={kind: step, step_size: 6, gamma: 0.5}"}) == constant);
  CHECK(run_params(text, {"training.lr_schedule={kind: step, step_size: 3, gamma: 0.5}"}) != constant);
  // Cosine over the run's updates by default (training.stop.updates).
  CHECK(run_params(text, {"training.lr_schedule={kind: cosine}"}) != constant);
}

TEST_CASE("overlap, partitioning and priority change the timing, never the math", "[anchor][overlap]") {
  // Sync SGD on an MLP whose largest layer is the last (its gradient leaves first), with 2
  // shards over 2 server hosts and slow NICs and compute: every mode computes the same
  // gradients on the same parameters, so the parameters after 5 rounds are bit-identical,
  // while the time they take differs (overlap hides communication behind computation).
  const std::string base = scenario_text("{kind: mlp, hidden: [4, 512]}", "{mode: sync}", 3, 8, 5);
  const auto run = [&](const std::vector<std::string>& overrides, unsigned threads = 1) {
    const auto loaded = scenario::load_scenario_text(base, "anchor.yaml", {overrides, {}});
    experiment::Experiment e(loaded.scenario, threads);
    const auto stats = e.run(nullptr);
    return std::make_pair(e.parameters(), stats.sim_time);
  };
  const std::vector<std::string> slow{"cluster.servers={count: 2, shards: 2}", "network.worker_nic.bandwidth=50Mbps",
                                      "network.server_nic.bandwidth=50Mbps", "cluster.workers.throughput=50MFLOPS"};
  const auto none = run(slow);
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), slow.begin(), slow.end());
    return run(extra);
  };
  const auto backward = with({"protocol.overlap=backward"});
  const auto full = with({"protocol.overlap=full", "protocol.schedule=priority", "protocol.partition_bytes=1KB"});
  CHECK(backward.first == none.first);
  CHECK(full.first == none.first);
  CHECK(backward.second < none.second);
  CHECK(full.second < backward.second);  // about 157, 145 and 134 ms
  // Any thread count: the same parameters at the same simulated time.
  std::vector<std::string> full_settings{"protocol.overlap=full", "protocol.schedule=priority",
                                         "protocol.partition_bytes=1KB"};
  full_settings.insert(full_settings.end(), slow.begin(), slow.end());
  CHECK(run(full_settings, 2) == full);
  // All-reduce with DDP-like buckets (one per layer at 4KB): the same math too.
  const std::vector<std::string> ring{"protocol={mode: allreduce}", "network.worker_nic.bandwidth=50Mbps",
                                      "cluster.workers.throughput=50MFLOPS"};
  const auto reduced = run(ring);
  auto bucketed = ring;
  bucketed.push_back("protocol.overlap=full");
  bucketed.push_back("protocol.bucket_bytes=4KB");
  const auto overlapped = run(bucketed);
  CHECK(overlapped.first == reduced.first);
  CHECK(overlapped.second < reduced.second);
}
