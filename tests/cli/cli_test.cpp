// The pssim command, run as a user runs it: exit codes, messages, files.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

extern char** environ;

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

// Runs pssim with `args` (already shell-quoted where needed), after the shell commands
// `before` (e.g. a ulimit).
Result pssim(const std::string& args, const std::string& before = "") {
  const fs::path out = scratch() / "stdout", err = scratch() / "stderr";
  const std::string cmd =
      before + std::string(PSSIM_BINARY) + " " + args + " > " + out.string() + " 2> " + err.string();
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

std::string bad_path(const std::string& name) { return std::string(PSSIM_SOURCE_DIR) + "/tests/cli/bad_scenarios/" + name; }

const char* kSmall = R"(name: small
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 5}}
cluster:
  workers: {count: 6, speed: {dist: lognormal, sigma: 0.4}, noise: {sigma: 0.2}}
  servers: {count: 2}
protocol: {mode: async}
)";

// Workers a, b and server c on switch s1; `--set network.links.2.to=s2` moves the server to
// the isolated switch s2: a valid scenario that cannot be built.
const char* kExplicit = R"(name: explicit
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 2}}
network:
  topology: explicit
  switches: [s1, s2]
  links: [{from: a, to: s1, bandwidth: 10Gbps}, {from: b, to: s1, bandwidth: 10Gbps}, {from: c, to: s1, bandwidth: 10Gbps}]
  workers: [a, b]
  servers: [c]
)";

fs::path write_scenario(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p) << text;
  return p;
}

// A raw IDX file: magic 0x0000080<ndims>, big-endian sizes, then `data` (which need not be
// what the sizes claim: that is the point of these files).
void write_idx(const fs::path& p, const std::vector<std::uint32_t>& dims, const std::string& data) {
  std::string bytes{0, 0, 0x08, char(dims.size())};
  for (auto d : dims)
    for (int shift : {24, 16, 8, 0}) bytes += char((d >> shift) & 0xff);
  std::ofstream(p, std::ios::binary) << bytes << data;
}

// A directory of MNIST-style files: `train` and `test` images (N x rows x cols, pixel data
// as given) with `labels` for each.
fs::path write_mnist_dir(const std::string& name, const std::vector<std::uint32_t>& train_dims,
                         const std::string& train_pixels, const std::vector<std::uint32_t>& test_dims,
                         const std::string& test_pixels, const std::string& train_labels,
                         const std::string& test_labels) {
  const fs::path dir = scratch() / name;
  fs::create_directories(dir);
  write_idx(dir / "train-images-idx3-ubyte", train_dims, train_pixels);
  write_idx(dir / "t10k-images-idx3-ubyte", test_dims, test_pixels);
  write_idx(dir / "train-labels-idx1-ubyte", {std::uint32_t(train_labels.size())}, train_labels);
  write_idx(dir / "t10k-labels-idx1-ubyte", {std::uint32_t(test_labels.size())}, test_labels);
  return dir;
}

// A scenario training a small MLP on the MNIST-style files in `data_dir`.
fs::path mnist_scenario(const std::string& name, const fs::path& data_dir) {
  return write_scenario(name, "name: " + fs::path(name).stem().string() + R"(
model: {kind: mlp, hidden: [4]}
data: {kind: mnist, path: ')" + data_dir.string() + R"(', batch_size: 2}
training: {stop: {updates: 2}, optimizer: {kind: sgd, lr: 0.1}}
cluster: {workers: {count: 2}}
)");
}

bool has_temporaries(const fs::path& dir) {
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
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
  // Printed: no training loss before the first step is a dash, not nan.
  r = pssim("train " + p.string() + " -o " + (scratch() / "baseline3").string());
  CHECK_THAT(r.out, Catch::StartsWith("step      0  epoch  0.000  train loss        -  test loss"));
  CHECK_THAT(r.out, !Catch::Contains("nan"));
  // compare compares runs and sweeps: a baseline folder is said to be one.
  r = pssim("compare " + out.string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("a pssim train baseline (one process, no simulated time or network)"));

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
  CHECK_THAT(r.err, Catch::Contains("need a real model"));
  // A gradient needs no stop condition: a scenario that stops at a simulated time (which
  // pssim train cannot count) still gives its gradient case.
  const fs::path timed = write_scenario("timed.yaml", slurp(p).replace(slurp(p).find("{epochs: 2}"), 11,
                                                                       "{sim_time: 1s}"));
  CHECK(pssim("train " + timed.string() + " -o " + (scratch() / "timed").string()).code == 2);
  r = pssim("grad " + timed.string() + " -o " + (scratch() / "timed-grad").string());
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(fs::exists(scratch() / "timed-grad" / "grads" / "fc1.weight.npy"));
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

// A tiny MLP job on synthetic data, 0.2 simulated seconds with evaluations every 20 ms
// and a target: the training part of the plot tests' scenarios (cluster and more follow).
const char* const kTinyTraining = R"(model: {kind: mlp, hidden: [8]}
data: {kind: synthetic, batch_size: 16, train_items: 256, test_items: 64}
training:
  optimizer: {kind: sgd, lr: 0.1}
  stop: {sim_time: 0.2s}
  eval: {every: 20ms}
  target_accuracy: 20%
)";

