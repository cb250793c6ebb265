// pssim plot PATH...: figures from run, baseline and sweep directories, drawn by
// analysis/plot.py with Debian's matplotlib (/usr/bin/python3).
#include <filesystem>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/python_script.hpp"
#include "sim/cli/report.hpp"

namespace pssim::cli {

int plot_command(const PlotArgs& a) {
  const auto& paths = a.paths;
  const auto& output = a.output_dir;
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
  if (!a.window.empty()) args.insert(args.end(), {"--window", a.window});
  for (const auto& label : a.labels) args.insert(args.end(), {"--label", label});
  if (a.per_point) args.push_back("--per-point");
  args.insert(args.end(), paths.begin(), paths.end());
  return run_analysis_script("plot.py", args);  // 0, 2 for a path that is not a result, 1 on failure
}

}  // namespace pssim::cli
