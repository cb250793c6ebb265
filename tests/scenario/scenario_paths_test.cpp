// File paths in a scenario are relative to the file that names them (scenario_paths.hpp).
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/scenario_paths.hpp"
#include "tests/support/scratch_files.hpp"

using namespace pssim::scenario;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  static const fs::path dir = pssim::test::scratch_directory("pssim-paths-test");
  return dir;
}

fs::path write(const fs::path& p, const std::string& text) { return pssim::test::write_file(p, text); }

// Runs the scope in `dir`, and returns to where it was.
struct WorkingDirectory {
  fs::path before = fs::current_path();
  explicit WorkingDirectory(const fs::path& dir) { fs::current_path(dir); }
  ~WorkingDirectory() { fs::current_path(before); }
};

const char* kScenario = R"(name: paths
training: {stop: {updates: 3}}
cluster: {workers: {count: 2}}
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
)";
const char* kTrace = "time,kind,target,value\n1ms,worker_speed,worker-1,0.5\n";

std::string events_file_of(const LoadedScenario& s) { return s.resolved.at("events_file").text(); }

}  // namespace

TEST_CASE("a relative events_file is read beside the scenario file, from any working directory", "[scenario][paths]") {
  const fs::path dir = scratch() / "beside";
  write(dir / "traces" / "t.csv", kTrace);
  const fs::path file = write(dir / "s.yaml", std::string(kScenario) + "events_file: traces/t.csv\n");
  const WorkingDirectory elsewhere(scratch());
  const auto loaded = load_scenario_file(file.string());
  CHECK(events_file_of(loaded) == (dir / "traces" / "t.csv").string());
  // The resolved scenario names the file absolutely: it loads the same from anywhere.
  const fs::path saved = write(scratch() / "saved" / "scenario.yaml", resolved_yaml(loaded));
  const WorkingDirectory root("/");
  CHECK(resolved_yaml(load_scenario_file(saved.string())) == resolved_yaml(loaded));
}

TEST_CASE("a path found only from the working directory is read from there, as before", "[scenario][paths]") {
  const fs::path root = scratch() / "cwd-form";
  write(root / "data" / "t.csv", kTrace);
  const fs::path file = write(root / "scenarios" / "s.yaml", std::string(kScenario) + "events_file: data/t.csv\n");
  const WorkingDirectory at_root(root);
  CHECK(events_file_of(load_scenario_file("scenarios/s.yaml")) == (root / "data" / "t.csv").string());
  // Beside the file wins when both exist.
  write(root / "scenarios" / "data" / "t.csv", kTrace);
  CHECK(events_file_of(load_scenario_file(file.string())) == (root / "scenarios" / "data" / "t.csv").string());
}

TEST_CASE("a file found nowhere is named where the scenario file expects it", "[scenario][paths]") {
  const fs::path dir = scratch() / "missing";
  const fs::path file = write(dir / "s.yaml", std::string(kScenario) + "events_file: ../gone/t.csv\n");
  const WorkingDirectory elsewhere(scratch());
  try {
    load_scenario_file(file.string());
    FAIL("a missing trace loaded");
  } catch (const std::exception& e) {
    CHECK_THAT(e.what(), Catch::Contains((scratch() / "gone" / "t.csv").string()));
  }
}

TEST_CASE("a path given by --set or in text without a file is relative to the working directory", "[scenario][paths]") {
  const fs::path dir = scratch() / "overrides";
  write(dir / "t.csv", kTrace);
  const fs::path file = write(dir / "sub" / "s.yaml", kScenario);
  const WorkingDirectory at(dir);
  CHECK(events_file_of(load_scenario_file(file.string(), {{"events_file=t.csv"}, {}})) == (dir / "t.csv").string());
  CHECK(events_file_of(load_scenario_text(std::string(kScenario) + "events_file: ./t.csv\n", "<python>")) ==
        (dir / "t.csv").string());
  // An absolute path is kept as written.
  CHECK(resolve_scenario_path("/a/b/../c.csv", {"<--set>", 0, 0}) == "/a/b/../c.csv");
}

TEST_CASE("a module reference's file is resolved as a path, and a malformed one is a located error", "[scenario][paths]") {
  const fs::path dir = scratch() / "module";
  const fs::path file = write(dir / "s.yaml", "name: m\n");
  write(dir / "net.py", "def make(): pass\n");
  CHECK(resolve_module_reference("net.py:make", {file.string(), 3, 1}) == (dir / "net.py").string() + ":make");
  CHECK(resolve_module_reference("./x/../net.py:make", {file.string(), 3, 1}) == (dir / "net.py").string() + ":make");
  const std::string torch = R"(name: t
training: {stop: {updates: 3}}
model: {kind: torch, module: net.py}
)";
  try {
    load_scenario_text(torch, "t.yaml");
    FAIL("a module reference without a function loaded");
  } catch (const ScenarioError& e) {
    CHECK_THAT(e.what(), Catch::Contains("t.yaml:3:") && Catch::Contains("model.module = 'net.py' is not a module reference"));
  }
}
