// Exit statuses of the pssim command.
#pragma once

namespace pssim::cli {

enum ExitCode : int {
  kSuccess = 0,
  kRunFailed = 1,   ///< the input was valid but the run could not complete (I/O, simulation error)
  kBadInput = 2,    ///< invalid scenario, override or command line
};

}  // namespace pssim::cli
