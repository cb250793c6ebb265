// Exit statuses of the pssim command, and the one mapping from failures to them (the
// table in docs/commands.md lists the same; tests/cli checks every row).
//
//   0        success
//   1        the results could not be produced or written: an output directory that
//            cannot be created or written, or that another pssim is writing (its lock);
//            a failed sweep point; a sweep or merge whose sweep.csv has failed or missing
//            rows; out of memory; an error of pssim itself
//   2        the inputs are wrong: the command line, a scenario or sweep file, a --set or
//            --seed override, a data file (missing, unreadable, damaged, or not fitting
//            its pair), a scenario that cannot be built (e.g. a disconnected topology) or
//            whose values are beyond the simulator's range (e.g. a compute time over 292
//            years), an input that the command would overwrite
//   128+N    killed by signal N, as shells report it: 130 for Ctrl-C (SIGINT), 143 for
//            SIGTERM, 137 for SIGKILL. pssim says so on stderr (not for SIGKILL) and then
//            ends by the signal itself; completed files and sweep points are kept, and
//            the next run into the directory replaces the partial ones.
#pragma once

#include <string_view>

namespace pssim::cli {

enum ExitCode : int {
  kSuccess = 0,
  kRunFailed = 1,  ///< the inputs were valid but the results could not be produced or written
  kBadInput = 2,   ///< invalid command line, scenario, override, data file or scenario values
};

/// Reports the exception being handled (call it inside a catch block) on stderr and
/// returns its exit status, by the table above. `input` (the scenario or sweep file)
/// prefixes messages about the inputs that do not name their file themselves.
int report_failure(std::string_view input);

/// Makes SIGINT, SIGTERM and SIGHUP print why pssim stops, then end the process by the
/// same signal (so that the shell sees 128+N and a script's loop stops too).
void report_interrupts();

}  // namespace pssim::cli
