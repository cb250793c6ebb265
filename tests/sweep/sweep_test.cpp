#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/output/directory_lock.hpp"
#include "sim/scenario/load_scenario.hpp"
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

TEST_CASE("one sweep compares sync PS, colocated PS, ring all-reduce and local SGD: ~ removes a key",
          "[sweep]") {
  write("ps-base.yaml", R"(name: base
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4}, servers: {count: 2}}
)");
  const auto spec = sweep::load_sweep(write("schemes.yaml", R"(name: schemes
base: ps-base.yaml
zip:
  protocol: [{mode: sync}, {mode: sync}, {mode: allreduce, algorithm: ring}, {mode: local-sgd, local_steps: 4}]
  cluster.servers: [{count: 2}, {placement: colocated}, ~, {count: 1}]
)"));
  REQUIRE(spec.points.size() == 4);
  CHECK(spec.points[0].scenario.scenario.cluster.servers.count == 2);
  CHECK(spec.points[1].scenario.scenario.cluster.servers.placement == scenario::ServersConfig::Placement::Colocated);
  CHECK(spec.points[2].scenario.scenario.protocol.scheme == "allreduce");
  CHECK(spec.points[2].scenario.resolved.at("cluster").find("servers") == nullptr);
  CHECK(spec.points[3].scenario.scenario.protocol.scheme == "local-sgd");
  CHECK(spec.points[2].values[1] == "~");
  const fs::path out = scratch() / "schemes-out";
  sweep::SweepOptions options;
  options.output_dir = out;
  const auto outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 4);
  CHECK(outcome.failed == 0);
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

TEST_CASE("a sweep runs every point, writes sweep.csv, and resumes", "[sweep]") {
  write("base.yaml", kBase);
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
  CHECK(outcome.table.failed == 0);
  CHECK(outcome.table.missing == 0);
  const std::string table = slurp(out / "sweep.csv");
  CHECK_THAT(table, Catch::StartsWith("point,seed,cluster.servers.count,cluster.workers.speed,status,error,sim_time_s,"));
  CHECK_THAT(table, Catch::Contains("\n3,1,2,\"{dist: lognormal, sigma: 0.5}\",ok,,"));
  // Every point keeps its resolved scenario (its identity); no lock file is left behind.
  CHECK(slurp(sweep::point_directory(out, 3) / "scenario.yaml") == scenario::resolved_yaml(spec.points[3].scenario));
  CHECK_FALSE(fs::exists(out / ".pssim.lock"));
  CHECK_FALSE(fs::exists(sweep::point_directory(out, 3) / ".pssim.lock"));
  // Running again: nothing to do, same table.
  outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 0);
  CHECK(outcome.skipped == 4);
  CHECK(slurp(out / "sweep.csv") == table);
  // A point whose marker was lost runs again; the others are kept.
  fs::remove(sweep::point_directory(out, 2) / "point.csv");
  outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 1);
  CHECK(slurp(out / "sweep.csv") == table);
}

TEST_CASE("a point's identity is its whole resolved scenario", "[sweep]") {
  const std::string sweep_text = R"(name: ident
base: ident-base.yaml
set: {training.stop.updates: 3}
grid:
  cluster.workers.count: [2, 3]
seeds: [1, 2]
)";
  write("ident-base.yaml", kBase);
  const fs::path out = scratch() / "ident-out";
  sweep::SweepOptions options;
  options.output_dir = out;
  const auto run = [&](const std::string& sweep) { return sweep::run_sweep(sweep::load_sweep(write("ident.yaml", sweep)), options); };
  REQUIRE(run(sweep_text).ran == 4);
  const std::string first = slurp(out / "sweep.csv");
  CHECK(run(sweep_text).ran == 0);
  // A change to the base scenario, even one no swept value shows, runs every point again.
  write("ident-base.yaml", std::string(kBase) + "network: {worker_nic: {bandwidth: 1Gbps}}\n");
  auto outcome = run(sweep_text);
  CHECK(outcome.ran == 4);
  CHECK(outcome.skipped == 0);
  const std::string slower = slurp(out / "sweep.csv");
  CHECK(slower != first);  // the table holds the new results, not the old ones
  // A change to set: runs every point again.
  std::string changed = sweep_text;
  changed.replace(changed.find("updates: 3"), 10, "updates: 4");
  outcome = run(changed);
  CHECK(outcome.ran == 4);
  CHECK_THAT(slurp(out / "sweep.csv"), Catch::Contains(",ok,,") && !Catch::Contains("missing"));
  // A change to one swept value runs exactly the points it changes (2 seeds of workers 3 -> 5).
  std::string one = changed;
  one.replace(one.find("[2, 3]"), 6, "[2, 5]");
  outcome = run(one);
  CHECK(outcome.ran == 2);
  CHECK(outcome.skipped == 2);
  CHECK_THAT(slurp(out / "sweep.csv"), Catch::Contains("\n2,1,5,ok,") && Catch::Contains("\n3,2,5,ok,"));
  // Back to the first definition: the old records no longer match, all run, same table.
  write("ident-base.yaml", kBase);
  CHECK(run(sweep_text).ran == 4);
  CHECK(slurp(out / "sweep.csv") == first);
}

