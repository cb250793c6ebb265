// pssim compare PATH...: a table of runs and sweep points (analysis/compare.py).
#include "sim/cli/commands.hpp"
#include "sim/cli/python_script.hpp"

namespace pssim::cli {

int compare_command(const CompareArgs& a) {
  std::vector<std::string> args = {"--format", a.format};
  if (a.per_seed) args.push_back("--per-seed");
  if (!a.baseline.empty()) args.insert(args.end(), {"--baseline", a.baseline});
  for (const auto& label : a.labels) args.insert(args.end(), {"--label", label});
  args.insert(args.end(), a.paths.begin(), a.paths.end());
  return run_analysis_script("compare.py", args);
}

}  // namespace pssim::cli
