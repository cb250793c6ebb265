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

/// Builds every point of a sweep as `run` would (one seed of each combination: the seed
/// changes no check), so that what `run` rejects, e.g. qsgd error feedback with too few
/// levels, is rejected here with the point's number. Throws every problem at once.
void check_points_buildable(const sweep::SweepSpec& spec) {
  std::vector<scenario::Diagnostic> problems;
  const std::vector<std::string>* previous_values = nullptr;
  for (const auto& point : spec.points) {
    const bool another_seed_of_the_same_combination = previous_values && *previous_values == point.values;
    previous_values = &point.values;
    if (another_seed_of_the_same_combination) continue;
    try {
      experiment::check_buildable(point.scenario);
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
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("validate", "Check scenario (or sweep) files: exit 0 when all are valid, 2 otherwise");
  cmd->footer(
      "Example:\n  pssim validate scenarios/*.yaml scenarios/sweeps/*.yaml\n\n"
      "A file with a `base:` key is a sweep: every point's scenario is checked.\n"
      "A scenario, and every point of a sweep, is also built as `run` builds it, data loaded, so\n"
      "what `run` would reject (e.g. qsgd error feedback with too few levels for its shards) is\n"
      "rejected here too. Every problem is printed as file:line:col: error: message.");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("scenarios", *files, "Scenario files")->required();
  cmd->callback([files, &exit_code] {
    exit_code = kSuccess;
    for (const auto& path : *files) {
      try {
        const auto tree = scenario::load_yaml_file(path);
        if (tree.is_map() && tree.find("base")) {
          const auto spec = sweep::load_sweep(path);
          check_points_buildable(spec);
          fmt::print("{}: ok (sweep {}, {} point{})\n", path, spec.name, spec.points.size(),
                     spec.points.size() == 1 ? "" : "s");
        } else {
          const auto loaded = scenario::load_scenario_file(path);
          experiment::check_buildable(loaded);
          fmt::print("{}: ok ({})\n", path, loaded.scenario.name);
        }
      } catch (...) {
        exit_code = std::max(exit_code, report_failure(path));
      }
    }
  });
}

}  // namespace pssim::cli