TEST_CASE("pssim plot renders every figure from small results", "[cli][plot]") {
  const std::string run_text = std::string("name: tiny\n") + kTinyTraining + R"(cluster: {workers: {count: 4, throughput: 100GFLOPS, speed: {dist: lognormal, sigma: 0.5}}}
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

  // A run that diverges is drawn and marked, not dropped.
  const fs::path diverged = scratch() / "plot-diverged";
  REQUIRE(pssim("run -q " + base.string() + " --set training.optimizer.lr=900 -o " + diverged.string()).code == 0);

  const fs::path figures = scratch() / "figures";
  const Result r = pssim("plot " + sync.string() + " " + async.string() + " " + diverged.string() + " " +
                         baseline.string() + " " + sweep_out.string() + " --per-point -o " + figures.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  // The figures that compare the inputs in OUT; each input's own in OUT/<its name>/
  // (a sweep's per point).
  for (const std::string name :
       {"accuracy_vs_time", "accuracy_vs_bytes", "accuracy_vs_epochs", "staleness_histogram", "round_time_vs_shards",
        "time_to_target_vs_workers", "accuracy_vs_workers", "iteration_time_vs_workers",
        "plot-sync/link_utilization", "plot-sync/worker_timeline", "plot-async/worker_timeline",
        "plot-diverged/link_utilization", "plot-sweep-out/points/0000/link_utilization"}) {
    INFO(name);
    const std::string png = slurp(figures / (name + ".png"));
    const std::string svg = slurp(figures / (name + ".svg"));
    CHECK(png.size() > 5000);
    CHECK(png.substr(1, 3) == "PNG");
    CHECK_THAT(svg, Catch::Contains("<svg"));
  }
  // Axis labels carry units; the diverged run and the target are on the figure.
  const std::string accuracy = slurp(figures / "accuracy_vs_time.svg");
  CHECK_THAT(accuracy, Catch::Contains("simulated time (s)") && Catch::Contains("diverged") &&
                           Catch::Contains("target 20 %"));
  CHECK_THAT(slurp(figures / "plot-sync" / "link_utilization.svg"), Catch::Contains("worker NICs"));
  // Without -o: one input's figures in its plots/, several in a folder named for them.
  REQUIRE(pssim("plot " + sync.string() + " --window 0.05:0.1").code == 0);
  CHECK_THAT(slurp(sync / "plots" / "worker_timeline.svg"), Catch::Contains("0.05-0.1 s of"));
  REQUIRE(pssim("plot " + sync.string() + " " + async.string()).code == 0);
  CHECK(fs::exists(scratch() / "plots-plot-sync-vs-plot-async" / "accuracy_vs_time.png"));
  // A sweep's points get figures of their own only on request.
  REQUIRE(pssim("plot " + sweep_out.string() + " -o " + (scratch() / "sweep-figures").string()).code == 0);
  CHECK(fs::exists(scratch() / "sweep-figures" / "accuracy_vs_time.png"));
  CHECK_FALSE(fs::exists(scratch() / "sweep-figures" / "points"));
  // A point plotted alone is named by its sweep's settings, not by its folder (0001).
  REQUIRE(pssim("plot " + (sweep_out / "points" / "0001").string() + " " + sync.string() + " -o " +
                (scratch() / "point-figures").string())
              .code == 0);
  CHECK_THAT(slurp(scratch() / "point-figures" / "accuracy_vs_time.svg"),
             Catch::Contains("plot-sweep-out: 2 workers, 2 shards") && !Catch::Contains(">0001"));
  CHECK(fs::exists(async / "plots" / "worker_timeline.png"));
  CHECK(pssim("plot " + sync.string() + " --window 2:1").code == 2);
  CHECK(pssim("plot " + scratch().string()).code == 2);  // not a result directory
}

TEST_CASE("pssim plot draws iteration time against bandwidth for overlap sweeps", "[cli][plot]") {
  // Two layers, the large one last (VGG-like); 8 tiny runs.
  write_scenario("overlap-base.yaml", R"(name: overlap-base
model: {kind: synthetic, params: 3M, flops_per_sample: 1GFLOP, layer_params: [1M, 2M], layer_flops: [2GFLOP, 1GFLOP]}
data: {batch_size: 16}
training: {stop: {updates: 3}}
cluster: {workers: {count: 2, throughput: 1TFLOPS}, servers: {count: 2, shards: 2}}
network: {worker_nic: {bandwidth: 10Gbps}, server_nic: {bandwidth: 100Gbps}}
)");
  const fs::path sweep = write_scenario("overlap-sweep.yaml", R"(name: overlap-sweep
base: overlap-base.yaml
grid:
  protocol.overlap: [none, full]
  protocol.schedule: [fifo, priority]
  network.worker_nic.bandwidth: [1Gbps, 10Gbps]
)");
  const fs::path out = scratch() / "overlap-sweep-out", figures = scratch() / "overlap-figures";
  REQUIRE(pssim("sweep -q " + sweep.string() + " -o " + out.string()).code == 0);
  const Result r = pssim("plot " + out.string() + " -o " + figures.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(slurp(figures / "iteration_time_vs_bandwidth.png").substr(1, 3) == "PNG");
  const std::string svg = slurp(figures / "iteration_time_vs_bandwidth.svg");
  CHECK_THAT(svg, Catch::Contains("worker NIC bandwidth (Gbps") && Catch::Contains("priority over fifo") &&
                      Catch::Contains("compute alone"));
}

TEST_CASE("the shipped and benchmark scenarios are valid (and pass the memory estimate)", "[cli]") {
  int checked = 0;
  for (const auto& dir : {fs::path(PSSIM_SOURCE_DIR) / "scenarios", fs::path(PSSIM_SOURCE_DIR) / "scenarios" / "timing",
                          fs::path(PSSIM_SOURCE_DIR) / "scenarios" / "sweeps", fs::path(PSSIM_SOURCE_DIR) / "bench" / "scenarios"})
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml") continue;
      const Result r = pssim("validate " + entry.path().string());
      INFO(r.err);
      CHECK(r.code == 0);
      ++checked;
    }
  CHECK(checked >= 5);
}

// ---------------------------------------------------------------------------------------
// Exit statuses, one test per row of docs/commands.md's table (and sim/cli/exit_codes.hpp).

TEST_CASE("exit 2: data files that are missing, lie about their size or do not fit together", "[cli][exit]") {
  const std::string six(6, '\x01');  // one 3 x 2 image
  struct Case {
    const char* name;
    fs::path dir;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"missing", scratch() / "no-such-data", "train-images-idx3-ubyte.gz' does not exist"},
      // 16 x 2^30 x 2^30: the size product wraps to 0 (was SIGSEGV, exit 139).
      {"overflow", write_mnist_dir("idx-overflow", {16, 1u << 30, 1u << 30}, "", {16, 1u << 30, 1u << 30}, "",
                                   std::string(16, '\0'), std::string(16, '\0')),
       "more than any file can hold"},
      // A 26-byte file claiming 4,194,304 images (was 3.2 GB and 12 s before the message).
      {"truncated", write_mnist_dir("idx-truncated", {4194304, 28, 28}, "0123456789", {1, 3, 2}, six, "\x01", "\x01"),
       "claims 4194304 x 28 x 28 = 3288334336 bytes of data but it holds only 10"},
      {"trailing", write_mnist_dir("idx-trailing", {1, 3, 2}, six + "junk", {1, 3, 2}, six, "\x01", "\x01"),
       "holds 4 bytes beyond"},
      {"no-test-images", write_mnist_dir("idx-empty-test", {1, 3, 2}, six, {0, 3, 2}, "", "\x01", ""),
       "t10k-images-idx3-ubyte' holds no images"},
      {"sizes-differ", write_mnist_dir("idx-sizes", {1, 3, 2}, six, {1, 2, 3}, six, "\x01", "\x01"),
       "are 2 x 3 pixels but training images"},
      {"test-label", write_mnist_dir("idx-label", {1, 3, 2}, six, {1, 3, 2}, six, "\x01", "\x0c"),
       "test label 12 (item 0 of"},
  };
  for (const auto& c : cases) {
    const fs::path scenario = mnist_scenario(std::string("data-") + c.name + ".yaml", c.dir);
    for (const char* cmd : {"run", "train"}) {
      const Result r = pssim(std::string(cmd) + " -q " + scenario.string() + " -o " +
                             (scratch() / (std::string("data-out-") + c.name)).string());
      INFO(c.name << " via " << cmd << ": " << r.err);
      CHECK(r.code == 2);
      CHECK_THAT(r.err, Catch::StartsWith("pssim: error: " + scenario.string() + ": ") && Catch::Contains(c.message));
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
  }
}

TEST_CASE("exit 2: a damaged parameter file for grad, a learning rate that makes train diverge", "[cli][exit]") {
  const fs::path p = write_scenario("tiny-logreg.yaml", R"(name: tiny-logreg
model: {kind: logreg}
data: {kind: synthetic, batch_size: 32, train_items: 64, test_items: 32}
training: {optimizer: {kind: sgd, lr: 0.1}, stop: {updates: 4}}
cluster: {workers: {count: 1}}
)");
  const fs::path params = scratch() / "damaged-params";
  fs::create_directories(params);
  std::ofstream(params / "fc1.weight.npy") << "\x93NUMPY but not really";
  Result r = pssim("grad " + p.string() + " --params " + params.string() + " -o " + (scratch() / "grad-out").string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("fc1.weight.npy"));
  r = pssim("train -q " + p.string() + " --set 'model={kind: mlp, hidden: [32]}' --set training.optimizer.lr=1000 " +
            "--set training.stop.updates=20 --set data.train_items=256 -o " + (scratch() / "diverged").string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("training diverged"));
}

TEST_CASE("exit 2: a scenario that cannot be built, or whose values overflow the simulator", "[cli][exit]") {
  const fs::path p = write_scenario("explicit.yaml", kExplicit);
  Result r = pssim("run -q " + p.string() + " --set network.links.2.to=s2 -o " +
                   (scratch() / "disconnected-out").string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("cannot build this scenario: no route from a to c"));
  // A throughput of 1e-300 FLOPS validates; its compute time is beyond 292 years.
  const fs::path slow = write_scenario("slow.yaml", kSmall);
  REQUIRE(pssim("validate " + slow.string() + "").code == 0);
  r = pssim("run -q " + slow.string() + " --set cluster.workers.throughput=1e-300FLOPS -o " +
            (scratch() / "slow-out").string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("beyond the simulator's range"));
}

TEST_CASE("exit 2: the input scenario is never overwritten", "[cli][exit]") {
  const fs::path out = scratch() / "self";
  fs::create_directories(out);
  const fs::path input = out / "scenario.yaml";
  std::ofstream(input) << kSmall;
  for (const char* cmd : {"run -q ", "train -q "}) {
    const Result r = pssim(std::string(cmd) + input.string() + " --set cluster.workers.count=3 -o " + out.string());
    INFO(cmd << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("would be replaced by its output"));
    CHECK(slurp(input) == kSmall);
  }
}

TEST_CASE("exit 2: empty -o and loose --shard values are usage errors", "[cli][exit]") {
  const fs::path p = write_scenario("small.yaml", kSmall);
  const fs::path sweep = write_scenario("shard-sweep.yaml", "name: shard-sweep\nbase: small.yaml\nseeds: [1, 2]\n");
  for (const std::string& cmd : {"run " + p.string(), "train " + p.string(), "sweep " + sweep.string(),
                                 "plot " + scratch().string()}) {
    const Result r = pssim(cmd + " -o ''");
    INFO(cmd << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("an empty path names no directory"));
  }
  for (const char* shard : {"''", "' 1/3'", "'1/3 '", "-1/-1", "1/-1", "+1/3", "0/3", "4/3", "1/3x", "1/0", "1",
                            "1/2/3", "1//3", "1/10000000"}) {
    const Result r = pssim("sweep -q " + sweep.string() + " -o " + (scratch() / "shard-out").string() +
                           " --shard " + shard);
    INFO("--shard " << shard << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("is not K/N"));
  }
  CHECK_FALSE(fs::exists(scratch() / "shard-out"));
  const Result r = pssim("sweep " + sweep.string() + " --shard 1/2 --merge");
  CHECK(r.code == 2);
  CHECK(pssim("sweep -q " + sweep.string() + " -o " + (scratch() / "shard-out").string() + " --shard 2/2").code == 0);
}

TEST_CASE("exit 1: a failed or unrecorded sweep point is reported on stderr also under -q", "[cli][exit][sweep]") {
  write_scenario("small.yaml", kSmall);
  // Points 1 and 3 link the server to an isolated switch: they cannot be built.
  write_scenario("explicit.yaml", kExplicit);
  const fs::path sweep = write_scenario("failing-sweep.yaml", R"(name: failing
base: explicit.yaml
grid:
  seed: [1, 2]
  network.links.2.to: [s1, s2]
)");
  const fs::path out = scratch() / "failing-out";
  Result r = pssim("sweep -q -j 1 " + sweep.string() + " -o " + out.string());
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("sweep failing: point 1 failed: ") &&
                        Catch::Contains("no route from a to c"));
  CHECK_THAT(r.err, Catch::Contains("sweep failing: 2 failed and 0 missing point(s) in " + (out / "sweep.csv").string()));
  // A merge over failed points fails too.
  r = pssim("sweep -q " + sweep.string() + " --merge -o " + out.string());
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("2 failed and 0 missing"));
  // A point whose directory cannot be written: the reason, and a missing row.
  const fs::path seeds = write_scenario("unwritable-sweep.yaml", "name: unwritable\nbase: small.yaml\nseeds: [1, 2]\n");
  const fs::path out2 = scratch() / "unwritable-out";
  fs::create_directories(out2 / "points");
  std::ofstream(out2 / "points" / "0000") << "in the way";
  r = pssim("sweep -q " + seeds.string() + " -o " + out2.string());
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("point 0 failed: output directory " + (out2 / "points" / "0000").string() +
                                    " exists and is not a directory"));
  CHECK_THAT(r.err, Catch::Contains("0 failed and 1 missing"));
  CHECK_THAT(slurp(out2 / "sweep.csv"), Catch::Contains("\n0,1,missing,"));
}

