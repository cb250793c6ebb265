#include "sim/cli/scenario_args.hpp"

namespace pssim::cli {

scenario::LoadedScenario load_scenario(const ScenarioArgs& args) {
  return scenario::load_scenario_file(args.scenario, {args.overrides, args.seed});
}

}  // namespace pssim::cli
