// Diagnostics for scenario input: where (file, line, column) and what is wrong.
//
// Every problem with a scenario file or an override is reported as a Diagnostic and
// thrown, possibly several at once, in a ScenarioError. The CLI prints them one per line
// as `file:line:col: error: message` and exits with status 2.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pssim::scenario {

/// A place in the scenario input. Lines and columns count from 1; line 0 means the
/// problem concerns the whole source (a missing file) rather than a position in it.
struct SourceLocation {
  std::string source;  ///< file path, or "--set #N" for a command-line override
  int line = 0;
  int column = 0;
};

struct Diagnostic {
  SourceLocation location;
  std::string message;
};

/// "file:line:col: error: message" (or "file: error: message" without a position).
std::string format_diagnostic(const Diagnostic& d);

class ScenarioError : public std::runtime_error {
 public:
  explicit ScenarioError(std::vector<Diagnostic> diagnostics);
  ScenarioError(SourceLocation location, std::string message)
      : ScenarioError(std::vector<Diagnostic>{{std::move(location), std::move(message)}}) {}
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace pssim::scenario
