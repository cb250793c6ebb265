// The sub-commands of `pssim`. Each registers itself on the app; its callback sets the
// exit status in the shared state.
#pragma once

#include <CLI/CLI.hpp>

#include "sim/cli/command_line.hpp"

namespace pssim::cli {

/// What the sub-commands share: how the command line was set up, and the exit status
/// the command that ran decided.
struct CommandState {
  const CommandLineSetup& setup;
  int exit_code = 0;
};

void add_run_command(CLI::App& app, CommandState& state);
void add_validate_command(CLI::App& app, CommandState& state);
void add_schema_command(CLI::App& app, CommandState& state);
void add_train_command(CLI::App& app, CommandState& state);
void add_grad_command(CLI::App& app, CommandState& state);
void add_sweep_command(CLI::App& app, CommandState& state);
void add_plot_command(CLI::App& app, CommandState& state);
void add_compare_command(CLI::App& app, CommandState& state);

}  // namespace pssim::cli
