// A vector used as a FIFO queue: entries [front, size) are pending, earlier ones popped.
// drop_popped_prefix() erases the popped entries once they number at least `at_least`
// and half the vector, so a queue that never empties keeps its storage within twice its
// pending entries, at amortized O(1) moves per pop.
#pragma once

#include <cstddef>
#include <vector>

namespace pssim {

template <typename T>
void drop_popped_prefix(std::vector<T>& items, std::size_t& front, std::size_t at_least) {
  if (front < at_least || 2 * front < items.size()) return;
  items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(front));
  front = 0;
}

}  // namespace pssim
