// pssim compare PATH...: a table of runs and sweep points (analysis/compare.py).
#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/python_script.hpp"

namespace pssim::cli {

void add_compare_command(CLI::App& app, CommandState& state) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto format = std::make_shared<std::string>("text");
  auto per_seed = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("compare", "Print a table comparing runs and sweep points (text, Markdown or CSV)");
  cmd->footer(
      "Example:\n  pssim compare results/sweeps/compression --format markdown\n"
      "  pssim compare results/sync results/async --format csv > table.csv\n\n"
      "Columns: time to target, final and best test accuracy (or perplexity), samples per simulated\n"
      "second, GB sent, mean staleness, bottleneck link, stopped by (diverged runs and targets not\n"
      "reached are said so). Runs that differ only by seed are one row: mean (min-max).");
  cmd->add_option("paths", *paths, "Run or sweep directories")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--format", *format, "text (default), markdown or csv")
      ->check(CLI::IsMember({"text", "markdown", "csv"}));
  cmd->add_flag("--per-seed", *per_seed, "One row per run: seeds not averaged (text and markdown)");
  cmd->callback([paths, format, per_seed, &state] {
    std::vector<std::string> args = {"--format", *format};
    if (*per_seed) args.push_back("--per-seed");
    args.insert(args.end(), paths->begin(), paths->end());
    state.exit_code = run_analysis_script("compare.py", args);
  });
}

}  // namespace pssim::cli
