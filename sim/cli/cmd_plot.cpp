// pssim plot PATH...: figures from run, baseline and sweep directories, drawn by
// analysis/plot.py with Debian's matplotlib (/usr/bin/python3).
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/output_option.hpp"
#include "sim/cli/report.hpp"

extern char** environ;

namespace pssim::cli {
namespace {

// The analysis scripts: $PSSIM_ANALYSIS_DIR, else the source tree this binary was built from.
std::filesystem::path analysis_dir() {
  if (const char* dir = std::getenv("PSSIM_ANALYSIS_DIR")) return dir;
  return std::filesystem::path(PSSIM_SOURCE_DIR) / "analysis";
}

int plot(const std::vector<std::string>& paths, const std::string& output) {
  const std::filesystem::path python = "/usr/bin/python3";
  const std::filesystem::path script = analysis_dir() / "plot.py";
  if (!std::filesystem::exists(python)) {
    report("pssim plot needs /usr/bin/python3 with matplotlib and pandas: run scripts/install-deps.sh");
    return kRunFailed;
  }
  if (!std::filesystem::exists(script)) {
    report(fmt::format("no {}: set PSSIM_ANALYSIS_DIR to the analysis/ folder of the pssim sources", script.string()));
    return kRunFailed;
  }
  // A file where the figures' directory should be is the likeliest mistake: one clear line
  // here (plot.py reports any other failure in one line too).
  const std::filesystem::path out =
      output.empty() ? std::filesystem::path(paths.front()) / "plots" : std::filesystem::path(output);
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !std::filesystem::is_directory(out, ec)) {
    report(fmt::format("output directory {} exists and is not a directory", out.string()));
    return kRunFailed;
  }
  std::vector<std::string> args = {python.string(), script.string()};
  if (!output.empty()) args.insert(args.end(), {"-o", output});
  args.insert(args.end(), paths.begin(), paths.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    report("cannot start /usr/bin/python3");
    return kRunFailed;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return kRunFailed;
  return WEXITSTATUS(status);  // plot.py: 0, 2 for a path that is not a result, 1 on failure
}

}  // namespace

void add_plot_command(CLI::App& app, int& exit_code) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("plot", "Draw figures (PNG and SVG) from run, baseline and sweep directories");
  cmd->footer(
      "Example:\n  pssim plot results/sync results/async results/sharded -o figures\n\n"
      "Accuracy and loss against simulated time and bytes sent, link utilization, staleness,\n"
      "worker timelines (runs with output.trace), round time against shards and time to target\n"
      "against workers (sweeps). Default output: <first path>/plots.");
  cmd->add_option("paths", *paths, "Result directories")->required()->check(CLI::ExistingDirectory);
  add_output_option(cmd, *output, "Directory for the figures (default: <first path>/plots)");
  cmd->callback([paths, output, &exit_code] { exit_code = plot(*paths, *output); });
}

}  // namespace pssim::cli
