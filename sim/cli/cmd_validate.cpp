// pssim validate SCENARIO...: checks scenario files without running them.
#include <algorithm>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/yaml_loader.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace pssim::cli {

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("validate", "Check scenario (or sweep) files: exit 0 when all are valid, 2 otherwise");
  cmd->footer(
      "Example:\n  pssim validate scenarios/*.yaml scenarios/sweeps/*.yaml\n\n"
      "A file with a `base:` key is a sweep: every point's scenario is checked.\n"
      "A scenario (not a sweep's points) is also built as `run` builds it, data loaded, so what\n"
      "`run` would reject (e.g. qsgd error feedback with too few levels for its shards) is\n"
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
          fmt::print("{}: ok (sweep {}, {} points)\n", path, spec.name, spec.points.size());
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
