// "Did you mean ...?" suggestions for misspelt names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pssim::scenario {

/// Optimal-string-alignment edit distance (insertions, deletions, substitutions and
/// transpositions of neighbours each cost 1). O(|a|·|b|).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest to `word` if it is close enough to be a plausible misspelling;
/// nullopt otherwise. A candidate equal to `word` ignoring case comes first (the first such);
/// then the nearest by edit distance, at most max(1, |word| / 3), ties to the earlier one.
std::optional<std::string> nearest_name(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace pssim::scenario
