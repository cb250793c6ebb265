#include "sim/scenario/load_scenario.hpp"

#include <fmt/format.h>

#include "sim/scenario/input_files.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/scenario/translate.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/scenario/yaml_loader.hpp"
#include "sim/scenario/yaml_writer.hpp"

namespace pssim::scenario {
LoadedScenario resolve_scenario(ConfigNode raw, const Overrides& overrides) {
  if (!raw.is_map())
    throw ScenarioError(raw.location(), fmt::format("a scenario is a mapping of keys (name:, model:, cluster: ...), "
                                                    "not {}",
                                                    raw.describe()));
  for (const auto& assignment : overrides.assignments) apply_override(raw, assignment);
  if (overrides.seed) apply_override(raw, fmt::format("seed={}", *overrides.seed));
  LoadedScenario loaded;
  loaded.resolved = validate(raw, scenario_schema());
  loaded.scenario = translate(loaded.resolved);
  // What the referenced files hold now, in place of anything the file said.
  std::erase_if(loaded.resolved.entries(), [](const MapEntry& e) { return e.key == "inputs"; });
  const auto inputs = input_files(loaded.scenario, loaded.resolved);
  if (!inputs.empty()) loaded.resolved.set("inputs", {"written by pssim", 0, 0}, inputs_node(inputs));
  return loaded;
}

LoadedScenario load_scenario_file(const std::string& path, const Overrides& overrides) {
  return resolve_scenario(load_yaml_file(path), overrides);
}

LoadedScenario load_scenario_text(std::string_view text, const std::string& source, const Overrides& overrides) {
  return resolve_scenario(load_yaml_string(text, source), overrides);
}

std::string resolved_yaml(const LoadedScenario& loaded) {
  return to_yaml(loaded.resolved,
                 "Resolved scenario written by pssim: every key with the value the run used\n"
                 "(defaults filled in, command-line overrides applied).\n"
                 "`pssim run` on this file reproduces the run.");
}

}  // namespace pssim::scenario
