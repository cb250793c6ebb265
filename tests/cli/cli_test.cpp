// The pssim command, run as a user runs it: exit codes, messages, files.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

namespace fs = std::filesystem;

namespace {

struct Result {
  int code;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path scratch() {
  static const fs::path dir = fs::temp_directory_path() / ("pssim-cli-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// Runs pssim with `args` (already shell-quoted where needed).
Result pssim(const std::string& args) {
  const fs::path out = scratch() / "stdout", err = scratch() / "stderr";
  const std::string cmd = std::string(PSSIM_BINARY) + " " + args + " > " + out.string() + " 2> " + err.string();
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

std::string bad_path(const std::string& name) { return std::string(PSSIM_TEST_DATA_DIR) + "/bad_scenarios/" + name; }

const char* kSmall = R"(name: small
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 5}}
cluster:
  workers: {count: 6, speed: {dist: lognormal, sigma: 0.4}, noise: {sigma: 0.2}}
  servers: {count: 2}
protocol: {mode: async}
)";

fs::path write_scenario(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST_CASE("version and help", "[cli]") {
  const Result v = pssim("--version");
  CHECK(v.code == 0);
  CHECK_THAT(v.out, Catch::Contains("pssim 0."));
  for (const char* cmd : {"run", "validate", "schema"}) {
    const Result h = pssim(std::string(cmd) + " --help");
    CHECK(h.code == 0);
    CHECK_THAT(h.out, Catch::Contains("Example"));
  }
  CHECK(pssim("").code == 2);             // a sub-command is required
  CHECK(pssim("frobnicate").code == 2);   // unknown sub-command
  CHECK(pssim("run").code == 2);          // missing scenario
  CHECK(pssim("run x.yaml --threads 0").code == 2);
}

TEST_CASE("every bad scenario of the corpus exits 2 naming the line", "[cli][corpus]") {
  std::ifstream manifest(bad_path("expected.txt"));
  REQUIRE(manifest.good());
  int cases = 0;
  for (std::string line; std::getline(manifest, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto a = line.find('|'), b = line.find('|', a + 1);
    const std::string file = line.substr(0, a), expected_line = line.substr(a + 1, b - a - 1), fragment = line.substr(b + 1);
    const std::string path = bad_path(file);
    for (const char* cmd : {"validate", "run -q -o " }) {
      std::string args = std::string(cmd) + (std::string(cmd) == "validate" ? " " : (scratch() / "bad-out").string() + " ") + "'" + path + "'";
      const Result r = pssim(args);
      INFO(file << " via " << cmd << ":\n" << r.err);
      CHECK(r.code == 2);
      CHECK_THAT(r.err, Catch::Contains(fragment));
      if (expected_line == "0") CHECK_THAT(r.err, Catch::StartsWith(path + ": error: "));
      else CHECK_THAT(r.err, Catch::Contains(path + ":" + expected_line + ":"));
    }
    ++cases;
  }
  CHECK(cases >= 16);
}

TEST_CASE("generated bad inputs: deep nesting, a directory, a missing file", "[cli][corpus]") {
  std::string deep = "name: deep\nmodel: ";
  for (int i = 0; i < 10000; ++i) deep += "[";
  const fs::path p = write_scenario("deep.yaml", deep);
  Result r = pssim("validate " + p.string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains(p.string() + ":2:") && Catch::Contains("nesting deeper than"));
  r = pssim("validate " + scratch().string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("is a directory"));
  r = pssim("run /nonexistent/scenario.yaml");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/scenario.yaml: error: no such file"));
}

TEST_CASE("overrides are validated like the file, and located on the command line", "[cli]") {
  const fs::path p = write_scenario("small.yaml", kSmall);
  Result r = pssim("validate " + p.string());
  CHECK(r.code == 0);
  r = pssim("run -q " + p.string() + " -o " + (scratch() / "o1").string() + " --set cluster.workers.count=abc");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("<--set cluster.workers.count=abc>:1:23: error: cluster.workers.count"));
  r = pssim("run -q " + p.string() + " -o " + (scratch() / "o1").string() + " --set cluster.wrokers.count=3");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("did you mean 'workers'?"));
}

TEST_CASE("run writes every output, atomically, reproducibly", "[cli]") {
  const fs::path p = write_scenario("small.yaml", kSmall);
  const fs::path a = scratch() / "run-a", b = scratch() / "run-b", c = scratch() / "run-c";
  REQUIRE(pssim("run -q " + p.string() + " -o " + a.string()).code == 0);
  REQUIRE(pssim("run -q " + p.string() + " -o " + b.string()).code == 0);
  for (const char* f : {"scenario.yaml", "metrics.csv", "workers.csv", "links.csv", "link_utilization.csv", "summary.json"})
    CHECK(fs::exists(a / f));
  // No temporary files are left behind.
  for (const auto& entry : fs::directory_iterator(a)) CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  // Same scenario and seed: the same bytes (summary.json also holds wall-clock figures).
  for (const char* f : {"scenario.yaml", "metrics.csv", "workers.csv", "links.csv", "link_utilization.csv"})
    CHECK(slurp(a / f) == slurp(b / f));
  // The resolved scenario reproduces the run.
  REQUIRE(pssim("run -q " + (a / "scenario.yaml").string() + " -o " + c.string()).code == 0);
  CHECK(slurp(a / "metrics.csv") == slurp(c / "metrics.csv"));
  // Another seed, another run.
  REQUIRE(pssim("run -q " + p.string() + " --seed 2 -o " + c.string()).code == 0);
  CHECK(slurp(a / "metrics.csv") != slurp(c / "metrics.csv"));
  CHECK_THAT(slurp(c / "summary.json"), Catch::Contains("\"seed\": 2"));
  const std::string summary = slurp(a / "summary.json");
  for (const char* key : {"sim_time_s", "wall_time_s", "events", "events_per_s", "peak_rss_bytes", "seed", "rounds",
                          "updates", "bytes_sent", "flows", "flows_per_s", "bottleneck_link", "worker_time_share"})
    CHECK_THAT(summary, Catch::Contains(std::string("\"") + key + "\""));
}

TEST_CASE("an output directory that cannot be written is a clear error", "[cli]") {
  const fs::path p = write_scenario("small.yaml", kSmall);
  const fs::path file = scratch() / "a-file";
  std::ofstream(file) << "x";
  Result r = pssim("run -q " + p.string() + " -o " + file.string());
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("exists and is not a directory"));
  r = pssim("run -q " + p.string() + " -o " + (file / "sub").string());
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("cannot create output directory"));
}

