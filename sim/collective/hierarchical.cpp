#include <stdexcept>

#include "sim/collective/algorithms.hpp"

namespace pssim::collective {

Hierarchical::Hierarchical(std::size_t n, std::size_t racks) : racks_(racks), size_(racks ? n / racks : 0) {
  if (racks < 1 || n % racks != 0)
    throw std::invalid_argument("hierarchical all-reduce needs racks of equal size (workers divisible by racks)");
}

// Rank r = j*L + i (rack j, position i). Steps 0 .. L-2: ring reduce-scatter inside the
// rack (rank r ends holding segment (i+1) mod L reduced over its rack). Steps L-1 ..
// L-1+2(R-1)-1: ring all-reduce of that segment among the ranks at position i of every
// rack. Last L-1 steps: ring all-gather inside the rack.
void Hierarchical::step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const {
  const auto L = static_cast<std::int64_t>(size_), R = static_cast<std::int64_t>(racks_);
  const auto j = static_cast<std::int64_t>(rank) / L, i = static_cast<std::int64_t>(rank) % L;
  const auto k = static_cast<std::int64_t>(s);
  const auto mod = [](std::int64_t a, std::int64_t m) { return ((a % m) + m) % m; };
  out.sends.clear();
  out.receives = 1;
  std::int64_t first = 0, sent = 0, peer = 0;
  if (k < L - 1) {
    out.phase = Phase::Reduce;
    const std::int64_t seg = mod(i - k, L);
    first = segment_offset(elements, L, seg), sent = segment(elements, L, seg);
    peer = j * L + (i + 1) % L;
  } else if (k < L - 1 + 2 * (R - 1)) {
    const std::int64_t m = k - (L - 1);
    const std::int64_t own = mod(i + 1, L);  // the segment this rank reduced inside its rack
    const std::int64_t base = segment_offset(elements, L, own), length = segment(elements, L, own);
    const bool reduce = m < R - 1;
    const std::int64_t sub = mod(reduce ? j - m : j + 1 - (m - (R - 1)), R);
    out.phase = reduce ? Phase::Reduce : Phase::Gather;
    first = base + segment_offset(length, R, sub), sent = segment(length, R, sub);
    peer = ((j + 1) % R) * L + i;
  } else {
    const std::int64_t m = k - (L - 1) - 2 * (R - 1);
    out.phase = Phase::Gather;
    const std::int64_t seg = mod(i + 1 - m, L);
    first = segment_offset(elements, L, seg), sent = segment(elements, L, seg);
    peer = j * L + (i + 1) % L;
  }
  out.sends.push_back({static_cast<std::uint32_t>(peer), first, sent, static_cast<std::uint32_t>(s)});
}

}  // namespace pssim::collective
