// One scenario run into a directory: what `pssim run` and every sweep point do.
//
// Removes the known output files of an earlier run in the directory (summary.json first),
// writes the resolved scenario, runs the experiment while streaming metrics, writes every
// output and returns the headline figures (the row a sweep records for the run).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sim/experiment/experiment.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace pssim::experiment {

/// A headline figure: name and value as text (empty when it does not apply).
struct Figure {
  std::string name;
  std::string value;
};

/// The figures every run reports, in a fixed order (columns of sweep.csv).
std::vector<std::string> figure_names();

struct JobOptions {
  unsigned threads = 1;  ///< threads for gradient math
  /// Called now and then while the simulation runs, with the simulated time reached and
  /// the run's stop conditions (for progress display). May be empty.
  std::function<void(const Experiment&)> on_progress;
};

struct JobResult {
  RunStats stats;
  std::vector<Figure> figures;  ///< in figure_names() order
};

/// Builds and runs `loaded` into `dir`. Throws output::OutputError for I/O problems and
/// std::exception for a scenario that cannot be built.
JobResult run_to_directory(const scenario::LoadedScenario& loaded, const std::filesystem::path& dir,
                           const JobOptions& options);

}  // namespace pssim::experiment
