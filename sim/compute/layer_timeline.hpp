// Layer timeline: an iteration's compute cut into its layers' forward and backward steps
// (protocol.overlap: communication overlapped with computation).
//
// A worker's iteration takes D = ComputeModel::next_duration(...) (the batch's FLOPs over
// the worker's speed, one noise draw per iteration: the same D as without layers). It runs
// forward through layers 1..L, then backward through L..1; step k takes the share of D its
// FLOPs have (LayerCost: counted from the layer's shape). Its end, from the iteration's
// start, is rounded once from the cumulative sum,
//     t_k = round(D x (FLOPs of steps 1..k) / (FLOPs of all 2L steps)),
// so the steps add up to D exactly. A layer without FLOPs takes no time; with no FLOPs at
// all the steps split D evenly.
#pragma once

#include <span>
#include <vector>

#include "sim/core/time.hpp"

namespace pssim::compute {

struct LayerFlops {
  double forward = 0, backward = 0;  ///< FLOPs (any common scale: only shares matter)
};

/// End offsets (ns from the iteration's start) of the 2L steps: forward of layers 0..L-1,
/// then backward of layers L-1..0 (index L + j is the backward of layer L-1-j).
std::vector<TimeNs> step_ends(TimeNs duration, std::span<const LayerFlops> layers);

}  // namespace pssim::compute
