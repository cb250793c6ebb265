// A sweep: one base scenario and the points to run it at.
//
//   name: shards-vs-workers
//   base: ../scenarios/timing/sharded-sync.yaml   # relative to the sweep file
//   set:  {training.stop.updates: 5}               # overrides for every point
//   grid:                                          # every combination (first key outermost)
//     cluster.workers.count: [16, 64]
//   zip:                                           # varied together, lists of equal length
//     cluster.servers.count: [1, 2, 4]
//     cluster.servers.shards: [1, 2, 4]
//   seeds: [1, 2]                                  # or repetitions: 3 (seeds 1, 2, 3)
//
// Points: grid combinations x zip rows x seeds, seeds innermost. Every point's scenario is
// resolved and validated when the sweep is loaded, so a typo in any value is reported
// (file:line:col, in the sweep file) before anything runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/scenario/config_node.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace pssim::sweep {

struct SweepPoint {
  std::size_t index = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> values;  ///< text of each axis' value, in axes order
  scenario::LoadedScenario scenario;
};

struct SweepSpec {
  std::string name;
  std::filesystem::path file;
  std::vector<std::string> axes;  ///< swept keys: grid keys, then zip keys
  std::vector<SweepPoint> points;
  bool dynamics = false;  ///< some point plays a timeline (scenario::has_dynamics): more figures
};

/// Loads and expands a sweep file. Throws scenario::ScenarioError for any problem in the
/// sweep file or in the scenario of any point. At most kMaxPoints points.
SweepSpec load_sweep(const std::filesystem::path& file);

inline constexpr std::size_t kMaxPoints = 100'000;

}  // namespace pssim::sweep
