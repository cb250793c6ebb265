// pssim schema: prints the scenario reference (Markdown), generated from the schema.
#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/scenario/scenario_schema.hpp"

namespace pssim::cli {

int schema_command() {
  fmt::print("{}", scenario::scenario_reference_markdown());
  return kSuccess;
}

}  // namespace pssim::cli
