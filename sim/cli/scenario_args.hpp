// The arguments that name a scenario on the command line (SCENARIO, --set, --seed), shared
// by the commands that load one (run, train, grad).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/load_scenario.hpp"

namespace pssim::cli {

struct ScenarioArgs {
  std::string scenario;                ///< path of the YAML file
  std::vector<std::string> overrides;  ///< --set path.to.key=value, in order
  std::optional<std::uint64_t> seed;   ///< --seed
};

/// Loads the scenario with its overrides. Throws scenario::ScenarioError (file:line:col for
/// each problem; report_failure gives it exit status 2).
scenario::LoadedScenario load_scenario(const ScenarioArgs& args);

}  // namespace pssim::cli
