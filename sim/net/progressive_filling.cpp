#include "sim/net/progressive_filling.hpp"

namespace pssim::net {

// The buffers take ~36 bytes per resource and 5 per flow; a large system gives them back
// (allocating them is small next to an O(flows) fill, and full solves are rare).
void ProgressiveFilling::release_if_large(std::size_t resources, std::size_t flows) {
  if (resources + flows <= kKeptScratch) return;
  for (auto* v : {&remaining_, &level_}) std::vector<double>().swap(*v);
  std::vector<std::uint32_t>().swap(unfrozen_);
  std::vector<ResourceId>().swap(bottleneck_);
  std::vector<char>().swap(frozen_);
  queue_ = {};
}

}  // namespace pssim::net