TEST_CASE("a point's identity covers the content of the files its scenario reads", "[sweep]") {
  // The same trace file, edited between two sweeps: its points run again, with the new trace.
  const fs::path trace = write("ident-trace.csv", "time,kind,target,value\n1ms,worker_speed,worker-1,0.5\n");
  write("trace-base.yaml", std::string(kBase) + "events_file: " + trace.string() + "\n");
  const auto spec = [&] { return sweep::load_sweep(write("trace.yaml", "name: trace\nbase: trace-base.yaml\nseeds: [1, 2]\n")); };
  const fs::path out = scratch() / "trace-out";
  sweep::SweepOptions options;
  options.output_dir = out;
  REQUIRE(sweep::run_sweep(spec(), options).ran == 2);
  const std::string first = slurp(out / "sweep.csv");
  CHECK(sweep::run_sweep(spec(), options).ran == 0);
  write("ident-trace.csv", "time,kind,target,value\n1ms,worker_speed,worker-1,0.1\n");
  const auto outcome = sweep::run_sweep(spec(), options);
  CHECK(outcome.ran == 2);
  CHECK(outcome.skipped == 0);
  CHECK(slurp(out / "sweep.csv") != first);  // the slower worker's results, not the old ones
  // The resolved scenario names the trace's content (what sha256sum prints for it).
  CHECK_THAT(slurp(out / "points" / "0000" / "scenario.yaml"),
             Catch::Contains("  - key: events_file\n    path: \"" + trace.string() +
                             "\"\n    sha256: \"e0e470f0a00b213f611e020cb209dc446434a104d49a8ea7438617fb6ee79467\"\n"));
}

TEST_CASE("sweep.csv never outlives the points it describes", "[sweep]") {
  write("base.yaml", kBase);
  const auto spec = sweep::load_sweep(write("stale.yaml", "name: stale\nbase: base.yaml\nseeds: [1, 2]\n"));
  const fs::path out = scratch() / "stale-out";
  sweep::SweepOptions options;
  options.output_dir = out;
  REQUIRE(sweep::run_sweep(spec, options).ran == 2);
  REQUIRE(fs::exists(out / "sweep.csv"));
  // While points run, there is no table: a sweep killed now leaves none that could be stale.
  fs::remove(sweep::point_directory(out, 1) / "point.csv");
  bool table_while_running = true;
  options.on_point_done = [&](std::size_t, std::size_t, std::size_t) {
    table_while_running = fs::exists(out / "sweep.csv");
  };
  CHECK(sweep::run_sweep(spec, options).ran == 1);
  CHECK_FALSE(table_while_running);
  CHECK(fs::exists(out / "sweep.csv"));
}

TEST_CASE("a failing point is recorded, reported, and the others go on", "[sweep]") {
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
  std::vector<std::string> reported;
  options.on_point_failed = [&](const sweep::SweepPoint& p, const std::string& error) {
    reported.push_back(std::to_string(p.index) + ": " + error);
  };
  auto outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 2);
  CHECK(outcome.failed == 1);
  CHECK(outcome.table.failed == 1);
  CHECK(outcome.table.missing == 0);
  REQUIRE(reported.size() == 1);
  CHECK_THAT(reported[0], Catch::StartsWith("0: no route from a to c"));
  CHECK_THAT(slurp(sweep::point_directory(out, 0) / "error.txt"), Catch::Contains("no route from a to c"));
  // A point that failed before running still records its identity.
  CHECK(slurp(sweep::point_directory(out, 0) / "scenario.yaml") == scenario::resolved_yaml(spec.points[0].scenario));
  CHECK(fs::exists(sweep::point_directory(out, 1) / "summary.json"));
  const std::string table = slurp(out / "sweep.csv");
  CHECK_THAT(table, Catch::Contains("\n0,1,s2,failed,no route from a to c"));
  CHECK_THAT(table, Catch::Contains("\n1,1,s1,ok,,"));
  // Failed points run again; complete ones do not.
  outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.ran == 1);
  CHECK(outcome.skipped == 1);
}

TEST_CASE("a point that cannot be written is reported with its reason", "[sweep]") {
  write("base.yaml", kBase);
  const auto spec = sweep::load_sweep(write("unwritable.yaml", "name: unwritable\nbase: base.yaml\nseeds: [1, 2]\n"));
  const fs::path out = scratch() / "unwritable-out";
  fs::create_directories(out / "points");
  std::ofstream(out / "points" / "0001") << "a file where the point's directory belongs";
  sweep::SweepOptions options;
  options.output_dir = out;
  std::string reported;
  options.on_point_failed = [&](const sweep::SweepPoint&, const std::string& error) { reported = error; };
  const auto outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.failed == 1);
  CHECK_THAT(reported, Catch::Contains("points/0001 exists and is not a directory"));
  CHECK(outcome.table.missing == 1);
  CHECK_THAT(slurp(out / "sweep.csv"), Catch::Contains("\n1,2,missing,"));
}

