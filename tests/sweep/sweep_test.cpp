#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/scenario_error.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace fs = std::filesystem;
using namespace pssim;

namespace {

fs::path scratch() {
  static const fs::path dir = fs::temp_directory_path() / ("pssim-sweep-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p) << text;
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* kBase = R"(name: base
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4}}
)";

std::string first_error(const std::string& sweep_text) {
  write("base.yaml", kBase);
  try {
    sweep::load_sweep(write("s.yaml", sweep_text));
  } catch (const scenario::ScenarioError& e) {
    const auto& d = e.diagnostics().front();
    return std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " + d.message;
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a sweep expands to grid x zip x seeds, seeds innermost", "[sweep]") {
  write("base.yaml", kBase);
  const auto spec = sweep::load_sweep(write("s.yaml", R"(name: demo
base: base.yaml
set: {training.stop.updates: 2}
grid:
  cluster.workers.count: [2, 3]
zip:
  cluster.servers.count: [1, 2]
  cluster.servers.shards: [1, 4]
seeds: [7, 9]
)"));
  CHECK(spec.name == "demo");
  CHECK(spec.axes == std::vector<std::string>{"cluster.workers.count", "cluster.servers.count", "cluster.servers.shards"});
  REQUIRE(spec.points.size() == 8);
  CHECK(spec.points[0].values == std::vector<std::string>{"2", "1", "1"});
  CHECK(spec.points[0].seed == 7);
  CHECK(spec.points[1].seed == 9);
  CHECK(spec.points[2].values == std::vector<std::string>{"2", "2", "4"});
  CHECK(spec.points[4].values == std::vector<std::string>{"3", "1", "1"});
  CHECK(spec.points[7].scenario.scenario.cluster.servers.shards == 4);
  CHECK(spec.points[7].scenario.scenario.training.stop.updates == 2);
  CHECK(spec.points[7].scenario.scenario.seed == 9);
}

TEST_CASE("sweep file problems are located in the sweep file", "[sweep]") {
  CHECK(first_error("name: s\nbase: base.yaml\ngrid: {cluster.workers.count: [2, -1]}\n") ==
        "3:35: sweep point 1: cluster.workers.count = -1 is out of range: must be at least 1");
  CHECK(first_error("name: s\nbase: base.yaml\nzip: {a.b: [1, 2], c.d: [1]}\n") ==
        "3:20: zip.c.d has 1 values but zip.a.b has 2: zipped lists must be equally long");
  CHECK(first_error("name: s\nbase: base.yaml\ngrids: {}\n") == "3:1: unknown key 'grids' in a sweep file; did you mean 'grid'?");
  CHECK(first_error("name: s\nbase: missing.yaml\n") ==
        "2:7: base scenario " + (scratch() / "missing.yaml").string() +
            ": no such file (check the path; scenarios live in scenarios/)");
  CHECK(first_error("name: s\nbase: base.yaml\ngrid: {cluster.wrokers.count: [2]}\n") ==
        "3:16: sweep point 0: unknown key 'wrokers' in cluster; did you mean 'workers'?");
  CHECK(first_error("name: s\nbase: base.yaml\nseeds: [1]\nrepetitions: 2\n") == "3:8: give seeds or repetitions, not both");
  CHECK(first_error("name: s\nbase: base.yaml\ngrid: {seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\nrepetitions: 10001\n") ==
        "4:14: repetitions is between 1 and 10000");
}

TEST_CASE("a sweep runs every point, records failures, and resumes", "[sweep]") {
  write("base.yaml", kBase);
  // Point 1 cannot be built (4 backup workers of 4); the others must still run.
  const auto spec = sweep::load_sweep(write("run.yaml", R"(name: run
base: base.yaml
grid:
  cluster.servers.count: [1, 2]
  cluster.workers.speed: [{dist: constant}, {dist: lognormal, sigma: 0.5}]
)"));
  const fs::path out = scratch() / "run-out";
  sweep::SweepOptions options;
  options.output_dir = out;
  options.jobs = 2;
  auto outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 4);
  CHECK(outcome.failed == 0);
  CHECK(sweep::write_sweep_table(spec, out) == 0);
  const std::string table = slurp(out / "sweep.csv");
  CHECK_THAT(table, Catch::StartsWith("point,seed,cluster.servers.count,cluster.workers.speed,status,error,sim_time_s,"));
  CHECK_THAT(table, Catch::Contains("\n3,1,2,\"{dist: lognormal, sigma: 0.5}\",ok,,"));
  // Running again: nothing to do, same table.
  outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 0);
  CHECK(outcome.skipped == 4);
  sweep::write_sweep_table(spec, out);
  CHECK(slurp(out / "sweep.csv") == table);
  // A point whose marker was lost runs again; the others are kept.
  fs::remove(sweep::point_directory(out, 2) / "point.csv");
  outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 1);
  sweep::write_sweep_table(spec, out);
  CHECK(slurp(out / "sweep.csv") == table);
}

TEST_CASE("a failing point is recorded and the others go on", "[sweep]") {
  write("base.yaml", kBase);
  write("bad-topology.yaml", R"(name: disconnected
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 2}}
network:
  topology: explicit
  switches: [s1, s2]
  links: [{from: a, to: s1, bandwidth: 10Gbps}, {from: b, to: s1, bandwidth: 10Gbps}, {from: c, to: s1, bandwidth: 10Gbps}]
  workers: [a, b]
  servers: [c]
)");
  const auto spec = sweep::load_sweep(write("fail.yaml", R"(name: fail
base: bad-topology.yaml
grid:
  network.links.2.to: [s2, s1]
)"));
  // Point 0 links the server to an isolated switch: it cannot be built.
  const fs::path out = scratch() / "fail-out";
  sweep::SweepOptions options;
  options.output_dir = out;
  auto outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 2);
  CHECK(outcome.failed == 1);
  CHECK_THAT(slurp(sweep::point_directory(out, 0) / "error.txt"), Catch::Contains("no route from a to c"));
  CHECK(fs::exists(sweep::point_directory(out, 1) / "summary.json"));
  sweep::write_sweep_table(spec, out);
  const std::string table = slurp(out / "sweep.csv");
  CHECK_THAT(table, Catch::Contains("\n0,1,s2,failed,no route from a to c"));
  CHECK_THAT(table, Catch::Contains("\n1,1,s1,ok,,"));
  // Failed points run again; complete ones do not.
  outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 1);
  CHECK(outcome.skipped == 1);
}
