// Running a sweep: points in parallel, each in its own directory, resumable, shardable.
//
//   <dir>/points/<NNNN>/     the run directory of point NNNN (see run_job.hpp) and its
//                            record: point.csv (the completion marker), scenario.yaml (its
//                            identity), error.txt (see point_record.hpp)
//   <dir>/sweep.csv          one row per point: point, seed, the swept keys, status, error
//                            and the run's headline figures (experiment::figure_names()).
//                            Only simulated quantities: the same sweep gives the same bytes,
//                            however it was split across processes or machines.
//
// Running a sweep again skips the points whose record is current and ok; points that
// changed (any key of their resolved scenario), failed or are missing run again. A failed
// point does not stop the others. sweep.csv is rebuilt from the records every time,
// never carried over: a sweep removes it first, so a killed sweep leaves none that could
// be stale.
//
// One writer per directory (output/directory_lock.hpp): a sweep and a merge lock <dir>
// exclusively; a part of a sweep (a shard K/N: the points whose index is K-1 modulo N; or
// a list of points, e.g. one task of a Python executor) locks it shared (the parts of one
// sweep run at once), runs its points each under its own lock, and does not write
// sweep.csv; a merge builds it from every point's record.
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/experiment/external_math.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace pssim::sweep {

struct Shard {
  unsigned index = 1;  ///< K, 1-based
  unsigned count = 1;  ///< N
};

struct SweepOptions {
  std::filesystem::path output_dir;
  unsigned jobs = 1;               ///< points run at once
  unsigned threads_per_point = 1;  ///< gradient-math threads of each point
  std::optional<Shard> shard;
  /// When not empty, only these points (by index) run, as a part of the sweep (see
  /// above); excludes `shard`.
  std::vector<std::size_t> points;
  /// Called after each point with (points finished in this call, points to run, failures).
  std::function<void(std::size_t, std::size_t, std::size_t)> on_point_done;
  /// Called for each point that failed or could not be recorded, with its error (before
  /// on_point_done for that point). Calls never overlap.
  std::function<void(const SweepPoint&, const std::string&)> on_point_failed;
  /// The network and data of model.kind / data.kind torch (see experiment::JobOptions).
  const experiment::ExternalMath* external = nullptr;
  /// When set, running points stop at their next event and are left unrecorded (they run
  /// again next time), no further point starts, and run_sweep throws
  /// experiment::Interrupted without writing sweep.csv. May be null.
  const std::atomic<bool>* interrupt = nullptr;
};

/// Rows of sweep.csv that are not "ok".
struct TableCounts {
  std::size_t failed = 0;   ///< recorded as failed
  std::size_t missing = 0;  ///< no current record: not run, killed, or run with another definition
};

struct SweepOutcome {
  std::size_t ran = 0, skipped = 0, failed = 0;
  TableCounts table;             ///< of the sweep.csv written (not for a shard)
  std::string lock_unsupported;  ///< why <dir> could not be locked (see DirectoryLock)
};

/// The indices of the points of `spec` (all, or the shard's) that have no current ok
/// record in `dir`: what a sweep into `dir` would run, in order.
std::vector<std::size_t> points_to_run(const SweepSpec& spec, const std::filesystem::path& dir,
                                       const std::optional<Shard>& shard = std::nullopt);

/// Runs the points of `spec` that this process owns and that have no current ok record,
/// then (for a whole sweep, not a part) writes sweep.csv. Throws output::DirectoryInUse when another
/// writer holds the directory, output::OutputError when it cannot be written and
/// experiment::Interrupted (see SweepOptions::interrupt).
SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// Writes <dir>/sweep.csv from the points' records, under the directory's lock (after
/// sharded runs). Throws as run_sweep.
TableCounts merge_sweep(const SweepSpec& spec, const std::filesystem::path& dir);

/// Builds <dir>/sweep.csv from the points' records; points without a current record are
/// listed with status "missing". The caller holds the directory's lock.
TableCounts write_sweep_table(const SweepSpec& spec, const std::filesystem::path& dir);

/// <dir>/points/<NNNN>
std::filesystem::path point_directory(const std::filesystem::path& dir, std::size_t index);

}  // namespace pssim::sweep
