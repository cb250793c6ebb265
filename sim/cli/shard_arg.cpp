#include "sim/cli/shard_arg.hpp"

#include <charconv>

namespace pssim::cli {
namespace {

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

}  // namespace pssim::cli
