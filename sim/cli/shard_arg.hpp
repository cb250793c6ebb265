// The --shard K/N option of `pssim sweep`, parsed strictly.
#pragma once

#include <optional>
#include <string_view>

#include <CLI/CLI.hpp>

#include "sim/sweep/sweep_runner.hpp"

namespace pssim::cli {

/// "K/N": two whole numbers written with digits only (no sign, space or other character),
/// 1 <= K <= N <= 1000000. Anything else is nullopt.
std::optional<sweep::Shard> parse_shard(std::string_view text);

/// Registers --shard K/N on `cmd`; a value that parse_shard rejects is a usage error
/// (exit 2), also an empty one.
void add_shard_option(CLI::App* cmd, std::optional<sweep::Shard>& shard);

}  // namespace pssim::cli
