// Validation of a ConfigNode tree against a Schema, and typed reads of the result.
//
// validate() checks every key and value, collecting all problems before it throws, and
// returns the *resolved* tree: keys in schema order, defaults filled in (their location
// names "default"), variant discriminators made explicit. Problems it reports, each at
// the file:line:col of the offending key or value:
//   unknown keys (with "did you mean"), keys of another variant alternative, wrong types,
//   missing required keys, values out of range, unknown enum words, bad units.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/core/time.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema.hpp"

namespace pssim::scenario {

/// Validates `input` against `schema` (a map). Throws ScenarioError listing every problem.
ConfigNode validate(const ConfigNode& input, const Schema& schema);

/// True for names usable as directory names: letters, digits, '.', '_', '-', at most
/// 100 characters, not "." or "..".
bool is_valid_name(const std::string& s);

/// Numeric value of a valid scalar of `type`, in base units (seconds, bytes, bytes/s,
/// FLOP, FLOP/s). Throws UnitError for text that does not parse.
double scalar_value(std::string_view text, ValueType type);

// Typed reads of a validated scalar node. They re-parse the text with the same parsers
// the validator used, and report any failure at the node's location (ScenarioError).
std::int64_t as_count(const ConfigNode& node);
double as_real(const ConfigNode& node);   ///< Real or Ratio
bool as_bool(const ConfigNode& node);
TimeNs as_duration(const ConfigNode& node);
double as_seconds(const ConfigNode& node);  ///< FineDuration
double as_bandwidth(const ConfigNode& node);  ///< bytes per second
double as_bytes(const ConfigNode& node);
double as_flops(const ConfigNode& node);
double as_flop_rate(const ConfigNode& node);  ///< FLOP per second
const std::string& as_text(const ConfigNode& node);  ///< String, Name, Enum, Path

}  // namespace pssim::scenario
