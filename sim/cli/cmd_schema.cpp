// pssim schema: prints the scenario reference (Markdown), generated from the schema; with
// --schemes, the scheme registry's names, labels and capabilities (JSON).
#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/schemes/registry.hpp"

namespace pssim::cli {

int schema_command(bool schemes) {
  if (schemes) fmt::print("{}\n", schemes::schemes_json());
  else fmt::print("{}", scenario::scenario_reference_markdown());
  return kSuccess;
}

}  // namespace pssim::cli
