// The memory a run needs, estimated before it is built: a lower bound of what runs were
// measured to use, and a clear refusal, with both figures, of what cannot fit.
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/experiment/memory_estimate.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;

namespace {

scenario::Scenario load(const std::string& text) { return scenario::load_scenario_text(text, "mem.yaml").scenario; }

double estimate(const std::string& text, std::int64_t params) {
  const auto s = load(text);
  return experiment::estimate_memory(s, schemes::find(s.protocol.scheme), params).bytes;
}

std::string timing(std::int64_t workers, const std::string& rest) {
  return fmt::format("name: t\nmodel: {{kind: synthetic, params: 25M, flops_per_sample: 1GFLOP}}\n"
                     "training: {{stop: {{updates: 2}}}}\ncluster:\n  workers: {{count: {}}}\n{}",
                     workers, rest);
}

}  // namespace

TEST_CASE("the memory estimate stays below what runs were measured to use", "[experiment][memory]") {
  // Peak RSS of `pssim run` (timing only, 2 updates) on this project's machine: the
  // estimate leaves out everything that does not grow with the cluster.
  CHECK(estimate(timing(65536, "  servers: {count: 1}\n"), 25'000'000) < 137.5e6);
  CHECK(estimate(timing(65536, "  servers: {count: 8}\n"), 25'000'000) < 237.0e6);
  CHECK(estimate(timing(65536, "  servers: {placement: colocated, shards: 8}\n"), 25'000'000) < 224.6e6);
  CHECK(estimate(timing(4096, "protocol: {mode: allreduce}\n"), 25'000'000) < 16.7e6);
  CHECK(estimate(timing(65536, "  servers: {count: 1}\nprotocol: {mode: async}\n"), 25'000'000) < 132.0e6);
  // bench/scale_sharded_sync.sh at 262,144 workers, 8 shards: 898 MB (docs/benchmarks.md).
  CHECK(estimate(timing(262144, "  servers: {count: 8}\n"), 25'000'000) < 898e6);
  // With math, sync holds a gradient per worker until the update: bench/scenarios/
  // sync16-mnist-net.yaml's 16 x 4.8 MB; async the parameters once.
  const std::string mlp = "name: m\nmodel: {kind: mlp}\ndata: {kind: synthetic}\ntraining: {stop: {updates: 1}}\n"
                          "cluster: {workers: {count: 16}}\n";
  CHECK(estimate(mlp, 1'199'882) == Approx(16 * 1650 + 16 * 1'199'882 * 4.0));
  CHECK(estimate(mlp + "protocol: {mode: async}\n", 1'199'882) == Approx(16 * 1650 + 1'199'882 * 4.0));
  CHECK(estimate(mlp + "protocol: {mode: sync, backup_workers: 4}\n", 1'199'882) ==
        Approx(16 * 1650 + 12 * 1'199'882 * 4.0));
}

TEST_CASE("a scenario that cannot fit is refused at once, with the estimate and the limit", "[experiment][memory]") {
  // The quickstart's MLP (203,530 parameters) on 10 million workers.
  const auto s = load("name: big\nmodel: {kind: mlp, hidden: [256]}\ndata: {kind: fashion-mnist}\n"
                      "training: {stop: {updates: 1}}\ncluster: {workers: {count: 10000000}}\n");
  const auto& sync = schemes::find("sync");
  const experiment::MemoryLimit machine{24e9, "MemTotal in /proc/meminfo"};
  CHECK_THROWS_MATCHES(experiment::check_memory(s, sync, 203'530, machine), experiment::MemoryTooSmall,
                       Catch::Matchers::Message(
                           "this scenario needs at least 8158 GB (10000000 workers x 1.65 kB of simulation state + "
                           "10000000 gradients of 814 kB held for an averaged update), more than the 24 GB this "
                           "process may use (MemTotal in /proc/meminfo); use fewer workers or a smaller model, or a "
                           "machine with more memory"));
  CHECK_NOTHROW(experiment::check_memory(s, sync, 203'530, {1e15, "a large machine"}));
  const experiment::MemoryLimit here = experiment::memory_limit();
  CHECK(here.bytes > 0);
  CHECK_FALSE(here.source.empty());
}
