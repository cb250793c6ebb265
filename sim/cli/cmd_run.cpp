// pssim run SCENARIO: simulate one scenario and write its results.
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/report.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/cli/scenario_args.hpp"

namespace pssim::cli {
namespace {

struct RunOptions {
  ScenarioArgs in;
  std::string output_dir;
  unsigned threads = 0;
  bool quiet = false;
};

int run(const RunOptions& o) {
  const auto maybe_loaded = load_or_report(o.in);
  if (!maybe_loaded) return kBadInput;
  const scenario::LoadedScenario& loaded = *maybe_loaded;
  const std::filesystem::path dir =
      o.output_dir.empty() ? std::filesystem::path("results") / loaded.scenario.name : std::filesystem::path(o.output_dir);
  ProgressBar bar(!o.quiet);
  experiment::JobOptions job;
  job.threads = o.threads;
  job.on_progress = [&bar](const experiment::Experiment& e) {
    const double updates = static_cast<double>(e.protocol().totals().updates);
    bar.update(e.progress_fraction(),
               fmt::format("sim {:.4g} s  {:.3g} updates/s", to_seconds(e.simulator().now()),
                           updates / std::max(bar.elapsed(), 1e-9)));
  };
  try {
    const auto result = experiment::run_to_directory(loaded, dir, job);
    bar.finish();
    if (!o.quiet)
      fmt::print("{}: simulated {:.6g} s in {:.3g} s wall ({:.3g} M events/s); results in {}\n", loaded.scenario.name,
                 to_seconds(result.stats.sim_time), result.stats.wall_seconds,
                 static_cast<double>(result.stats.events) / std::max(result.stats.wall_seconds, 1e-9) / 1e6,
                 dir.string());
  } catch (const output::OutputError& e) {
    bar.finish();
    report(e.what());
    return kRunFailed;
  } catch (const std::invalid_argument& e) {
    bar.finish();
    report(fmt::format("{}: cannot build this scenario: {}", o.in.scenario, e.what()));
    return kBadInput;
  }
  return kSuccess;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Simulate a scenario and write its results");
  cmd->footer(
      "Example:\n"
      "  pssim run scenarios/timing/sharded-sync.yaml --set cluster.workers.count=64 --seed 3 -o results/s64\n\n"
      "Writes scenario.yaml (resolved), metrics.csv, rounds.csv, workers.csv, links.csv,\n"
      "link_utilization.csv and, last, summary.json into the output directory.");
  add_scenario_args(cmd, opts->in, "Scenario file (YAML)");
  cmd->add_option("-o,--output", opts->output_dir, "Output directory (default: results/<scenario name>)");
  cmd->add_option("--threads", opts->threads, "Threads for gradient math (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("-q,--quiet", opts->quiet, "Print nothing on success (no progress bar either)");
  cmd->callback([opts, &exit_code] {
    if (opts->threads == 0) opts->threads = std::max(1u, std::thread::hardware_concurrency());
    exit_code = run(*opts);
  });
}

}  // namespace pssim::cli
