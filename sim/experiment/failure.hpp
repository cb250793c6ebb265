// What went wrong, told the same way everywhere: the one mapping from an exception to a
// message and a class of failure, shared by the pssim command (exit status and stderr,
// sim/cli/exit_codes.hpp) and the Python package (an exception with the same message).
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace pssim::experiment {

struct Failure {
  enum class Kind {
    BadInput,   ///< the inputs are wrong (exit status 2): scenario, override, data, build, range
    RunFailed,  ///< the results could not be produced or written (exit status 1)
  } kind = Kind::RunFailed;
  /// One line per problem: "file:line:col: error: message" for scenario diagnostics
  /// (`diagnostics` true), else one message to print after "pssim: error: ".
  std::string message;
  bool diagnostics = false;
};

/// Describes `error`. `input` (the scenario or sweep file) prefixes messages about the
/// inputs that do not name their file themselves.
Failure describe_failure(std::exception_ptr error, std::string_view input);

}  // namespace pssim::experiment
