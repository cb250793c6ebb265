// Loading YAML text into a ConfigNode tree, with precise errors.
//
// Guards against inputs that would otherwise crash, hang or exhaust memory: files that are
// not regular files or are larger than kMaxFileBytes, bytes that are not UTF-8, control
// characters, nesting deeper than kMaxDepth, several documents, duplicate keys, and
// alias expansion beyond kMaxNodes nodes ("billion laughs").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sim/scenario/config_node.hpp"

namespace pssim::scenario {

inline constexpr std::size_t kMaxFileBytes = 4 << 20;  // a scenario is a few KiB
inline constexpr int kMaxDepth = 64;                     // the schema nests 5 levels
inline constexpr std::size_t kMaxNodes = 200'000;

/// Parses `text`, naming `source` in diagnostics. Throws ScenarioError.
ConfigNode load_yaml_string(std::string_view text, const std::string& source);
/// Reads and parses the file at `path`. Throws ScenarioError.
ConfigNode load_yaml_file(const std::string& path);

}  // namespace pssim::scenario
