// Command-line overrides: `--set path.to.key=value` and `--seed N`.
//
// An override edits the raw tree before validation, so an overridden value is checked
// exactly like one from the file, and errors point at the override itself
// ("<--set cluster.workers.count=x>:1:24: error: ..."). The value is YAML, so
// `--set protocol={mode: ssp, staleness: 2}` and `--set cluster.workers.speed.factors=[1,2]`
// work. Numeric path segments index lists (`network.links.0.bandwidth=1Gbps`). A null
// value (`--set cluster.servers=null`, `'...=~'` or nothing after `=`) removes the key, as if
// the file had not written it; so does a null value swept in a sweep (`~`).
#pragma once

#include <string>
#include <string_view>

#include "sim/scenario/config_node.hpp"

namespace pssim::scenario {

/// Applies one "path=value" override to `root` (a map). Missing intermediate maps are
/// created. Throws ScenarioError for a malformed override or a path through a scalar or
/// past the end of a list.
void apply_override(ConfigNode& root, std::string_view assignment);

/// Sets `value` at the dotted `path` of `root` (what apply_override does once it has
/// parsed the value); a null `value` removes the key instead (nothing to do when it is
/// absent). `where` is the position of the path's first character; errors about a segment
/// point at that segment.
void set_at_path(ConfigNode& root, std::string_view path, ConfigNode value, const SourceLocation& where);

}  // namespace pssim::scenario
