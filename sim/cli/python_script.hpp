// Running the analysis scripts (analysis/*.py) with Debian's /usr/bin/python3, which sees
// Debian's matplotlib, pandas and yaml (a `python3` on PATH may not).
#pragma once

#include <string>
#include <vector>

namespace pssim::cli {

/// Runs analysis/<script> with `args` (found in $PSSIM_ANALYSIS_DIR, else the source tree
/// this binary was built from) and returns its exit status; reports a missing python or
/// script on stderr and returns kRunFailed. The script's environment has PSSIM_SCHEMES,
/// the scheme registry as `pssim schema --schemes` prints it.
int run_analysis_script(const std::string& script, const std::vector<std::string>& args);

}  // namespace pssim::cli