TEST_CASE("shards write disjoint points under a shared lock and a merge counts what is missing or failed", "[sweep]") {
  write("base.yaml", kBase);
  const auto spec = sweep::load_sweep(write("sharded.yaml", "name: sharded\nbase: base.yaml\nseeds: [1, 2, 3, 4, 5]\n"));
  const fs::path out = scratch() / "sharded-out";
  sweep::SweepOptions options;
  options.output_dir = out;
  options.shard = sweep::Shard{1, 2};
  // Shard 2 of the same sweep is running: its shared lock lets shard 1 in.
  fs::create_directories(out);
  {
    const output::DirectoryLock other_shard(out, output::DirectoryLock::Mode::shared, "shard 2/2 of sweep sharded");
    const auto outcome = sweep::run_sweep(spec, options);
    CHECK(outcome.ran == 3);  // points 0, 2, 4
    CHECK_FALSE(fs::exists(out / "sweep.csv"));
    // ... but not a merge or a whole sweep, which would read or write its points.
    CHECK_THROWS_AS(sweep::merge_sweep(spec, out), output::DirectoryInUse);
    sweep::SweepOptions whole = options;
    whole.shard.reset();
    CHECK_THROWS_WITH(sweep::run_sweep(spec, whole), Catch::Contains("is in use by another pssim (PID " +
                                                                     std::to_string(::getpid())) &&
                                                         Catch::Contains("shard 2/2 of sweep sharded"));
  }
  auto counts = sweep::merge_sweep(spec, out);
  CHECK(counts.missing == 2);
  options.shard = sweep::Shard{2, 2};
  CHECK(sweep::run_sweep(spec, options).ran == 2);
  counts = sweep::merge_sweep(spec, out);
  CHECK(counts.missing == 0);
  CHECK(counts.failed == 0);
  CHECK_FALSE(fs::exists(out / ".pssim.lock"));
  // A point locked by another writer fails with its holder's name; the others run.
  fs::remove(sweep::point_directory(out, 1) / "point.csv");
  fs::remove(sweep::point_directory(out, 3) / "point.csv");
  {
    const output::DirectoryLock busy(sweep::point_directory(out, 3), output::DirectoryLock::Mode::exclusive,
                                     "pssim run of something else");
    std::string reported;
    options.on_point_failed = [&](const sweep::SweepPoint&, const std::string& error) { reported = error; };
    const auto outcome = sweep::run_sweep(spec, options);
    CHECK(outcome.ran == 2);
    CHECK(outcome.failed == 1);
    CHECK_THAT(reported, Catch::Contains("points/0003 is in use") && Catch::Contains("pssim run of something else"));
  }
  CHECK(sweep::merge_sweep(spec, out).missing == 1);
}

TEST_CASE("a sweep removes the temporaries of a killed one, and nothing else", "[sweep]") {
  write("base.yaml", kBase);
  const auto spec = sweep::load_sweep(write("tmp.yaml", "name: tmp\nbase: base.yaml\n"));
  const fs::path out = scratch() / "tmp-out";
  const fs::path point = sweep::point_directory(out, 0);
  fs::create_directories(point);
  for (const fs::path& p : {out / "sweep.csv.tmp.4242.0", point / "metrics.csv.tmp.4242.3",
                            point / "point.csv.tmp.4242.7", out / "notes.txt", point / "notes.tmp.1.2"})
    std::ofstream(p) << "x";
  sweep::SweepOptions options;
  options.output_dir = out;
  REQUIRE(sweep::run_sweep(spec, options).ran == 1);
  CHECK_FALSE(fs::exists(out / "sweep.csv.tmp.4242.0"));
  CHECK_FALSE(fs::exists(point / "metrics.csv.tmp.4242.3"));
  CHECK_FALSE(fs::exists(point / "point.csv.tmp.4242.7"));
  CHECK(fs::exists(out / "notes.txt"));
  CHECK(fs::exists(point / "notes.tmp.1.2"));
}

TEST_CASE("a sweep whose points play a timeline records what failures cost", "[sweep][dynamics]") {
  write("base.yaml", kBase);
  // The crash at 1000 s never happens within the run: the point still has the columns.
  const auto spec = sweep::load_sweep(write("dyn.yaml", R"(name: dyn
base: base.yaml
set:
  cluster.servers: {count: 1, checkpoint: {every: 1s}}
  training.stop: {updates: 20}
  events: [{at: 1000s, kind: server_crash, target: server-0, recover_after: 1s}]
grid:
  events.0.at: [1000s, 1ms]
)"));
  CHECK(spec.dynamics);
  const fs::path out = scratch() / "dyn-out";
  sweep::SweepOptions options;
  options.output_dir = out;
  const auto outcome = sweep::run_sweep(spec, options);
  CHECK(outcome.failed == 0);
  const std::string table = slurp(out / "sweep.csv");
  CHECK_THAT(table, Catch::Contains(",diverged,downtime_s,lost_compute_s,lost_updates,lost_gradients,checkpoints\n"));
  // The plain sweep above has none of them.
  const auto plain = sweep::load_sweep(write("plain.yaml", "name: plain\nbase: base.yaml\nseeds: [1, 2]\n"));
  CHECK_FALSE(plain.dynamics);
}