TEST_CASE("exit 1: threads the system refuses are an error naming them, from run and sweep", "[cli][exit]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("skipped under AddressSanitizer: it needs more address space than the limit this test sets");
#else
  // A model with math, so that the run starts its gradient threads; 2 GB of address space
  // leave no room for 300 stacks of 8 MiB.
  const fs::path scenario = write_scenario("threads.yaml", R"(name: threads
model: {kind: mlp, hidden: [8]}
data: {kind: synthetic, batch_size: 4, train_items: 64, test_items: 16}
training: {stop: {updates: 2}}
cluster: {workers: {count: 2}}
)");
  const std::string limit = "ulimit -v 2000000; ";
  Result r = pssim("run -q " + scenario.string() + " --threads 300 -o " + (scratch() / "threads-out").string(), limit);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("pssim: error: cannot start 300 threads: the system refused after "));
  CHECK_THAT(r.err, !Catch::Contains("terminate"));
  const fs::path sweep = write_scenario("threads-sweep.yaml", "name: threads-sweep\nbase: threads.yaml\nseeds: [1]\n");
  r = pssim("sweep -q " + sweep.string() + " --threads 300 -o " + (scratch() / "threads-sweep-out").string(), limit);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("point 0 failed: cannot start 300 threads"));
#endif
}

