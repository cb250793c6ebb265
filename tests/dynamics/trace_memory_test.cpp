// What an events trace costs in memory: the scenario holds a line in about 40 bytes, and
// a run adds its queued event and firing order (about 36 bytes more). Heap bytes in use
// are read from the allocator (mallinfo2), before and after, in this one thread.
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/experiment/experiment.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;
namespace fs = std::filesystem;

namespace {
std::int64_t heap_in_use() {
  const struct mallinfo2 m = ::mallinfo2();
  return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
}
}  // namespace

TEST_CASE("an events trace costs at most about 100 bytes per line, loaded and played", "[dynamics][memory]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("skipped under AddressSanitizer: its allocator does not report mallinfo2");
#else
  constexpr int kLines = 100'000;
  const fs::path trace = fs::temp_directory_path() / fmt::format("pssim-trace-memory-{}.csv", ::getpid());
  {
    std::ofstream out(trace);
    out << "time,kind,target,value\n";
    for (int i = 0; i < kLines; ++i) out << fmt::format("{:.6f},worker_speed,worker-{},{}\n", i * 1e-4, i % 8, 0.5 + (i % 3) * 0.25);
  }
  const std::string text = "name: mem\nmodel: {kind: synthetic, params: 1000, flops_per_sample: 1MFLOP}\n"
                           "training: {stop: {sim_time: 1ms}}\ncluster: {workers: {count: 8}}\nevents_file: " +
                           trace.string() + "\n";
  const std::int64_t before = heap_in_use();
  auto loaded = std::make_unique<scenario::LoadedScenario>(scenario::load_scenario_text(text, "mem.yaml"));
  const std::int64_t after_load = heap_in_use();
  // The run schedules every line at its start; it stops after 1 ms with the rest pending.
  auto e = std::make_unique<experiment::Experiment>(loaded->scenario);
  e->run(nullptr);
  const std::int64_t while_played = heap_in_use();
  fs::remove(trace);
  const double loaded_per_line = static_cast<double>(after_load - before) / kLines;
  const double played_per_line = static_cast<double>(while_played - before) / kLines;
  INFO("heap per line: " << loaded_per_line << " bytes loaded, " << played_per_line << " while played");
  CHECK(loaded_per_line < 60);
  CHECK(played_per_line < 110);  // queue and scenario copies included (it was about 3 kB)
#endif
}
