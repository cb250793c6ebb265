#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/scenario_schema.hpp"

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
  CHECK(s.protocol.mode == ProtocolConfig::Mode::Sync);
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

TEST_CASE("cross-key rules are located errors", "[scenario]") {
  CHECK(first_error("name: x\nmodel: {kind: synthetic, params: 10, flops_per_sample: 1FLOP}\n"
                    "cluster: {workers: {count: 2}}\n") ==
        "s.yaml:1:1: error: training.stop needs at least one condition: sim_time (e.g. 60s) or updates (e.g. 100)");
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

TEST_CASE("docs/scenario-reference.md is the schema's current rendering", "[scenario][docs]") {
  std::ifstream in(std::string(PSSIM_SOURCE_DIR) + "/docs/scenario-reference.md");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  // Regenerate with: build/release/sim/cli/pssim schema > docs/scenario-reference.md
  CHECK(text.str() == scenario_reference_markdown());
}
