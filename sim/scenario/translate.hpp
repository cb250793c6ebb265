// Translation of a resolved (validated) scenario tree into the typed Scenario, with the
// checks that involve several keys (a list as long as the worker count, min <= max, ...).
#pragma once

#include "sim/scenario/config_node.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::scenario {

/// Reads `resolved` (the output of validate() with scenario_schema()). Derived defaults
/// (e.g. the shard count) are written back into `resolved`, so the resolved scenario
/// states every value the run used. Throws ScenarioError at the offending key.
Scenario translate(ConfigNode& resolved);

}  // namespace pssim::scenario
