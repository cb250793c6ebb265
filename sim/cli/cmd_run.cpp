// pssim run SCENARIO: simulate one scenario and write its results.
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/report.hpp"
#include "sim/experiment/experiment.hpp"
#include "sim/experiment/run_outputs.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace pssim::cli {
namespace {

struct RunOptions {
  std::string scenario;
  std::string output_dir;
  std::vector<std::string> overrides;
  std::optional<std::uint64_t> seed;
  unsigned threads = 0;
  bool quiet = false;
};

// Files of an earlier run in the same directory would mix with this one's; summary.json
// goes first, so that a run killed half-way never leaves a summary that looks complete.
void remove_previous_outputs(const std::filesystem::path& dir) {
  for (const char* name : {"summary.json", "metrics.csv", "rounds.csv", "workers.csv", "links.csv",
                           "link_utilization.csv", "scenario.yaml"}) {
    std::error_code ignored;
    std::filesystem::remove(dir / name, ignored);
  }
}

int run(const RunOptions& o) {
  scenario::Overrides overrides{o.overrides, o.seed};
  scenario::LoadedScenario loaded;
  try {
    loaded = scenario::load_scenario_file(o.scenario, overrides);
  } catch (const scenario::ScenarioError& e) {
    report(e);
    return kBadInput;
  }
  const std::filesystem::path dir =
      o.output_dir.empty() ? std::filesystem::path("results") / loaded.scenario.name : std::filesystem::path(o.output_dir);
  std::unique_ptr<experiment::Experiment> exp;
  try {
    exp = std::make_unique<experiment::Experiment>(loaded.scenario);
  } catch (const std::exception& e) {
    report(fmt::format("{}: cannot build this scenario: {}", o.scenario, e.what()));
    return kBadInput;
  }
  try {
    output::prepare_output_directory(dir);
    remove_previous_outputs(dir);
    output::write_file_atomically(dir / "scenario.yaml", scenario::resolved_yaml(loaded));
    const bool rounds = loaded.scenario.protocol.mode != scenario::ProtocolConfig::Mode::Async;
    experiment::MetricsRecorder recorder(dir, rounds);
    const experiment::RunStats stats = exp->run(&recorder);
    recorder.commit();
    experiment::write_run_outputs(dir, *exp, stats, recorder);
    if (!o.quiet)
      fmt::print("{}: simulated {:.6g} s in {:.3g} s wall ({:.3g} M events/s, {} flows); results in {}\n",
                 loaded.scenario.name, to_seconds(stats.sim_time), stats.wall_seconds,
                 static_cast<double>(stats.events) / std::max(stats.wall_seconds, 1e-9) / 1e6, exp->network().flows(),
                 dir.string());
  } catch (const output::OutputError& e) {
    report(e.what());
    return kRunFailed;
  }
  return kSuccess;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Simulate a scenario and write its results");
  cmd->footer(
      "Example:\n"
      "  pssim run scenarios/sync-sharded.yaml --set cluster.workers.count=64 --seed 3 -o results/s64\n\n"
      "Writes scenario.yaml (resolved), metrics.csv, rounds.csv, workers.csv, links.csv,\n"
      "link_utilization.csv and, last, summary.json into the output directory.");
  cmd->add_option("scenario", opts->scenario, "Scenario file (YAML)")->required();
  cmd->add_option("-o,--output", opts->output_dir, "Output directory (default: results/<scenario name>)");
  cmd->add_option("--set", opts->overrides, "Override a key: path.to.key=value (repeatable)");
  cmd->add_option("--seed", opts->seed, "Override the scenario's seed");
  cmd->add_option("--threads", opts->threads, "Threads for gradient math (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("-q,--quiet", opts->quiet, "Print nothing on success");
  cmd->callback([opts, &exit_code] {
    if (opts->threads == 0) opts->threads = std::max(1u, std::thread::hardware_concurrency());
    exit_code = run(*opts);
  });
}

}  // namespace pssim::cli
