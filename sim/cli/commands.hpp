// The sub-commands of `pssim`: what each takes (as parsed by the grammar in
// command_line.cpp, the one file that knows CLI11) and the action that runs it and returns
// its exit status (exit_codes.hpp). Each action lives in its own cmd_<name>.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/cli/command_line.hpp"
#include "sim/cli/scenario_args.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace pssim::cli {

struct RunArgs {
  ScenarioArgs in;
  std::string output_dir;  ///< empty: results/<scenario name>
  unsigned threads = 0;    ///< 0: every core
  bool quiet = false;
};
int run_command(const RunArgs& args, const CommandLineSetup& setup);

struct SweepArgs {
  std::string file;
  std::string output_dir;  ///< empty: results/sweeps/<sweep name>
  unsigned jobs = 0;       ///< 0: every core
  unsigned threads = 1;
  std::optional<sweep::Shard> shard;
  bool merge = false;
  bool quiet = false;
};
int sweep_command(const SweepArgs& args, const CommandLineSetup& setup);

int validate_command(const std::vector<std::string>& files, const CommandLineSetup& setup);

struct PlotArgs {
  std::vector<std::string> paths;
  std::string output_dir;           ///< empty: see the plot command's help
  std::string window;               ///< START:END of the worker timelines, or empty
  std::vector<std::string> labels;  ///< names of the paths in legends, in order
  bool per_point = false;           ///< also each sweep point's own figures
};
int plot_command(const PlotArgs& args);

struct CompareArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  bool per_seed = false;
  std::string baseline;             ///< a row (number or words of its name) for speed-ups, or empty
  std::vector<std::string> labels;  ///< names of the paths, in order
};
int compare_command(const CompareArgs& args);

struct TrainArgs {
  ScenarioArgs in;
  std::string output_dir;  ///< train: empty for results/<name>-baseline; grad: required
  bool quiet = false;
  std::string params_dir;  ///< grad: load the parameters from here (empty: initial ones)
};
int train_command(const TrainArgs& args);
int grad_command(const TrainArgs& args);

int schema_command(bool schemes);

}  // namespace pssim::cli