namespace {

// pssim started in the background, stderr to a file.
struct Background {
  pid_t pid = -1;
  fs::path err;
};

Background start_pssim(const std::string& args, const fs::path& err) {
  const std::string line = "exec " + std::string(PSSIM_BINARY) + " " + args + " > /dev/null 2> " + err.string();
  const char* argv[] = {"/bin/sh", "-c", line.c_str(), nullptr};
  Background b{-1, err};
  REQUIRE(posix_spawn(&b.pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0);
  return b;
}

// Waits until `ready()` (the background run has started writing), at most a minute.
template <typename Ready>
bool wait_until(Ready ready) {
  for (int i = 0; i < 6000; ++i) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_CASE("exit 1 for a second writer into a directory, and an interrupt ends by its signal and keeps the directory usable",
          "[cli][exit][lock]") {
  // Runs for hours unless interrupted: 64 workers, a long simulated time.
  const fs::path endless = write_scenario("endless.yaml", R"(name: endless
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {sim_time: 1000000s}}
cluster: {workers: {count: 64}}
protocol: {mode: async}
)");
  const fs::path out = scratch() / "locked";
  fs::remove_all(out);
  Background first = start_pssim("run -q " + endless.string() + " -o " + out.string(), scratch() / "first.err");
  REQUIRE(wait_until([&] { return fs::exists(out / "scenario.yaml") && has_temporaries(out); }));
  const std::string holder = "is in use by another pssim (PID " + std::to_string(first.pid) + " on ";
  // A second run, a sweep, a merge, a baseline: each refused, naming the holder.
  const fs::path small = write_scenario("small.yaml", kSmall);
  const fs::path sweep = write_scenario("locked-sweep.yaml", "name: locked\nbase: small.yaml\n");
  for (const std::string& cmd : {"run -q " + small.string(), "sweep -q " + sweep.string(),
                                 "sweep -q --merge " + sweep.string(), "sweep -q --shard 1/2 " + sweep.string()}) {
    const Result r = pssim(cmd + " -o " + out.string());
    INFO(cmd << ": " << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("output directory " + out.string() + " " + holder) &&
                          Catch::Contains("pssim run of endless"));
  }
  CHECK(fs::exists(out / "scenario.yaml"));  // the second writers removed nothing
  // Ctrl-C: a message, then the process ends by SIGINT (the shell shows 130).
  REQUIRE(::kill(first.pid, SIGINT) == 0);
  int status = 0;
  REQUIRE(::waitpid(first.pid, &status, 0) == first.pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK_THAT(slurp(first.err), Catch::Contains("pssim: interrupted; completed results are kept"));
  // SIGTERM (a batch system's time limit): a shell sees 143.
  const fs::path term = scratch() / "terminated";
  const std::string script = std::string(PSSIM_BINARY) + " run -q " + endless.string() + " -o " + term.string() +
                             " 2> /dev/null & while [ ! -e " + (term / "scenario.yaml").string() +
                             " ]; do sleep 0.01; done; kill -TERM $!; wait $!; exit $?";
  const int shell = std::system(("/bin/sh -c '" + script + "'").c_str());
  CHECK(WIFEXITED(shell));
  CHECK(WEXITSTATUS(shell) == 143);
  // The killed run left its temporaries; the next run into the directory removes them.
  CHECK(has_temporaries(out));
  CHECK_FALSE(fs::exists(out / "summary.json"));
  const Result r = pssim("run -q " + small.string() + " -o " + out.string());
  CHECK(r.code == 0);
  CHECK_FALSE(has_temporaries(out));
  CHECK_FALSE(fs::exists(out / ".pssim.lock"));
  CHECK(fs::exists(out / "summary.json"));
}

TEST_CASE("exit 1: plot errors are one line", "[cli][exit][plot]") {
  const fs::path p = write_scenario("small.yaml", kSmall);
  const fs::path run = scratch() / "plot-one-line";
  REQUIRE(pssim("run -q " + p.string() + " -o " + run.string()).code == 0);
  const fs::path file = scratch() / "a-file";
  std::ofstream(file) << "x";
  Result r = pssim("plot " + run.string() + " -o " + file.string());
  CHECK(r.code == 1);
  CHECK(r.err == "pssim: error: output directory " + file.string() + " exists and is not a directory\n");
  std::ofstream(run / "summary.json") << "{not json";
  r = pssim("plot " + run.string() + " -o " + (scratch() / "plot-one-line-figures").string());
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("pssim plot: error: JSONDecodeError"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

// ---------------------------------------------------------------------------------------
// Issue 16: what the console and the figures say.

TEST_CASE("an override before the scenario (--set k=v SCENARIO) leaves the scenario to its positional", "[cli]") {
  const fs::path p = write_scenario("small.yaml", kSmall);
  const Result r = pssim("run -q --set cluster.workers.count=3 " + p.string() + " -o " + (scratch() / "set-first").string());
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK_THAT(slurp(scratch() / "set-first" / "scenario.yaml"), Catch::Contains("count: 3"));
}

TEST_CASE("pssim plot draws progress against the checkpoint interval of a sweep", "[cli][plot]") {
  write_scenario("checkpoint-base.yaml", std::string("name: checkpoint-base\n") + kTinyTraining + R"(cluster:
  workers: {count: 4, throughput: 100GFLOPS}
  servers: {count: 2, checkpoint: {every: 20ms}}
network: {worker_nic: {bandwidth: 1Gbps}, server_nic: {bandwidth: 1Gbps}}
events:
  - {at: 50ms, kind: server_crash, target: server-1, recover_after: 10ms}
)");
  const fs::path sweep = write_scenario("checkpoint-sweep.yaml", R"(name: checkpoint-sweep
base: checkpoint-base.yaml
grid:
  cluster.servers.checkpoint.every: [10ms, 40ms]
seeds: [1, 2]
)");
  const fs::path out = scratch() / "checkpoint-sweep-out";
  REQUIRE(pssim("sweep -q -j 2 " + sweep.string() + " -o " + out.string()).code == 0);
  const Result r = pssim("plot " + out.string() + " -o " + (out / "plots").string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string svg = slurp(out / "plots" / "progress_vs_checkpoint_interval.svg");
  CHECK_THAT(svg, Catch::Contains("checkpoint interval (s)") && Catch::Contains("part updates lost to crashes") &&
                      Catch::Contains("mean over 2 seeds"));
  CHECK(slurp(out / "plots" / "progress_vs_checkpoint_interval.png").substr(1, 3) == "PNG");
}

TEST_CASE("validate rejects what run would reject when building: qsgd error feedback on large slices", "[cli]") {
  const fs::path p = write_scenario("qsgd-feedback.yaml", R"(name: qsgd-feedback
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 2}}
cluster: {workers: {count: 2}}
compression:
  push: {kind: qsgd, levels: 7, error_feedback: true}
)");
  for (const std::string& cmd : std::vector<std::string>{"validate ", "run -q -o " + (scratch() / "qsgd-out").string() + " "}) {
    const Result r = pssim(cmd + p.string());
    INFO(cmd << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(p.string() + ":6:") && Catch::Contains("grows without bound"));
  }
  SECTION("in a sweep: the point, and the line of the sweep that chose the value") {
    const fs::path base = write_scenario("qsgd-base.yaml", R"(name: qsgd-base
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 2}}
cluster: {workers: {count: 2}}
compression:
  push: {kind: qsgd, levels: 7}
)");
    const fs::path sweep = write_scenario("qsgd-sweep.yaml", "name: qsgd-sweep\nbase: " + base.string() +
                                                                 "\ngrid:\n  compression.push.error_feedback: [false, true]\n");
    const Result r = pssim("validate " + sweep.string());
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(sweep.string() + ":4:") && Catch::Contains("sweep point 1:") &&
                          Catch::Contains("grows without bound") && !Catch::Contains("sweep point 0:"));
  }
}

TEST_CASE("a scheme name written as the protocol section says how to write it", "[cli]") {
  const fs::path p = write_scenario("small.yaml", kSmall);
  const Result r = pssim("validate " + p.string() + " --set protocol=async");
  // validate takes files only: the same through run
  const Result run = pssim("run -q " + p.string() + " --set protocol=async -o " + (scratch() / "p").string());
  CHECK(run.code == 2);
  CHECK_THAT(run.err, Catch::Contains("protocol must be a mapping of keys, not 'async'; write protocol: {mode: async}"));
  (void)r;
}

TEST_CASE("updates count model updates, not shard updates", "[cli]") {
  // 4 shards and a stop at 5 updates: 5 updates (20 shard updates), 5 x 6 gradients.
  const fs::path p = write_scenario("shards4.yaml", R"(name: shards4
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 5}}
cluster: {workers: {count: 6}, servers: {count: 4}}
)");
  const fs::path out = scratch() / "shards4";
  const Result r = pssim("run " + p.string() + " -o " + out.string());
  REQUIRE(r.code == 0);
  const std::string s = slurp(out / "summary.json");
  CHECK_THAT(s, Catch::Contains("\"updates\": 5,") && Catch::Contains("\"part_updates\": 20,") &&
                    Catch::Contains("\"gradients_applied\": 30,") && Catch::Contains("\"gradient_parts_applied\": 120,"));
  CHECK_THAT(r.out, Catch::Contains("shards4: stopped at the update limit") && Catch::Contains("5 updates"));
}

