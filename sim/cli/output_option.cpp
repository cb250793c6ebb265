#include "sim/cli/output_option.hpp"

namespace pssim::cli {

CLI::Option* add_output_option(CLI::App* cmd, std::string& dir, const std::string& description) {
  const CLI::Validator non_empty(
      [](std::string& value) {
        return value.empty() ? std::string("an empty path names no directory: give one, or leave -o out for the "
                                           "default")
                             : std::string();
      },
      "DIR");
  return cmd->add_option("-o,--output", dir, description)->check(non_empty);
}

}  // namespace pssim::cli
