#include "sim/scenario/scenario_error.hpp"

#include <fmt/format.h>

namespace pssim::scenario {
namespace {

std::string join_lines(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += format_diagnostic(d);
  }
  return text;
}

}  // namespace

std::string format_diagnostic(const Diagnostic& d) {
  const auto& loc = d.location;
  if (loc.line <= 0) return fmt::format("{}: error: {}", loc.source, d.message);
  return fmt::format("{}:{}:{}: error: {}", loc.source, loc.line, loc.column, d.message);
}

ScenarioError::ScenarioError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace pssim::scenario
