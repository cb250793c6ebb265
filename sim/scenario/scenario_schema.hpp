// The schema of pssim scenario files: every key, its type and unit, default and meaning.
#pragma once

#include <string>

#include "sim/scenario/schema.hpp"

namespace pssim::scenario {

/// The root schema (a map). Built once; safe to share between threads.
const Schema& scenario_schema();

/// The scenario reference page (docs/scenario-reference.md), generated from the schema.
std::string scenario_reference_markdown();

}  // namespace pssim::scenario
