// Where a file named in a scenario is: a relative path is relative to the file that wrote
// it, so a scenario and the files beside it run from any working directory.
//
//   written in a file (a scenario, a sweep's values, a resolved scenario.yaml):
//     beside that file if it exists there; else, if it exists from the working directory
//     (how paths were read before, e.g. `scenarios/torch/small_cnn.py` from the repository
//     root), that one; else beside the file (so the error names where it was expected)
//   given elsewhere (`--set`, a Python dict or string): from the working directory
//
// The result is absolute and lexically normal (no `.` or `..`), as the resolved scenario
// records it, so a results directory's scenario.yaml re-runs from anywhere on this machine.
#pragma once

#include <string>

#include "sim/scenario/scenario_error.hpp"

namespace pssim::scenario {

/// The file `written` (a path, absolute or relative) names when `where` wrote it.
std::string resolve_scenario_path(const std::string& written, const SourceLocation& where);

/// A module reference "path/to/file.py:function" with its file resolved as above; a text
/// without a ':' that separates a function name is returned unchanged.
std::string resolve_module_reference(const std::string& reference, const SourceLocation& where);

}  // namespace pssim::scenario