TEST_CASE("train and grad: the single-process baseline and a gradient case", "[cli]") {
  const fs::path p = write_scenario("baseline.yaml", R"(name: tiny-baseline
model: {kind: logreg}
data: {kind: synthetic, batch_size: 32, train_items: 512, test_items: 256}
training:
  optimizer: {kind: sgd, lr: 0.1}
  stop: {epochs: 2}
  eval: {every_steps: 8}
cluster: {workers: {count: 1}}
)");
  const fs::path out = scratch() / "baseline";
  Result r = pssim("train -q " + p.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string curve = slurp(out / "curve.csv");
  CHECK_THAT(curve, Catch::StartsWith("step,epoch,samples,train_loss,test_loss,test_accuracy,perplexity,wall_s\n0,0,0,"));
  CHECK_THAT(curve, Catch::Contains("\n32,2,1024,"));  // 2 epochs of 16 batches
  CHECK_THAT(slurp(out / "summary.json"), Catch::Contains("\"final_test_accuracy\"") && Catch::Contains("\"steps\": 32"));
  // Same seed: the same curve (apart from wall time).
  const fs::path again = scratch() / "baseline2";
  REQUIRE(pssim("train -q " + p.string() + " -o " + again.string()).code == 0);
  const auto strip_wall = [](const std::string& csv) {
    std::string kept;
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line);) kept += line.substr(0, line.rfind(',')) + "\n";
    return kept;
  };
  CHECK(strip_wall(slurp(again / "curve.csv")) == strip_wall(curve));

  const fs::path grad = scratch() / "grad";
  r = pssim("grad " + p.string() + " -o " + grad.string());
  CHECK(r.code == 0);
  for (const char* f : {"model.json", "loss.npy", "batch_inputs.npy", "batch_labels.npy", "params/fc1.weight.npy",
                        "grads/fc1.weight.npy"})
    CHECK(fs::exists(grad / f));
  // A timing-only scenario cannot be trained.
  const fs::path timing = write_scenario("timing.yaml", kSmall);
  r = pssim("train " + timing.string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("needs a real model"));
}

