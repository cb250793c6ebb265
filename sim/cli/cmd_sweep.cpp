// pssim sweep SWEEP.yaml: many runs of one base scenario, in parallel, resumable, and
// shardable across processes or machines.
#include <filesystem>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/report.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace pssim::cli {
namespace {

// Failed and missing rows of sweep.csv, on stderr (also under -q): the sweep did not
// produce every result.
bool report_table(const std::string& name, const sweep::TableCounts& t, const std::filesystem::path& table) {
  if (t.failed == 0 && t.missing == 0) return true;
  report(fmt::format("sweep {}: {} failed and {} missing point(s) in {}", name, t.failed, t.missing, table.string()));
  return false;
}

int merge(const sweep::SweepSpec& spec, const std::filesystem::path& dir, bool quiet) {
  const sweep::TableCounts t = sweep::merge_sweep(spec, dir);
  if (!quiet)
    fmt::print("{}: {} points, {} missing, {} failed; {}\n", spec.name, spec.points.size(), t.missing, t.failed,
               (dir / "sweep.csv").string());
  return report_table(spec.name, t, dir / "sweep.csv") ? kSuccess : kRunFailed;
}

}  // namespace

int sweep_command(const SweepArgs& o, const CommandLineSetup& setup) {
  try {
    const sweep::SweepSpec spec = sweep::load_sweep(o.file);
    sweep::SweepOptions options;
    options.output_dir =
        o.output_dir.empty() ? std::filesystem::path("results") / "sweeps" / spec.name : std::filesystem::path(o.output_dir);
    if (o.merge) return merge(spec, options.output_dir, o.quiet);
    options.jobs = o.jobs;
    options.threads_per_point = o.threads;
    options.shard = o.shard;
    options.external = setup.external;
    ProgressBar bar(!o.quiet);
    options.on_point_failed = [&](const sweep::SweepPoint& p, const std::string& error) {
      bar.finish();  // the message gets a line of its own; the bar is redrawn below it
      report(fmt::format("sweep {}: point {} failed: {}", spec.name, p.index, error));
    };
    options.on_point_done = [&bar](std::size_t done, std::size_t total, std::size_t failed) {
      bar.update(static_cast<double>(done) / static_cast<double>(total),
                 fmt::format("{}/{} points  {} failed", done, total, failed));
    };
    const auto outcome = sweep::run_sweep(spec, options);
    bar.finish();
    if (!outcome.lock_unsupported.empty()) warn_unlocked(outcome.lock_unsupported);
    const std::filesystem::path table = options.output_dir / "sweep.csv";
    if (!o.quiet) {
      fmt::print("{}: {} points run, {} already complete, {} failed", spec.name, outcome.ran, outcome.skipped,
                 outcome.failed);
      if (options.shard)
        fmt::print(" (shard {}/{}; merge with --merge)\n", options.shard->index, options.shard->count);
      else
        fmt::print("; {}\n", table.string());
    }
    const bool complete = options.shard ? outcome.failed == 0 : report_table(spec.name, outcome.table, table);
    return complete && outcome.failed == 0 ? kSuccess : kRunFailed;
  } catch (...) {
    return report_failure(o.file);
  }
}

}  // namespace pssim::cli
