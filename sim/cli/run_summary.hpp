// The one line `pssim run` prints when a run ends: how it stopped and why (diverged,
// target reached, limits), the quality reached, and where the results are.
#pragma once

#include <filesystem>
#include <string>

#include "sim/experiment/run_job.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::cli {

/// "NAME: stopped at the time limit, 30 s simulated (4.1 s wall), 2,843 updates; test
/// accuracy 77.4 % (best 77.5 %), target 80 % not reached; results in DIR". A diverged run
/// starts "NAME: DIVERGED at update N (training loss NaN or infinite) ...".
std::string run_summary_line(const scenario::Scenario& scenario, const experiment::JobResult& result,
                             const std::filesystem::path& dir);

/// For standard error (printed also with -q): what to do about a diverged run; empty
/// when the run did not diverge.
std::string divergence_warning(const scenario::Scenario& scenario, const experiment::JobResult& result);

}  // namespace pssim::cli
