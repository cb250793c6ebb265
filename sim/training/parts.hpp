// Parts of the flat parameter vector.
//
// The parameters of a model are one float32 vector; a layer (tensor) is a contiguous range
// of it. A Part is a set of ranges that travels and is updated as a unit: a parameter
// server's shard, or the replicated block an all-reduce synchronizes. Its message size,
// uncompressed, is 4 bytes per parameter.
#pragma once

#include <cstdint>
#include <vector>

namespace pssim::training {

inline constexpr double kBytesPerParam = 4.0;  // float32

struct Range {
  std::int64_t begin = 0;  ///< first parameter index
  std::int64_t end = 0;    ///< one past the last
  std::int64_t size() const { return end - begin; }
};

struct Part {
  std::vector<Range> ranges;  ///< in increasing order, disjoint
  std::int64_t params = 0;    ///< sum of the ranges' sizes
  double bytes() const { return kBytesPerParam * static_cast<double>(params); }
};

}  // namespace pssim::training
