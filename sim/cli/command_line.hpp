// The pssim command line as a library: the `pssim` executable (main.cpp) and the Python
// package's `python3 -m pssim` (sim/python/module.cpp) run these same commands, with the
// same options, output lines, messages and exit statuses (exit_codes.hpp).
#pragma once

#include <string>

namespace pssim::experiment {
class ExternalMath;
}

namespace pssim::cli {

struct CommandLineSetup {
  /// How the program is invoked, shown in --help: "pssim" or "python3 -m pssim".
  std::string program = "pssim";
  /// The math of model.kind torch and data.kind torch (the Python package provides it);
  /// null in the pssim executable, which then refuses such scenarios and names the
  /// command that runs them.
  const experiment::ExternalMath* external = nullptr;
};

/// Parses `argv` (argv[0] is the program) and runs the command it names; returns the exit
/// status. Installs the handlers that report SIGINT, SIGTERM and SIGHUP and end the
/// process by the same signal (exit_codes.hpp): call it once per process, from its main
/// thread.
int run_command_line(int argc, char** argv, const CommandLineSetup& setup);

}  // namespace pssim::cli
