// Printing errors for the user (stderr), one per line.
#pragma once

#include <string_view>

#include "sim/scenario/scenario_error.hpp"

namespace pssim::cli {

/// Prints every diagnostic as "file:line:col: error: message".
void report(const scenario::ScenarioError& error);
/// Prints "pssim: error: <message>".
void report(std::string_view message);
/// Prints "pssim: warning: <reason>; ..." for an output directory that could not be
/// locked (see output::DirectoryLock::unsupported()).
void warn_unlocked(std::string_view reason);

}  // namespace pssim::cli
