#include "sim/cli/scenario_args.hpp"

#include "sim/cli/report.hpp"

namespace pssim::cli {

void add_scenario_args(CLI::App* cmd, ScenarioArgs& args, const std::string& description) {
  cmd->add_option("scenario", args.scenario, description)->required();
  cmd->add_option("--set", args.overrides, "Override a key: path.to.key=value (repeatable)");
  cmd->add_option("--seed", args.seed, "Override the scenario's seed");
}

std::optional<scenario::LoadedScenario> load_or_report(const ScenarioArgs& args) {
  try {
    return scenario::load_scenario_file(args.scenario, {args.overrides, args.seed});
  } catch (const scenario::ScenarioError& e) {
    report(e);
    return std::nullopt;
  }
}

}  // namespace pssim::cli
