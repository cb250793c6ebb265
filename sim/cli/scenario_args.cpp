#include "sim/cli/scenario_args.hpp"

namespace pssim::cli {

void add_scenario_args(CLI::App* cmd, ScenarioArgs& args, const std::string& description) {
  cmd->add_option("scenario", args.scenario, description)->required();
  // One value per --set: `--set k=v SCENARIO` must leave SCENARIO to the positional (a
  // vector option takes every following word by default).
  cmd->add_option("--set", args.overrides, "Override a key: path.to.key=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--seed", args.seed, "Override the scenario's seed");
}

scenario::LoadedScenario load_scenario(const ScenarioArgs& args) {
  return scenario::load_scenario_file(args.scenario, {args.overrides, args.seed});
}

}  // namespace pssim::cli
