// The files a scenario reads, fingerprinted into its resolved scenario (`inputs`).
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/input_files.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "tests/support/scratch_files.hpp"

using namespace pssim::scenario;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  static const fs::path dir = pssim::test::scratch_directory("pssim-inputs-test");
  return dir;
}

fs::path write(const fs::path& p, const std::string& text) { return pssim::test::write_file(p, text); }

void set_modified(const fs::path& p, time_t seconds, long nanoseconds) {
  const timespec times[2] = {{seconds, nanoseconds}, {seconds, nanoseconds}};
  REQUIRE(::utimensat(AT_FDCWD, p.c_str(), times, 0) == 0);
}

const char* kCommon = R"(name: in
training: {stop: {updates: 3}}
cluster: {workers: {count: 2}}
)";
const std::string kBase = std::string(kCommon) + "model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}\n";

}  // namespace

TEST_CASE("an events trace is recorded by its SHA-256, which follows its content", "[scenario][inputs]") {
  const fs::path trace = write(scratch() / "trace.csv", "time,kind,target,value\n1ms,worker_speed,worker-1,0.5\n");
  const std::string text = kBase + "events_file: " + trace.string() + "\n";
  const auto first = load_scenario_text(text, "s.yaml");
  const auto files = input_files(first.scenario, first.resolved);
  REQUIRE(files.size() == 1);
  CHECK(files[0].key == "events_file");
  CHECK(files[0].path == trace.string());
  // printf 'time,kind,target,value\n1ms,worker_speed,worker-1,0.5\n' | sha256sum
  CHECK(files[0].sha256 == "0aaeeb920909c0b179634d3ef523ee8708a5c93978594889db621315da32fd34");
  CHECK_THAT(resolved_yaml(first), Catch::Contains("inputs:\n  - key: events_file\n    path: \"" + trace.string() +
                                                   "\"\n    sha256: \"" + files[0].sha256 + "\"\n"));
  write(trace, "time,kind,target,value\n1ms,worker_speed,worker-1,0.25\n");
  const auto second = load_scenario_text(text, "s.yaml");
  CHECK(resolved_yaml(second) != resolved_yaml(first));
  // An `inputs` list in a scenario file (a resolved scenario run again) is replaced by the
  // fingerprints of now, so an old one never passes for the current files.
  const auto again = load_scenario_text(resolved_yaml(first), "resolved.yaml");
  CHECK(resolved_yaml(again) == resolved_yaml(second));
}

TEST_CASE("module sources are hashed, data sets are recorded by size and modification time", "[scenario][inputs]") {
  const fs::path net = write(scratch() / "torch" / "net.py", "def make():\n    pass\n");
  const fs::path data = write(scratch() / "torch" / "data.py", "x");
  const auto torch = load_scenario_text(
      "name: t\nmodel: {kind: torch, module: " + net.string() + ":make}\ndata: {kind: torch, module: " +
          data.string() + ":make}\ntraining: {stop: {updates: 1}}\ncluster: {workers: {count: 2}}\n",
      "t.yaml");
  auto files = input_files(torch.scenario, torch.resolved);
  REQUIRE(files.size() == 2);
  CHECK(files[0].key == "model.module");
  CHECK(files[0].path == net.string());
  CHECK(files[0].sha256 == "9c8a48f1187a23f6aa7689548ff7e642a1539ef1e58793da2d9d59618e2433a5");
  CHECK(files[1].key == "data.module");
  CHECK(files[1].sha256 == "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");  // "x"

  // An IDX directory: each of the four files read, by size and modification time (UTC, ns).
  const fs::path idx = scratch() / "idx";
  for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte.gz",
                           "t10k-labels-idx1-ubyte.gz"})
    set_modified(write(idx / name, std::string(std::strlen(name), 'b')), 981173106, 7);
  const auto mnist = load_scenario_text(std::string(kCommon) + "model: {kind: mlp}\ndata: {kind: mnist, path: " +
                                            idx.string() + "}\n",
                                        "m.yaml");
  files = input_files(mnist.scenario, mnist.resolved);
  REQUIRE(files.size() == 4);
  CHECK(files[1].key == "data");
  CHECK(files[1].path == (idx / "train-labels-idx1-ubyte").string());  // the plain file, as read
  CHECK(files[1].sha256.empty());
  CHECK(files[1].bytes == std::strlen("train-labels-idx1-ubyte"));
  CHECK(files[1].modified == "2001-02-03T04:05:06.000000007Z");

  // A fortune directory: one entry for the files read (not the .dat indexes).
  const fs::path corpus = scratch() / "fortunes";
  set_modified(write(corpus / "a", "one\n%\ntwo\n"), 1000, 0);
  set_modified(write(corpus / "b", "three\n"), 2000, 5);
  set_modified(write(corpus / "a.dat", "index"), 3000, 0);
  const auto text = load_scenario_text(std::string(kCommon) + "model: {kind: lstm-lm}\ndata: {kind: text, corpus: " +
                                           corpus.string() + "}\n",
                                       "c.yaml");
  files = input_files(text.scenario, text.resolved);
  REQUIRE(files.size() == 1);
  CHECK(files[0].path == corpus.string());
  CHECK(files[0].files == 2);
  CHECK(files[0].bytes == 16);
  CHECK(files[0].modified == "1970-01-01T00:33:20.000000005Z");
  // A data set that is not there is left out (loading it reports the error).
  const auto missing = load_scenario_text(std::string(kCommon) + "model: {kind: mlp}\ndata: {kind: mnist, path: " +
                                              (scratch() / "none").string() + "}\n",
                                          "n.yaml");
  CHECK(input_files(missing.scenario, missing.resolved).empty());
}
