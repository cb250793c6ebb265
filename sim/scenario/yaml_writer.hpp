// Writing a ConfigNode tree back out as YAML (the resolved scenario next to results).
#pragma once

#include <string>

#include "sim/scenario/config_node.hpp"

namespace pssim::scenario {

/// Block-style YAML with lists of scalars in flow style ([1, 2]); scalars keep the text
/// the user wrote (quoted where YAML needs it), so reading the output back yields the
/// same tree. `header` lines are written first as comments.
std::string to_yaml(const ConfigNode& root, const std::string& header = "");

/// One line of flow-style YAML ("{dist: lognormal, sigma: 0.5}", "[1, 2]", "16").
std::string to_flow_yaml(const ConfigNode& node);

}  // namespace pssim::scenario
