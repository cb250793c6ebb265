// pssim run SCENARIO: simulate one scenario and write its results.
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/output_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/report.hpp"
#include "sim/cli/run_summary.hpp"
#include "sim/cli/scenario_args.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/output/output_directory.hpp"

namespace pssim::cli {
namespace {

struct RunOptions {
  ScenarioArgs in;
  std::string output_dir;
  unsigned threads = 0;
  bool quiet = false;
};

int run(const RunOptions& o, const CommandLineSetup& setup) {
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

}  // namespace

void add_run_command(CLI::App& app, CommandState& state) {
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Simulate a scenario and write its results");
  cmd->footer(
      "Example:\n"
      "  pssim run scenarios/timing/sharded-sync.yaml --set cluster.workers.count=64 --seed 3 -o results/s64\n\n"
      "Writes scenario.yaml (resolved), metrics.csv, rounds.csv, workers.csv, links.csv,\n"
      "link_utilization.csv and, last, summary.json into the output directory, then prints one\n"
      "line: how the run stopped (time, update or epoch limit, target reached, DIVERGED), the\n"
      "accuracy or perplexity reached and where the results are. A diverged run exits 0 (it is a\n"
      "result) and is also reported on standard error, with -q too.");
  add_scenario_args(cmd, opts->in, "Scenario file (YAML)");
  add_output_option(cmd, opts->output_dir, "Output directory (default: results/<scenario name>)");
  cmd->add_option("--threads", opts->threads, "Threads for gradient math (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("-q,--quiet", opts->quiet, "Print nothing on success (no progress bar either)");
  cmd->callback([opts, &state] {
    if (opts->threads == 0) opts->threads = std::max(1u, std::thread::hardware_concurrency());
    state.exit_code = run(*opts, state.setup);
  });
}

}  // namespace pssim::cli
