#include "sim/cli/report.hpp"

#include <fmt/format.h>

namespace pssim::cli {

void report(const scenario::ScenarioError& error) {
  for (const auto& d : error.diagnostics()) fmt::print(stderr, "{}\n", scenario::format_diagnostic(d));
}

void report(std::string_view message) { fmt::print(stderr, "pssim: error: {}\n", message); }

void warn_unlocked(std::string_view reason) {
  fmt::print(stderr, "pssim: warning: {}; the output directory is not locked: make sure no other pssim writes into "
                     "it\n",
             reason);
}

}  // namespace pssim::cli
