// pssim sweep SWEEP.yaml: many runs of one base scenario, in parallel, resumable, and
// shardable across processes or machines.
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/report.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace pssim::cli {
namespace {

struct SweepCliOptions {
  std::string file;
  std::string output_dir;
  unsigned jobs = 0;
  unsigned threads = 1;
  std::string shard;
  bool merge = false;
  bool quiet = false;
};

// "K/N" with 1 <= K <= N.
std::optional<sweep::Shard> parse_shard(const std::string& text) {
  unsigned k = 0, n = 0;
  char slash = 0, rest = 0;
  if (std::sscanf(text.c_str(), "%u%c%u%c", &k, &slash, &n, &rest) != 3 || slash != '/' || k < 1 || k > n)
    return std::nullopt;
  return sweep::Shard{k, n};
}

int run_sweep_command(const SweepCliOptions& o) {
  sweep::SweepSpec spec;
  try {
    spec = sweep::load_sweep(o.file);
  } catch (const scenario::ScenarioError& e) {
    report(e);
    return kBadInput;
  }
  sweep::SweepOptions options;
  options.output_dir = o.output_dir.empty() ? std::filesystem::path("sweeps") / spec.name : std::filesystem::path(o.output_dir);
  options.jobs = o.jobs == 0 ? std::max(1u, std::thread::hardware_concurrency()) : o.jobs;
  options.threads_per_point = o.threads;
  if (!o.shard.empty()) {
    options.shard = parse_shard(o.shard);
    if (!options.shard) {
      report(fmt::format("--shard {}: write K/N with 1 <= K <= N (e.g. --shard 2/3)", o.shard));
      return kBadInput;
    }
  }
  try {
    if (o.merge) {
      const std::size_t missing = sweep::write_sweep_table(spec, options.output_dir);
      if (!o.quiet)
        fmt::print("{}: {} points, {} missing; {}\n", spec.name, spec.points.size(), missing,
                   (options.output_dir / "sweep.csv").string());
      return missing == 0 ? kSuccess : kRunFailed;
    }
    ProgressBar bar(!o.quiet);
    options.on_point_done = [&bar](std::size_t done, std::size_t total, std::size_t failed) {
      bar.update(static_cast<double>(done) / static_cast<double>(total),
                 fmt::format("{}/{} points  {} failed", done, total, failed));
    };
    const auto outcome = sweep::run_sweep(spec, options);
    bar.finish();
    if (!options.shard) sweep::write_sweep_table(spec, options.output_dir);
    if (!o.quiet) {
      fmt::print("{}: {} points run, {} already complete, {} failed", spec.name, outcome.ran, outcome.skipped,
                 outcome.failed);
      if (options.shard)
        fmt::print(" (shard {}/{}; merge with --merge)\n", options.shard->index, options.shard->count);
      else
        fmt::print("; {}\n", (options.output_dir / "sweep.csv").string());
    }
    return outcome.failed == 0 ? kSuccess : kRunFailed;
  } catch (const output::OutputError& e) {
    report(e.what());
    return kRunFailed;
  }
}

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SweepCliOptions>();
  auto* cmd = app.add_subcommand("sweep", "Run a base scenario over a grid of overrides and seeds");
  cmd->footer(
      "Example:\n"
      "  pssim sweep scenarios/sweeps/shards.yaml -j 2\n"
      "  # on a cluster: each job runs a slice, then one merge builds sweep.csv\n"
      "  pssim sweep S.yaml --shard 2/8 -o /shared/S  ...  pssim sweep S.yaml --merge -o /shared/S\n\n"
      "Each point runs in <dir>/points/NNNN; completed points are skipped when the sweep runs\n"
      "again; failed points are recorded and run again next time. Exit status 1 if a point failed.");
  cmd->add_option("sweep", o->file, "Sweep file (YAML)")->required();
  cmd->add_option("-o,--output", o->output_dir, "Output directory (default: sweeps/<sweep name>)");
  cmd->add_option("-j,--jobs", o->jobs, "Points run at once (default: all cores)");
  cmd->add_option("--threads", o->threads, "Gradient-math threads per point (default 1)")->check(CLI::Range(1u, 1024u));
  cmd->add_option("--shard", o->shard, "Run only slice K of N of the points (K/N)");
  cmd->add_flag("--merge", o->merge, "Build sweep.csv from the points' results (after sharded runs)");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing on success");
  cmd->callback([o, &exit_code] { exit_code = run_sweep_command(*o); });
}

}  // namespace pssim::cli
