#include "sim/cli/python_script.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "sim/cli/exit_codes.hpp"
#include "sim/cli/report.hpp"
#include "sim/schemes/registry.hpp"

extern char** environ;

namespace pssim::cli {
namespace {

std::filesystem::path analysis_dir() {
  if (const char* dir = std::getenv("PSSIM_ANALYSIS_DIR")) return dir;
  return std::filesystem::path(PSSIM_SOURCE_DIR) / "analysis";
}

}  // namespace

int run_analysis_script(const std::string& name, const std::vector<std::string>& args) {
  const std::filesystem::path python = "/usr/bin/python3";
  const std::filesystem::path script = analysis_dir() / name;
  if (!std::filesystem::exists(python)) {
    report(fmt::format("{} needs /usr/bin/python3 with matplotlib, pandas and yaml: run scripts/install-deps.sh", name));
    return kRunFailed;
  }
  if (!std::filesystem::exists(script)) {
    report(fmt::format("no {}: set PSSIM_ANALYSIS_DIR to the analysis/ folder of the pssim sources", script.string()));
    return kRunFailed;
  }
  std::vector<std::string> all = {python.string(), script.string()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The scheme registry's labels and capabilities, which the scripts read instead of
  // comparing scheme names (analysis/schemes.py).
  std::string schemes = "PSSIM_SCHEMES=" + schemes::schemes_json();
  std::vector<char*> env;
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind("PSSIM_SCHEMES=", 0) != 0) env.push_back(*e);
  env.push_back(schemes.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), env.data()) != 0) {
    report("cannot start /usr/bin/python3");
    return kRunFailed;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return kRunFailed;
  return WEXITSTATUS(status);
}

}  // namespace pssim::cli
