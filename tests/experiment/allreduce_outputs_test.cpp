// What a run of an all-reduce scheme writes: the outputs of a scheme with rounds, and the
// collective's steps in the trace.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/experiment/run_job.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("an all-reduce run writes rounds, the time split and each step in the trace", "[allreduce][outputs]") {
  // 4 workers, ring over 4 MB on 1 GB/s NICs with 10 us latency, no compute to speak of:
  // 6 steps of 20 us + 1 ms: a round is 6.12 ms.
  const auto loaded = scenario::load_scenario_text(R"(name: ar
model: {kind: synthetic, params: 1M, flops_per_sample: 1FLOP}
data: {batch_size: 1}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4, throughput: 1000000TFLOPS}}
network: {worker_nic: {bandwidth: 8Gbps, latency: 10us}}
protocol: {mode: allreduce}
output: {trace: true}
)",
                                                   "ar.yaml");
  const fs::path dir = fs::temp_directory_path() / ("pssim-allreduce-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  experiment::run_to_directory(loaded, dir, {});
  const std::string rounds = slurp(dir / "rounds.csv");
  CHECK(rounds == "round,end_s,duration_s,dropped_gradients\n0,0.00612,0.00612,0\n1,0.01224,0.00612,0\n"
                  "2,0.01836,0.00612,0\n");
  const std::string summary = slurp(dir / "summary.json");
  CHECK(summary.find("\"protocol\": \"allreduce\"") != std::string::npos);
  CHECK(summary.find("\"shards\": 0") != std::string::npos);
  CHECK(summary.find("\"push_bytes\": 36000000") != std::string::npos);  // 3 rounds x 4 x 3 reduce steps x 1 MB
  const std::string trace = slurp(dir / "trace.json");
  CHECK(trace.find("\"name\":\"collective steps\"") != std::string::npos);
  CHECK(trace.find("\"name\":\"reduce 0\"") != std::string::npos);
  CHECK(trace.find("\"name\":\"gather 5\"") != std::string::npos);
  CHECK(slurp(dir / "workers.csv").find("worker-3") != std::string::npos);
  fs::remove_all(dir);
}
