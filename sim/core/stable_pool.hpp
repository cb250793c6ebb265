// StablePool: a growable array whose elements never move, indexed like a vector.
//
// Elements live in blocks of 2^kBlockBits, allocated as the pool grows and kept until it
// is destroyed, so a pointer to an element stays valid (events may point at it). Indexing
// is a shift, a mask and two loads: cheaper than std::deque's, whose blocks hold 512
// bytes (seven 72-byte messages) and whose index arithmetic showed in the profile of the
// flow network's hot path. Memory: the elements, rounded up to a whole block.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace pssim {

template <typename T, std::size_t kBlockBits = 8>
class StablePool {
 public:
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;

  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  const T& operator[](std::size_t i) const { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  /// Appends a value-initialized element (blocks are value-initialized when allocated)
  /// and returns it.
  T& emplace_back() {
    if (size_ == blocks_.size() * kBlock) blocks_.push_back(std::make_unique<T[]>(kBlock));
    return (*this)[size_++];
  }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace pssim