TEST_CASE("a diverged run says so: the summary line, and stderr also with -q", "[cli]") {
  const fs::path p = write_scenario("diverge.yaml", R"(name: diverge
model: {kind: mlp, hidden: [8]}
data: {kind: synthetic, batch_size: 16, train_items: 256, test_items: 64}
training:
  optimizer: {kind: sgd, lr: 900}
  stop: {sim_time: 0.2s}
  eval: {every: 20ms}
  target_accuracy: 90%
cluster: {workers: {count: 2, throughput: 100GFLOPS}}
)");
  Result r = pssim("run " + p.string() + " -o " + (scratch() / "diverge").string());
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("diverge: DIVERGED at update") && Catch::Contains("target 90 % not reached"));
  CHECK_THAT(r.err, Catch::Contains("warning: diverge: training diverged at update"));
  r = pssim("run -q " + p.string() + " -o " + (scratch() / "diverge").string());
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("training diverged"));
}

TEST_CASE("sweep writes to results/sweeps/<name> by default", "[cli][sweep]") {
  const fs::path work = scratch() / "default-dirs";
  fs::create_directories(work);
  std::ofstream(work / "base.yaml") << kSmall;
  std::ofstream(work / "sw.yaml") << "name: sw\nbase: base.yaml\ngrid: {cluster.workers.count: [2]}\n";
  const std::string cd = "cd " + work.string() + " && ";
  const int status = std::system((cd + PSSIM_BINARY + " sweep -q sw.yaml && " + PSSIM_BINARY + " run -q base.yaml").c_str());
  CHECK(status == 0);
  CHECK(fs::exists(work / "results" / "sweeps" / "sw" / "sweep.csv"));
  CHECK(fs::exists(work / "results" / "small" / "summary.json"));
}

