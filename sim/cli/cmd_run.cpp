// pssim run SCENARIO: simulate one scenario and write its results.
#include <filesystem>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/report.hpp"
#include "sim/cli/run_summary.hpp"
#include "sim/cli/scenario_args.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/output/output_directory.hpp"

namespace pssim::cli {

int run_command(const RunArgs& o, const CommandLineSetup& setup) {
  try {
    const scenario::LoadedScenario loaded = load_scenario(o.in);
    const std::filesystem::path dir = o.output_dir.empty() ? std::filesystem::path("results") / loaded.scenario.name
                                                           : std::filesystem::path(o.output_dir);
    output::check_not_an_output(o.in.scenario, dir, experiment::run_output_files());
    ProgressBar bar(!o.quiet);
    experiment::JobOptions job;
    job.threads = o.threads;
    job.external = setup.external;
    job.on_progress = [&bar](const experiment::Experiment& e) {
      const double updates = static_cast<double>(e.protocol().least_updates());
      bar.update(e.progress_fraction(),
                 fmt::format("sim {:.4g} s  {:.3g} updates/s", to_seconds(e.simulator().now()),
                             updates / std::max(bar.elapsed(), 1e-9)));
    };
    const auto result = experiment::run_to_directory(loaded, dir, job);
    bar.finish();
    if (!result.lock_unsupported.empty()) warn_unlocked(result.lock_unsupported);
    if (!o.quiet) fmt::print("{}\n", run_summary_line(loaded.scenario, result, dir));
    // A diverged run is a result (exit 0: a sweep's diverged point is data), but never a
    // silent one: said on standard error, also with -q.
    if (const std::string warning = divergence_warning(loaded.scenario, result); !warning.empty())
      fmt::print(stderr, "{}\n", warning);
    return kSuccess;
  } catch (...) {  // the progress bar, local to the try block, is already erased
    return report_failure(o.in.scenario);
  }
}

}  // namespace pssim::cli