TEST_CASE("a sweep split in 3 shards run by GNU parallel merges to the single-process result", "[cli][sweep]") {
  write_scenario("base.yaml", kSmall);
  const fs::path sweep = write_scenario("sweep.yaml", R"(name: split
base: base.yaml
grid:
  cluster.workers.count: [2, 3, 5]
  cluster.servers.count: [1, 2]
seeds: [1, 2]
)");
  const fs::path single = scratch() / "sweep-single", split = scratch() / "sweep-split";
  REQUIRE(pssim("sweep -q " + sweep.string() + " -j 2 -o " + single.string()).code == 0);
  const std::string cmd = "parallel --will-cite " + std::string(PSSIM_BINARY) + " sweep -q " + sweep.string() +
                          " --shard {}/3 -j 1 -o " + split.string() + " ::: 1 2 3";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK_FALSE(fs::exists(split / "sweep.csv"));  // shards do not write the table
  REQUIRE(pssim("sweep -q " + sweep.string() + " --merge -o " + split.string()).code == 0);
  const std::string table = slurp(single / "sweep.csv");
  CHECK(std::count(table.begin(), table.end(), '\n') == 13);  // header + 12 points
  CHECK(slurp(split / "sweep.csv") == table);
  // A merge with a point missing says so and exits 1.
  fs::remove(split / "points" / "0004" / "point.csv");
  const Result r = pssim("sweep " + sweep.string() + " --merge -o " + split.string());
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("1 missing"));
}

TEST_CASE("pssim plot renders every figure from small results", "[cli][plot]") {
  const std::string run_text = R"(name: tiny
model: {kind: mlp, hidden: [8]}
data: {kind: synthetic, batch_size: 16, train_items: 256, test_items: 64}
training:
  optimizer: {kind: sgd, lr: 0.1}
  stop: {sim_time: 0.2s}
  eval: {every: 20ms}
  target_accuracy: 20%
cluster: {workers: {count: 4, throughput: 100GFLOPS, speed: {dist: lognormal, sigma: 0.5}}}
network: {worker_nic: {bandwidth: 1Gbps}, server_nic: {bandwidth: 1Gbps}}
output: {trace: true, utilization_interval: 5ms}
)";
  const fs::path base = write_scenario("plot-base.yaml", run_text);
  const fs::path sync = scratch() / "plot-sync", async = scratch() / "plot-async";
  REQUIRE(pssim("run -q " + base.string() + " -o " + sync.string()).code == 0);
  REQUIRE(pssim("run -q " + base.string() + " --set protocol.mode=async -o " + async.string()).code == 0);
  const fs::path baseline = scratch() / "plot-baseline";
  REQUIRE(pssim("train -q " + base.string() + " --set 'training.stop={epochs: 1}' -o " + baseline.string()).code == 0);
  const fs::path sweep = write_scenario("plot-sweep.yaml", R"(name: plot-sweep
base: plot-base.yaml
set: {output.trace: false}
grid:
  cluster.workers.count: [2, 4]
zip:
  cluster.servers.count: [1, 2]
  cluster.servers.shards: [1, 2]
)");
  const fs::path sweep_out = scratch() / "plot-sweep-out";
  REQUIRE(pssim("sweep -q -j 2 " + sweep.string() + " -o " + sweep_out.string()).code == 0);

  const fs::path figures = scratch() / "figures";
  const Result r = pssim("plot " + sync.string() + " " + async.string() + " " + baseline.string() + " " +
                         sweep_out.string() + " -o " + figures.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const char* name : {"accuracy_vs_time", "accuracy_vs_bytes", "accuracy_vs_epochs", "staleness_histogram",
                           "round_time_vs_shards", "time_to_target_vs_workers", "link_utilization_plot-sync",
                           "worker_timeline_plot-sync", "worker_timeline_plot-async"}) {
    INFO(name);
    const std::string png = slurp(figures / (std::string(name) + ".png"));
    const std::string svg = slurp(figures / (std::string(name) + ".svg"));
    CHECK(png.size() > 5000);
    CHECK(png.substr(1, 3) == "PNG");
    CHECK_THAT(svg, Catch::Contains("<svg"));
  }
  // Axis labels carry units.
  CHECK_THAT(slurp(figures / "accuracy_vs_time.svg"), Catch::Contains("simulated time (s)"));
  CHECK(pssim("plot " + scratch().string()).code == 2);  // not a result directory
}

TEST_CASE("the shipped scenarios are valid", "[cli]") {
  int checked = 0;
  for (const auto& dir : {fs::path(PSSIM_SOURCE_DIR) / "scenarios", fs::path(PSSIM_SOURCE_DIR) / "scenarios" / "timing",
                          fs::path(PSSIM_SOURCE_DIR) / "scenarios" / "sweeps"})
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml") continue;
      const Result r = pssim("validate " + entry.path().string());
      INFO(r.err);
      CHECK(r.code == 0);
      ++checked;
    }
  CHECK(checked >= 5);
}
