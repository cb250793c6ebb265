#include "sim/collective/algorithms.hpp"

namespace pssim::collective {

// Step k < n-1 (reduce-scatter): rank r sends segment (r - k) mod n to r + 1 and receives
// (r - k - 1) mod n, which it adds to its own; after n - 1 steps it holds the reduced
// segment (r + 1) mod n. Step n-1+j (all-gather): it sends segment (r + 1 - j) mod n, the
// last one it completed, and receives (r - j) mod n.
void Ring::step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const {
  const auto n = static_cast<std::int64_t>(n_), r = static_cast<std::int64_t>(rank), k = static_cast<std::int64_t>(s);
  const bool reduce = k < n - 1;
  // seg is within (-n, n] for 0 <= k < 2(n-1): one correction brings it into [0, n)
  // (a modulo costs a 64-bit division, which shows in the all-reduce benchmark).
  std::int64_t i = reduce ? r - k : r + 1 - (k - (n - 1));
  if (i < 0) i += n;
  else if (i >= n) i -= n;
  out.sends.clear();
  out.phase = reduce ? Phase::Reduce : Phase::Gather;
  out.receives = 1;
  out.sends.push_back({static_cast<std::uint32_t>(r + 1 == n ? 0 : r + 1), segment_offset(elements, n, i),
                       segment(elements, n, i), static_cast<std::uint32_t>(s)});
}

}  // namespace pssim::collective
