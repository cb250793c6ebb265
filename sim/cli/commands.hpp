// The sub-commands of `pssim`. Each registers itself on the app and returns, through the
// shared `exit_code`, the status its callback decided.
#pragma once

#include <CLI/CLI.hpp>

namespace pssim::cli {

void add_run_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_schema_command(CLI::App& app, int& exit_code);
void add_train_command(CLI::App& app, int& exit_code);
void add_grad_command(CLI::App& app, int& exit_code);
void add_sweep_command(CLI::App& app, int& exit_code);
void add_plot_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);

}  // namespace pssim::cli
