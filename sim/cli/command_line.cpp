#include "sim/cli/command_line.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"

#ifndef PSSIM_VERSION
#define PSSIM_VERSION "unknown"
#endif

namespace pssim::cli {

int run_command_line(int argc, char** argv, const CommandLineSetup& setup) {
  CLI::App app{"pssim: a discrete-event simulator of parameter-server distributed training.\n"
               "Runs YAML scenarios and writes metrics.csv, summary.json and the resolved scenario.",
               setup.program};
  app.set_version_flag("--version", "pssim " PSSIM_VERSION);
  app.require_subcommand(1);
  app.footer(fmt::format("Run `{} <command> --help` for the options and an example of each command.", setup.program));
  report_interrupts();
  CommandState state{setup, kSuccess};
  add_run_command(app, state);
  add_validate_command(app, state);
  add_sweep_command(app, state);
  add_plot_command(app, state);
  add_compare_command(app, state);
  add_train_command(app, state);
  add_grad_command(app, state);
  add_schema_command(app, state);
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
  return state.exit_code;
}

}  // namespace pssim::cli
