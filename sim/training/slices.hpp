// What protocols move between workers and parameter holders when the math is real.
//
// A part's parameters at one version are an immutable, shared slice (SliceRef): handing
// parameters to a worker passes a reference, not a copy, so workers holding the same
// version share it. A worker's gradient is cut into one GradientData per part, each its
// own object, so it is freed as soon as that part's holder has applied it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace pssim::training {

/// A part's parameters at one version: its ranges of the flat vector, concatenated.
using SliceRef = std::shared_ptr<const std::vector<float>>;

/// One part of a worker's gradient: the gradient on the part's ranges, concatenated in the
/// layout of its slice.
struct GradientData {
  std::vector<float> values;  ///< [part length]; with push compression, what the holder decodes
  double loss = 0;            ///< mean training loss of the whole batch
  std::int64_t samples = 0;   ///< batch size
  /// The message's size when it is not 4 bytes per parameter (compression, sparse
  /// embedding rows); none: uncompressed.
  std::optional<double> wire_bytes;
};
using GradientRef = std::shared_ptr<const GradientData>;

}  // namespace pssim::training
