// The scenario reference page, generated from the schema (docs/scenario-reference.md is
// this function's output; a test keeps the committed page current).
#pragma once

#include <string>

#include "sim/scenario/schema.hpp"

namespace pssim::scenario {

/// Markdown reference of every key: type and unit, default, range, and documentation,
/// one section per mapping and per variant alternative.
std::string schema_markdown(const Schema& root, const std::string& title, const std::string& intro);

}  // namespace pssim::scenario
