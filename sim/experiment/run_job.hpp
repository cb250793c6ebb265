// One scenario run into a directory: what `pssim run` and every sweep point do.
//
// Builds the experiment, locks the directory (one writer at a time, see
// output/directory_lock.hpp), removes the output files of an earlier run and the
// temporaries of a killed one (summary.json first), writes the resolved scenario, runs the
// experiment while streaming metrics, writes every output and returns the headline
// figures (the row a sweep records for the run).
#pragma once

#include <filesystem>
#include <functional>
#include <stdexcept>
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

/// The figures every run reports, in a fixed order (columns of sweep.csv); with
/// `dynamics` (scenario::has_dynamics), followed by what failures cost.
std::vector<std::string> figure_names(bool dynamics = false);

/// A scenario that passed validation but cannot be built into a simulation (a
/// disconnected topology, more shards than tensors ...): a fault of the inputs.
class BuildError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Builds the scenario's simulation as `run` would, without running it (pssim validate):
/// throws what run_to_directory throws for a scenario that cannot be built (ScenarioError
/// at the key a problem names, BuildError, models::DataError). A scenario of model.kind
/// or data.kind torch is built with `external` (the Python package's math: the module and
/// datasets are made and checked); without it, it is checked up to its keys and false is
/// returned. True when the whole simulation was built.
bool check_buildable(const scenario::LoadedScenario& loaded, const ExternalMath* external = nullptr);

/// The files a run writes into its directory (removed before a run, summary.json first).
const std::vector<std::string>& run_output_files();

struct JobOptions {
  unsigned threads = 1;  ///< threads for gradient math
  /// The caller holds the directory's lock (a sweep point, locked with its marker files);
  /// otherwise run_to_directory takes it.
  bool caller_holds_lock = false;
  /// Called now and then while the simulation runs, with the simulated time reached and
  /// the run's stop conditions (for progress display). May be empty.
  std::function<void(const Experiment&)> on_progress;
  /// The network and data of model.kind / data.kind torch (may be null: then such a
  /// scenario is a BuildError). Must outlive the call.
  const ExternalMath* external = nullptr;
  /// When set (from another thread or a signal handler), the run stops at the next event
  /// and throws Interrupted; the outputs are left incomplete (no summary.json). May be null.
  const std::atomic<bool>* interrupt = nullptr;
  /// Called once the outputs are written, with the finished experiment (e.g. to read its
  /// final parameters). May be empty.
  std::function<void(const Experiment&)> on_finished;
};

struct JobResult {
  RunStats stats;
  std::vector<Figure> figures;  ///< in figure_names() order
  std::string lock_unsupported;  ///< why the directory could not be locked (see DirectoryLock)
};

/// Builds and runs `loaded` into `dir`. Throws BuildError for a scenario that cannot be
/// built, models::DataError for bad data files, output::DirectoryInUse when another
/// writer holds the directory, output::OutputError for other I/O problems, and
/// std::domain_error / std::overflow_error for values beyond the simulator's range found
/// while running.
JobResult run_to_directory(const scenario::LoadedScenario& loaded, const std::filesystem::path& dir,
                           const JobOptions& options);

}  // namespace pssim::experiment
