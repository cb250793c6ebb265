// The value of `pssim sweep --shard K/N`, parsed strictly.
#pragma once

#include <optional>
#include <string_view>

#include "sim/sweep/sweep_runner.hpp"

namespace pssim::cli {

/// "K/N": two whole numbers written with digits only (no sign, space or other character),
/// 1 <= K <= N <= 1000000. Anything else is nullopt.
std::optional<sweep::Shard> parse_shard(std::string_view text);

/// The largest N of --shard K/N.
constexpr unsigned kMaxShards = 1'000'000;

}  // namespace pssim::cli
