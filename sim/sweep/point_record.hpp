// The record of a sweep point in its directory, and how a point is known to be complete.
//
//   <dir>/points/<NNNN>/point.csv     the point's row of sweep.csv (header + one row),
//                                     written last and atomically: the completion marker
//   <dir>/points/<NNNN>/scenario.yaml the point's resolved scenario: its identity
//   <dir>/points/<NNNN>/error.txt     why a failed point failed
//
// A point's identity is its whole resolved scenario (every key with the value used, and
// the fingerprints of the files it reads, as scenario::resolved_yaml writes it), kept
// next to its results. A record is current only when its marker names the point's index,
// seed and swept values and the stored scenario equals the point's, byte for byte: any
// change to the base scenario, to `set:`, to the swept values or to a file they read (or
// a pssim whose defaults differ) makes the point run again, and a sweep.csv built from
// the records never shows another definition's results.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/experiment/run_job.hpp"
#include "sim/output/csv_writer.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace pssim::sweep {

/// Columns of point.csv and sweep.csv: point, seed, the swept keys, status, error and the
/// run's headline figures (experiment::figure_names(), with the dynamics figures when a
/// point plays a timeline: has_dynamics).
std::vector<std::string> record_columns(const SweepSpec& spec);
/// Some point of the sweep has events or Markov stragglers (scenario::has_dynamics).
bool has_dynamics(const SweepSpec& spec);

/// Index of the status column.
inline std::size_t status_column(const SweepSpec& spec) { return 2 + spec.axes.size(); }

/// Appends p's row with `status` ("ok", "failed", "missing"), `error` and `figures`
/// (fewer than the figure columns: the rest are empty); `dynamics`: has_dynamics(spec).
void write_record_row(output::CsvWriter& csv, const SweepPoint& p, const std::string& status,
                      const std::string& error, const std::vector<experiment::Figure>& figures, bool dynamics);

/// The cells of p's record in `point_dir` when it is current (see above), else nullopt.
std::optional<std::vector<std::string>> current_record(const SweepSpec& spec, const SweepPoint& p,
                                                       const std::filesystem::path& point_dir);

}  // namespace pssim::sweep
