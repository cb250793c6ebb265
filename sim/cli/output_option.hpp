// The -o/--output option of the commands that write results: a directory path, never
// empty (an empty -o "" would otherwise silently mean the default).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace pssim::cli {

/// Registers -o,--output on `cmd` into `dir`; an empty value is a usage error (exit 2).
CLI::Option* add_output_option(CLI::App* cmd, std::string& dir, const std::string& description);

}  // namespace pssim::cli
