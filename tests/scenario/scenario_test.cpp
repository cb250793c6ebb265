#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/schemes/collective_keys.hpp"
#include "sim/schemes/registry.hpp"

using namespace pssim::scenario;

namespace {

const char* kMinimal = R"(name: tiny
model: {kind: synthetic, params: 25M, flops_per_sample: 4GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4}}
)";

std::string first_error(const std::string& text, const Overrides& o = {}) {
  try {
    load_scenario_text(text, "s.yaml", o);
  } catch (const ScenarioError& e) {
    return format_diagnostic(e.diagnostics().front());
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a minimal scenario resolves with documented defaults", "[scenario]") {
  const auto loaded = load_scenario_text(kMinimal, "s.yaml");
  const Scenario& s = loaded.scenario;
  CHECK(s.name == "tiny");
  CHECK(s.seed == 1);
  CHECK(s.model.synthetic.params == 25'000'000);
  CHECK(s.model.synthetic.flops_per_sample == 4e9);
  CHECK(s.model.synthetic.layer_params == std::vector<std::int64_t>{25'000'000});
  CHECK(s.cluster.workers.count == 4);
  CHECK(s.cluster.workers.throughput_flops == 1e13);
  CHECK(s.cluster.servers.count == 1);
  CHECK(s.cluster.servers.shards == 1);
  CHECK(s.network.worker_nic.up == Approx(1.25e9));
  CHECK(s.network.server_nic.down == Approx(3.125e9));
  CHECK(s.network.worker_nic.latency == 20'000);
  CHECK(s.protocol.scheme == "sync");
  CHECK(s.training.stop.updates == 3);
  CHECK_FALSE(s.training.stop.sim_time.has_value());
  // The derived shard count is written into the resolved tree.
  CHECK(loaded.resolved.at("cluster").at("servers").at("shards").text() == "1");
}

TEST_CASE("the resolved scenario reads back to the same scenario", "[scenario]") {
  Overrides o;
  o.assignments = {"cluster.workers.speed={dist: lognormal, sigma: 0.3}", "network.worker_nic.up=5Gbps"};
  o.seed = 42;
  const auto first = load_scenario_text(kMinimal, "s.yaml", o);
  const std::string yaml = resolved_yaml(first);
  const auto second = load_scenario_text(yaml, "scenario.yaml");
  CHECK(resolved_yaml(second) == yaml);
  CHECK(second.scenario.seed == 42);
  CHECK(second.scenario.cluster.workers.speed.dist == SpeedConfig::Dist::Lognormal);
  CHECK(second.scenario.cluster.workers.speed.sigma == 0.3);
  CHECK(second.scenario.network.worker_nic.up == Approx(0.625e9));
  CHECK(second.scenario.network.worker_nic.down == Approx(1.25e9));
}

TEST_CASE("the resolved scenario states the keys whose absence had a meaning, with their value", "[scenario]") {
  const auto loaded = load_scenario_text(kMinimal, "s.yaml");
  const ConfigNode& r = loaded.resolved;
  CHECK(r.at("network").at("model").text() == "maxmin");
  CHECK(r.at("protocol").at("overlap").text() == "none");
  CHECK(r.at("protocol").at("schedule").text() == "fifo");
  CHECK(r.at("protocol").at("failure_timeout").text() == "0s");
  CHECK(r.at("protocol").at("abandon_stale").text() == "false");
  CHECK(r.at("cluster").at("workers").at("batch").text() == "fixed");
  CHECK(r.at("cluster").at("servers").at("sparse_embeddings").text() == "false");
  CHECK(r.at("output").at("utilization_max_values").text() == "4194304");
  // ... and reads back as the same scenario.
  CHECK(resolved_yaml(load_scenario_text(resolved_yaml(loaded), "scenario.yaml")) == resolved_yaml(loaded));
}

TEST_CASE("cross-key rules are located errors", "[scenario]") {
  CHECK(first_error("name: x\nmodel: {kind: synthetic, params: 10, flops_per_sample: 1FLOP}\n"
                    "cluster: {workers: {count: 2}}\n") ==
        "s.yaml:1:1: error: training.stop needs at least one condition: sim_time (e.g. 60s), updates (e.g. 100) "
        "or epochs");
  CHECK(first_error(std::string(kMinimal) + "protocol: {mode: sync, backup_workers: 4}\n") ==
        "s.yaml:5:40: error: 4 backup workers out of 4: a round needs at least one gradient");
  CHECK(first_error(kMinimal, {{"cluster.workers.speed={dist: list, factors: [1, 2]}"}, {}}) ==
        "<--set cluster.workers.speed={dist: list, factors: [1, 2]}>:1:45: error: cluster.workers.speed.factors has 2 "
        "entries for 4 workers");
  CHECK(first_error(kMinimal, {{"model.layer_params=[1M, 2M]"}, {}}) ==
        "<--set model.layer_params=[1M, 2M]>:1:20: error: model.layer_params sum to 3000000, but model.params is 25000000");
  CHECK(first_error(kMinimal, {{"cluster.servers.shards=4", "cluster.servers.partition=layer"}, {}}) ==
        "<--set cluster.servers.shards=4>:1:24: error: 4 shards but the model has 1 layers: with partition: layer "
        "some shards would be empty (use fewer shards or partition: bytes)");
  CHECK(first_error(kMinimal, {{"network.nic_overrides=[{host: worker-9, bandwidth: 1Gbps}]"}, {}}) ==
        "<--set network.nic_overrides=[{host: worker-9, bandwidth: 1Gbps}]>:1:31: error: no host 'worker-9': hosts "
        "are worker-0 .. worker-3 and server-0 .. server-0");
  CHECK(first_error(kMinimal, {{"cluster.servers={placement: colocated, count: 2}"}, {}}) ==
        "<--set cluster.servers={placement: colocated, count: 2}>:1:47: error: cluster.servers.count does not apply "
        "with placement: colocated (servers run on the worker hosts); remove it");
  CHECK(first_error(kMinimal, {{"cluster.workers.cuont=3"}, {}}) ==
        "<--set cluster.workers.cuont=3>:1:17: error: unknown key 'cuont' in cluster.workers; did you mean 'count'?");
}

TEST_CASE("real models: the model, its data and the training options must fit together", "[scenario]") {
  const std::string cnn = R"(name: cnn
model: {kind: cnn, preset: convnet-small}
data: {kind: fashion-mnist, batch_size: 64, partition: {kind: dirichlet, alpha: 0.3}}
training:
  optimizer: {kind: sgd, lr: 0.05, momentum: 0.9}
  stop: {sim_time: 30s}
  eval: {every: 1s}
  target_accuracy: 80%
cluster: {workers: {count: 4}}
protocol: {mode: async}
)";
  const auto loaded = load_scenario_text(cnn, "s.yaml");
  const Scenario& s = loaded.scenario;
  CHECK(s.model.kind == ModelConfig::Kind::Network);
  CHECK(s.model.network.preset == "convnet-small");
  CHECK(s.model.math);
  CHECK(s.data.present);
  CHECK(s.data.spec.kind == "fashion-mnist");
  CHECK(s.data.spec.partition.kind == pssim::models::PartitionKind::dirichlet);
  CHECK(s.data.spec.partition.alpha == 0.3);
  CHECK(s.training.optimizer.momentum == 0.9);
  CHECK(s.training.eval_every == pssim::kSecond);
  CHECK(s.training.target_accuracy == Approx(0.8));

  CHECK(first_error(cnn, {{"model={kind: cnn}"}, {}}) ==
        "<--set model={kind: cnn}>:1:7: error: model.kind cnn needs either preset (convnet-small, cnn, mnist-net) or layers");
  CHECK(first_error(cnn, {{"model={kind: lstm-lm}"}, {}}) ==
        "s.yaml:3:14: error: an lstm-lm trains on text: data.kind text or synthetic-text");
  CHECK(first_error(cnn, {{"model={kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}"}, {}}) ==
        "s.yaml:3:14: error: a synthetic model trains on no data: remove data.kind or use a real model");
  CHECK(first_error(cnn, {{"model.math=false"}, {}}) ==
        "s.yaml:7:17: error: training.eval.every evaluates a real model: it needs model.math true and data");
  CHECK(first_error(cnn, {{"protocol.mode=sync", "training.staleness_lr=inverse"}, {}}) ==
        "<--set training.staleness_lr=inverse>:1:23: error: training.staleness_lr applies to async and ssp: sync "
        "gradients are never stale");
  CHECK(first_error(cnn, {{"training.staleness_lr_coefficient=0.1"}, {}}) ==
        "<--set training.staleness_lr_coefficient=0.1>:1:35: error: training.staleness_lr_coefficient is the c of "
        "staleness_lr: inverse-plus-one (lr / (1 + c tau))");
  CHECK(load_scenario_text(cnn, "s.yaml",
                           {{"training.staleness_lr=inverse-plus-one", "training.staleness_lr_coefficient=0.1"}, {}})
            .scenario.training.lr.staleness_coefficient == 0.1);
  CHECK(s.training.lr.staleness_coefficient == 1);
  CHECK(first_error(cnn, {{"protocol.mode=sync", "training.delay_compensation=0.04"}, {}}) ==
        "<--set training.delay_compensation=0.04>:1:29: error: training.delay_compensation (DC-ASGD) applies to "
        "async only");
  CHECK_THAT(first_error(cnn, {{"training.optimizer.nesterov=true", "training.optimizer.momentum=0"}, {}}),
             Catch::StartsWith("s.yaml:5:14: error: ") && Catch::Contains("nesterov"));
  CHECK(first_error(cnn, {{"data={kind: none}"}, {}}) ==
        "<--set data={kind: none}>:1:6: error: model.kind cnn needs data: set data.kind (fashion-mnist, mnist or "
        "synthetic)");
}

TEST_CASE("docs/scenario-reference.md is the schema's current rendering", "[scenario][docs]") {
  std::ifstream in(std::string(PSSIM_SOURCE_DIR) + "/docs/scenario-reference.md");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  // Regenerate with: build/release/sim/cli/pssim schema > docs/scenario-reference.md
  CHECK(text.str() == scenario_reference_markdown());
}

TEST_CASE("protocol modes come from the scheme registry, each one's keys and combinations are checked",
          "[scenario][schemes]") {
  using pssim::schemes::CollectiveSettings;
  using pssim::schemes::settings_as;
  const auto ar = load_scenario_text(kMinimal, "s.yaml", {{"protocol={mode: allreduce, algorithm: tree, chunk_bytes: 1MB}"}, {}});
  CHECK(ar.scenario.protocol.scheme == "allreduce");
  CHECK(settings_as<CollectiveSettings>(ar.scenario.protocol).algorithm == pssim::collective::AlgorithmKind::Tree);
  CHECK(settings_as<CollectiveSettings>(ar.scenario.protocol).chunk_bytes == 1e6);
  CHECK(settings_as<CollectiveSettings>(
            load_scenario_text(kMinimal, "s.yaml", {{"protocol.mode=allreduce"}, {}}).scenario.protocol)
            .algorithm == pssim::collective::AlgorithmKind::Ring);

  // An unknown mode is an error, never another scheme: the message lists the registry's.
  std::string names;
  for (const auto& x : pssim::schemes::all()) names += (names.empty() ? "" : ", ") + x.name;
  CHECK(first_error(kMinimal, {{"protocol.mode=allreduse"}, {}}) ==
        "<--set protocol.mode=allreduse>:1:15: error: protocol.mode = 'allreduse' is not one of: " + names +
            "; did you mean 'allreduce'?");
  // All-reduce has no servers, sends gradients uncompressed and keeps no backup workers.
  const std::string with_servers = std::string(kMinimal) + "protocol: {mode: allreduce}\n";
  CHECK(first_error(with_servers, {{"cluster.servers.count=2"}, {}}) ==
        "<--set cluster.servers.count=2>:1:9: error: cluster.servers is not used by protocol allreduce: there are no "
        "parameter servers (every worker keeps a replica of the parameters); remove the servers section");
  CHECK(first_error(with_servers, {{"compression.push.kind=fp16"}, {}}) ==
        "<--set compression.push.kind=fp16>:1:13: error: compression applies to parameter-server messages: protocol "
        "allreduce all-reduces gradients uncompressed; remove the compression section");
  CHECK(first_error(with_servers, {{"protocol.backup_workers=1"}, {}}).find("applies only when mode is 'sync'") !=
        std::string::npos);
  CHECK(first_error(with_servers, {{"protocol.chunk_bytes=0MB"}, {}}).find("must be greater than 0") !=
        std::string::npos);
  // Hierarchical all-reduce needs racks, of equal size.
  CHECK(first_error(with_servers, {{"protocol.algorithm=hierarchical"}, {}}) ==
        "<--set protocol.algorithm=hierarchical>:1:20: error: algorithm hierarchical all-reduces rack by rack: it "
        "needs network.topology two-tier");
  CHECK(first_error(with_servers, {{"protocol.algorithm=hierarchical", "network={topology: two-tier, racks: 3}"}, {}}) ==
        "<--set protocol.algorithm=hierarchical>:1:20: error: algorithm hierarchical needs racks of equal size: 4 "
        "workers do not divide into 3 racks");
  CHECK(first_error(with_servers, {{"protocol.algorithm=hierarchical", "network={topology: two-tier, racks: 2}"}, {}}) ==
        "(no error)");
  // Gradients that are never stale have no staleness-aware rate.
  CHECK(first_error(with_servers, {{"training.staleness_lr=inverse"}, {}}) ==
        "<--set training.staleness_lr=inverse>:1:23: error: training.staleness_lr applies to async and ssp: allreduce "
        "gradients are never stale");
  // Hybrid and sparse embedding rows need an embedding table with real math.
  CHECK(first_error(kMinimal, {{"protocol.mode=hybrid"}, {}}) ==
        "s.yaml:2:8: error: protocol hybrid keeps the embedding table on the servers and moves only the rows each "
        "batch reads: it needs model.kind lstm-lm with model.math true");
  CHECK(first_error(kMinimal, {{"cluster.servers.sparse_embeddings=true"}, {}}) ==
        "<--set cluster.servers.sparse_embeddings=true>:1:35: error: cluster.servers.sparse_embeddings sends the "
        "embedding rows each batch reads: it needs model.kind lstm-lm with model.math true");
  const std::string lm = R"(name: lm
model: {kind: lstm-lm, embed_dim: 8, hidden_size: 16}
data: {kind: synthetic-text, batch_size: 4}
training: {stop: {updates: 3}}
cluster: {workers: {count: 2}}
)";
  CHECK(first_error(lm, {{"cluster.servers.sparse_embeddings=true"}, {}}) == "(no error)");
  CHECK(first_error(lm, {{"protocol.mode=hybrid"}, {}}) == "(no error)");
  CHECK(first_error(lm, {{"cluster.servers.sparse_embeddings=true", "protocol={mode: ssp, staleness: 1}"}, {}}) ==
        "<--set cluster.servers.sparse_embeddings=true>:1:35: error: cluster.servers.sparse_embeddings with protocol "
        "ssp: a worker pulls the rows of its next batch, and ssp workers may compute on parameters pulled for an "
        "earlier one");
}
