// pssim validate SCENARIO...: checks scenario files without running them.
#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/scenario_error.hpp"
#include "sim/scenario/yaml_loader.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace pssim::cli {
namespace {

// What validate says of a scenario with a torch module when it cannot build the module.
constexpr const char* kKeysOnly = "; keys only: /usr/bin/python3 -m pssim validate also builds its torch module";

/// Builds every point of a sweep as `run` would (one seed of each combination: the seed
/// changes no check), so that what `run` rejects, e.g. qsgd error feedback with too few
/// levels, is rejected here with the point's number. Throws every problem at once; returns
/// false when a point uses a torch module that could not be built here (no `external`).
bool check_points_buildable(const sweep::SweepSpec& spec, const experiment::ExternalMath* external) {
  std::vector<scenario::Diagnostic> problems;
  const std::vector<std::string>* previous_values = nullptr;
  bool all_built = true;
  for (const auto& point : spec.points) {
    const bool another_seed_of_the_same_combination = previous_values && *previous_values == point.values;
    previous_values = &point.values;
    if (another_seed_of_the_same_combination) continue;
    try {
      all_built = experiment::check_buildable(point.scenario, external) && all_built;
    } catch (const scenario::ScenarioError& e) {
      for (const auto& d : e.diagnostics())
        problems.push_back({d.location, fmt::format("sweep point {}: {}", point.index, d.message)});
    } catch (const std::exception& e) {
      scenario::Diagnostic problem;  // a problem of the point as a whole: the sweep file, no line
      problem.location.source = spec.file.string();
      problem.message = fmt::format("sweep point {}: {}", point.index, e.what());
      problems.push_back(std::move(problem));
    }
  }
  if (!problems.empty()) throw scenario::ScenarioError(std::move(problems));
  return all_built;
}

}  // namespace

int validate_command(const std::vector<std::string>& files, const CommandLineSetup& setup) {
  int exit_code = kSuccess;
  for (const auto& path : files) {
    try {
      const auto tree = scenario::load_yaml_file(path);
      if (tree.is_map() && tree.find("base")) {
        const auto spec = sweep::load_sweep(path);
        const bool built = check_points_buildable(spec, setup.external);
        fmt::print("{}: ok (sweep {}, {} point{}{})\n", path, spec.name, spec.points.size(),
                   spec.points.size() == 1 ? "" : "s", built ? "" : kKeysOnly);
      } else {
        const auto loaded = scenario::load_scenario_file(path);
        const bool built = experiment::check_buildable(loaded, setup.external);
        fmt::print("{}: ok ({}{})\n", path, loaded.scenario.name, built ? "" : kKeysOnly);
      }
    } catch (...) {
      exit_code = std::max(exit_code, report_failure(path));
    }
  }
  return exit_code;
}

}  // namespace pssim::cli

