// pssim: discrete-event simulator of parameter-server training (command-line entry).
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"

#ifndef PSSIM_VERSION
#define PSSIM_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  using namespace pssim::cli;
  CLI::App app{"pssim: a discrete-event simulator of parameter-server distributed training.\n"
               "Runs YAML scenarios and writes metrics.csv, summary.json and the resolved scenario."};
  app.set_version_flag("--version", "pssim " PSSIM_VERSION);
  app.require_subcommand(1);
  app.footer("Run `pssim <command> --help` for the options and an example of each command.");
  report_interrupts();
  int exit_code = kSuccess;
  add_run_command(app, exit_code);
  add_validate_command(app, exit_code);
  add_sweep_command(app, exit_code);
  add_plot_command(app, exit_code);
  add_compare_command(app, exit_code);
  add_train_command(app, exit_code);
  add_grad_command(app, exit_code);
  add_schema_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  } catch (...) {  // the commands report their own failures; this is the net under them
    return report_failure("");
  }
  return exit_code;
}