TEST_CASE("the README's scenario example is scenarios/quickstart.yaml", "[cli]") {
  const std::string readme = slurp(fs::path(PSSIM_SOURCE_DIR) / "README.md");
  const auto start = readme.find("```yaml\nname: quickstart");
  REQUIRE(start != std::string::npos);
  const auto body = start + 8, end = readme.find("```", body);
  const std::string shown = readme.substr(body, end - body);
  std::string file = slurp(fs::path(PSSIM_SOURCE_DIR) / "scenarios" / "quickstart.yaml");
  // The file starts with a comment on what to look for; the README shows the keys.
  file = file.substr(file.find("name: quickstart"));
  CHECK(shown == file);
}

TEST_CASE("a collapsed run reads as one: in the run line, summary.json, compare and plot", "[cli][compare]") {
  const fs::path base = write_scenario("collapse.yaml", std::string("name: collapse\n") + kTinyTraining +
                                                             "cluster: {workers: {count: 4, throughput: 100GFLOPS}}\n");
  // lr 5: the loss stays finite but climbs far above its start (lr 0.1 trains).
  const fs::path out = scratch() / "collapse";
  Result r = pssim("run " + base.string() + " --set training.optimizer.lr=5 -o " + out.string());
  INFO(r.err);
  REQUIRE(r.code == 0);  // a result, as a diverged run is
  CHECK_THAT(r.out, Catch::StartsWith("collapse: COLLAPSED at update ") &&
                        Catch::Contains("above 10 x the initial loss"));
  CHECK_THAT(r.err, Catch::StartsWith("pssim: warning: collapse: training collapsed at update"));
  const std::string summary = slurp(out / "summary.json");
  CHECK_THAT(summary, Catch::Contains("\"stopped_by\": \"collapsed\"") && Catch::Contains("\"diverged\": true") &&
                          Catch::Contains("\"collapse\": \"training loss"));
  // Off: the same run goes on to the time limit.
  r = pssim("run -q " + base.string() + " --set training.optimizer.lr=5 --set training.collapse.loss_factor=0 -o " +
            (scratch() / "collapse-off").string());
  CHECK_THAT(slurp(scratch() / "collapse-off" / "summary.json"), Catch::Contains("\"stopped_by\": \"sim_time\""));
  REQUIRE(pssim("run -q " + base.string() + " -o " + (scratch() / "collapse-ok").string()).code == 0);
  r = pssim("compare " + out.string() + " " + (scratch() / "collapse-ok").string());
  CHECK_THAT(r.out, Catch::Contains("collapsed at update") && Catch::Contains("collapsed  "));
  r = pssim("plot " + out.string() + " " + (scratch() / "collapse-ok").string() + " -o " +
            (scratch() / "collapse-plots").string());
  REQUIRE(r.code == 0);
  CHECK_THAT(slurp(scratch() / "collapse-plots" / "accuracy_vs_time.svg"),
             Catch::Contains("collapse (collapsed)") && Catch::Contains("diverged (loss NaN) or collapsed"));
}

