// pssim plot PATH...: figures from run, baseline and sweep directories, drawn by
// analysis/plot.py with Debian's matplotlib (/usr/bin/python3).
#include <filesystem>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/output_option.hpp"
#include "sim/cli/python_script.hpp"
#include "sim/cli/report.hpp"

namespace pssim::cli {
namespace {

int plot(const std::vector<std::string>& paths, const std::string& output, const std::string& window) {
  // A file where the figures' directory should be is the likeliest mistake: one clear line
  // here (plot.py reports any other failure in one line too).
  const std::filesystem::path out =
      output.empty() ? std::filesystem::path(paths.front()) / "plots" : std::filesystem::path(output);
  std::error_code ec;
  if ((!output.empty() || paths.size() == 1) && std::filesystem::exists(out, ec) &&
      !std::filesystem::is_directory(out, ec)) {
    report(fmt::format("output directory {} exists and is not a directory", out.string()));
    return kRunFailed;
  }
  std::vector<std::string> args;
  if (!output.empty()) args.insert(args.end(), {"-o", output});
  if (!window.empty()) args.insert(args.end(), {"--window", window});
  args.insert(args.end(), paths.begin(), paths.end());
  return run_analysis_script("plot.py", args);  // 0, 2 for a path that is not a result, 1 on failure
}

}  // namespace

void add_plot_command(CLI::App& app, CommandState& state) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto window = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("plot", "Draw figures (PNG and SVG) from run, baseline and sweep directories");
  cmd->footer(
      "Example:\n  pssim plot results/sync results/async results/sharded\n"
      "  pssim plot results/stragglers --window 2:2.5\n\n"
      "Accuracy and loss against simulated time and bytes sent (diverged runs marked with a cross,\n"
      "the target dashed), link utilization by link class, staleness, worker timelines (runs with\n"
      "output.trace), round time against shards and time to target against workers (sweeps).\n"
      "Output: one PATH: PATH/plots. Several: the figures that compare them in\n"
      "<parent of the first>/plots-<a>-vs-<b>..., each run's own figures in its own plots/ folder.\n"
      "With -o OUT: all in OUT (each input's own figures in OUT/<its name>/).");
  cmd->add_option("paths", *paths, "Result directories")->required()->check(CLI::ExistingDirectory);
  add_output_option(cmd, *output, "Directory for the figures (default: see below)");
  cmd->add_option("--window", *window,
                  "Worker timelines: START:END in simulated seconds, either may be empty (default: the first "
                  "rounds)");
  cmd->callback([paths, output, window, &state] { state.exit_code = plot(*paths, *output, *window); });
}

}  // namespace pssim::cli
