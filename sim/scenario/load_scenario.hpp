// The whole scenario pipeline: file -> overrides -> validation -> typed Scenario.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/config_node.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::scenario {

struct LoadedScenario {
  ConfigNode resolved;  ///< every key with its value: write it next to the results
  Scenario scenario;
};

struct Overrides {
  std::vector<std::string> assignments;  ///< "path.to.key=value", applied in order
  std::optional<std::uint64_t> seed;     ///< --seed: applied after the assignments
};

/// Loads, overrides, validates and translates, and records in `resolved` the fingerprints
/// of the files the scenario reads (`inputs`, input_files.hpp). Throws ScenarioError with
/// every problem found (file:line:col for each).
LoadedScenario load_scenario_file(const std::string& path, const Overrides& overrides = {});
/// The same from text already in memory; `source` names it in diagnostics.
LoadedScenario load_scenario_text(std::string_view text, const std::string& source, const Overrides& overrides = {});

/// Overrides, validation and translation of a raw tree already loaded (sweeps load the
/// base scenario once and resolve it for every point).
LoadedScenario resolve_scenario(ConfigNode raw, const Overrides& overrides = {});

/// The resolved scenario as YAML, with a header saying how to reproduce the run.
std::string resolved_yaml(const LoadedScenario& loaded);

}  // namespace pssim::scenario
