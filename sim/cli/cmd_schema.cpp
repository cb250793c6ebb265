// pssim schema: prints the scenario reference (Markdown), generated from the schema.
#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/scenario/scenario_schema.hpp"

namespace pssim::cli {

void add_schema_command(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("schema", "Print the reference of every scenario key (Markdown)");
  cmd->footer("Example:\n  pssim schema > docs/scenario-reference.md");
  cmd->callback([&state] {
    fmt::print("{}", scenario::scenario_reference_markdown());
    state.exit_code = kSuccess;
  });
}

}  // namespace pssim::cli
