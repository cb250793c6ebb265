#include <stdexcept>

#include "sim/collective/algorithms.hpp"

namespace pssim::collective {

PowerOfTwoFold::PowerOfTwoFold(std::size_t n) : n_(n) {
  if (n < 1) throw std::invalid_argument("a collective needs at least one rank");
  while (2 * p_ <= n) p_ *= 2, ++levels_;
  rem_ = n - p_;
}

std::size_t PowerOfTwoFold::steps(std::size_t rank) const {
  if (is_extra(rank)) return 2;
  return core_steps() + (has_fold(rank) ? 2 : 0);
}

// An extra rank: step 0 sends its vector to rank + 1, step 1 receives the result. Its
// partner: step 0 receives that vector (and adds it), then the core steps, then a last
// step sends the result back.
void PowerOfTwoFold::step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const {
  out.sends.clear();
  out.receives = 0;
  if (is_extra(rank)) {
    out.phase = s == 0 ? Phase::Reduce : Phase::Gather;
    if (s == 0) out.sends.push_back({static_cast<std::uint32_t>(rank + 1), 0, elements, 0});
    else out.receives = 1;
    return;
  }
  const std::size_t offset = has_fold(rank) ? 1 : 0;
  if (offset && s == 0) {
    out.phase = Phase::Reduce;
    out.receives = 1;
    return;
  }
  if (offset && s == core_steps() + 1) {
    out.phase = Phase::Gather;
    out.sends.push_back({static_cast<std::uint32_t>(rank - 1), 0, elements, 1});
    return;
  }
  const std::size_t k = s - offset;
  std::size_t partner = 0;
  std::int64_t first = 0, sent = 0;
  core_step(core_id(rank), k, elements, partner, first, sent, out.phase);
  const std::size_t peer = rank_of(partner);
  out.receives = 1;
  out.sends.push_back(
      {static_cast<std::uint32_t>(peer), first, sent, static_cast<std::uint32_t>(k + (has_fold(peer) ? 1 : 0))});
}

// Halving step k: the range kept so far, [lo, hi), is split at its middle; the core rank
// whose bit (p >> (k+1)) is clear keeps the lower half and sends the upper one. Doubling
// steps walk the levels back, each sending the range kept at that level.
void HalvingDoubling::core_step(std::size_t v, std::size_t k, std::int64_t elements, std::size_t& partner,
                                std::int64_t& first, std::int64_t& sent, Phase& phase) const {
  const bool halving = k < levels_;
  const std::size_t level = halving ? k : 2 * levels_ - 1 - k;
  std::int64_t lo = 0, hi = elements;
  for (std::size_t j = 0; j < level; ++j) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (v & (p_ >> (j + 1))) lo = mid;
    else hi = mid;
  }
  const std::size_t bit = p_ >> (level + 1);
  const std::int64_t mid = lo + (hi - lo) / 2;
  const bool lower = (v & bit) == 0;
  partner = v ^ bit;
  phase = halving ? Phase::Reduce : Phase::Gather;
  // Halving sends the half it gives away; doubling sends the half it kept.
  const bool upper_half = halving == lower;
  first = upper_half ? mid : lo;
  sent = upper_half ? hi - mid : mid - lo;
}

void RecursiveDoubling::core_step(std::size_t v, std::size_t k, std::int64_t elements, std::size_t& partner,
                                  std::int64_t& first, std::int64_t& sent, Phase& phase) const {
  partner = v ^ (std::size_t{1} << k);
  first = 0;
  sent = elements;
  phase = Phase::Reduce;
}

}  // namespace pssim::collective