TEST_CASE("pssim compare: a sweep with a diverged and a not-reached point", "[cli][compare]") {
  const fs::path base = write_scenario("cmp-base.yaml", R"(name: cmp
model: {kind: mlp, hidden: [8]}
data: {kind: synthetic, batch_size: 16, train_items: 256, test_items: 64}
training:
  optimizer: {kind: sgd, lr: 0.1}
  stop: {sim_time: 0.2s}
  eval: {every: 20ms}
  target_accuracy: 99%
cluster: {workers: {count: 2, throughput: 100GFLOPS}}
)");
  // lr 0.1 reaches 99 %; 1e-6 learns nothing in 0.2 s; 900 diverges.
  const fs::path sweep = write_scenario("cmp-sweep.yaml", R"(name: cmp-sweep
base: cmp-base.yaml
grid: {training.optimizer.lr: [0.1, 0.000001, 900]}
seeds: [1, 2]
)");
  const fs::path out = scratch() / "cmp-sweep";
  REQUIRE(pssim("sweep -q -j 2 " + sweep.string() + " -o " + out.string()).code == 0);
  Result r = pssim("compare " + out.string());
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("time to target (s)") && Catch::Contains("best accuracy (%)") &&
                        Catch::Contains("samples/s") && Catch::Contains("bottleneck link"));
  CHECK_THAT(r.out, Catch::Contains("lr 0.1 (2 seeds)") && Catch::Contains("not reached") &&
                        Catch::Contains("diverged at update") && Catch::Contains("time limit"));
  // The scheme is named; seeds give a mean, its 95 % confidence interval (Student t with 1
  // degree of freedom: 12.706 x sd / sqrt 2) and the range.
  CHECK_THAT(r.out, Catch::Contains("sync PS, 1 server") && Catch::Contains("iteration (ms)") &&
                        Catch::Contains("10.16 ± 9.93 (9.38-10.94)"));
  r = pssim("compare --format markdown " + out.string());
  CHECK_THAT(r.out, Catch::StartsWith("| run | scheme | time to target (s) |") && Catch::Contains("|---|---|---:|"));
  // Speed-ups over a row given by its number or by words of its name.
  r = pssim("compare --baseline 'lr 0.1' " + out.string());
  CHECK_THAT(r.out, Catch::Contains("speed-up: iteration") && Catch::Contains("1.00x"));
  CHECK(pssim("compare --baseline 1 " + out.string()).out == r.out);
  r = pssim("compare --baseline nothing " + out.string());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--baseline nothing: no row matches"));
  r = pssim("compare --format csv " + out.string());
  CHECK_THAT(r.out, Catch::StartsWith("setting,run,scheme,seed,status,stopped_by"));
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 7);  // a header and 6 runs
  CHECK_THAT(r.out, Catch::Contains(",diverged,"));
  // A plain run, and a path that is not a result.
  REQUIRE(pssim("run -q " + base.string() + " -o " + (scratch() / "cmp-run").string()).code == 0);
  r = pssim("compare " + (scratch() / "cmp-run").string() + " " + out.string() + " --per-seed");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("lr 0.000001, seed 2") || Catch::Contains("lr 1e-06, seed 2"));
  CHECK(pssim("compare " + scratch().string()).code == 2);
}
