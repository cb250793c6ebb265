// Running a sweep: points in parallel, each in its own directory, resumable, shardable.
//
//   <dir>/points/<NNNN>/     the run directory of point NNNN (see run_job.hpp), plus
//     point.csv              the point's row of sweep.csv: written last, atomically, so its
//                            presence with status "ok" marks the point complete
//     error.txt              why a failed point failed
//   <dir>/sweep.csv          one row per point: point, seed, the swept keys, status, error
//                            and the run's headline figures (experiment::figure_names()).
//                            Only simulated quantities: the same sweep gives the same bytes,
//                            however it was split across processes or machines.
//
// Running a sweep again skips points already complete with the same definition; failed
// points are run again. A failed point does not stop the others. With a shard K/N, a
// process runs the points whose index is K-1 modulo N and does not write sweep.csv; a
// merge (write_sweep_table) builds it from every point's point.csv.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>

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
  /// Called after each point with (points finished in this call, points to run, failures).
  std::function<void(std::size_t, std::size_t, std::size_t)> on_point_done;
};

struct SweepOutcome {
  std::size_t ran = 0, skipped = 0, failed = 0;
};

/// Runs the points of `spec` that this process owns and has not completed.
SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// Builds <dir>/sweep.csv from the points' point.csv files; points without one are listed
/// with status "missing". Returns the number of missing points.
std::size_t write_sweep_table(const SweepSpec& spec, const std::filesystem::path& dir);

/// <dir>/points/<NNNN>
std::filesystem::path point_directory(const std::filesystem::path& dir, std::size_t index);

}  // namespace pssim::sweep
