#include "sim/cli/shard_arg.hpp"

#include <charconv>

namespace pssim::cli {
namespace {

constexpr unsigned kMaxShards = 1'000'000;

std::optional<unsigned> parse_count(std::string_view text) {
  if (text.empty() || text.size() > 7 || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  unsigned value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

}  // namespace

std::optional<sweep::Shard> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto k = parse_count(text.substr(0, slash)), n = parse_count(text.substr(slash + 1));
  if (!k || !n || *k < 1 || *k > *n || *n > kMaxShards) return std::nullopt;
  return sweep::Shard{*k, *n};
}

void add_shard_option(CLI::App* cmd, std::optional<sweep::Shard>& shard) {
  cmd->add_option_function<std::string>(
         "--shard",
         [&shard](const std::string& text) {
           shard = parse_shard(text);
           if (!shard)
             throw CLI::ValidationError("--shard", "'" + text + "' is not K/N with whole numbers 1 <= K <= N <= " +
                                                       std::to_string(kMaxShards) + " (e.g. --shard 2/3)");
         },
         "Run only slice K of N of the points (K/N): point i belongs to slice i mod N + 1")
      ->type_name("K/N");
}

}  // namespace pssim::cli
