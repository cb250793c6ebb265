// How the flat parameter vector is cut into shards, and where shards live.
//
// A shard is a Part (sim/training/parts.hpp): a set of ranges of the flat vector.
//   by bytes: S contiguous ranges whose sizes differ by at most one parameter;
//   by layer: whole layers dealt to shards round-robin in layer order (as TensorFlow's
//             replica_device_setter places variables), which can leave shards unequal.
// Placement maps shards to server hosts: round-robin (shard k on host k mod H), or
// balanced (largest shard first onto the host with the fewest bytes so far, ties to the
// lowest host index).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/training/parts.hpp"

namespace pssim::ps {

using training::Part;

/// S contiguous shards of nearly equal size. Requires 1 <= shards <= total_params.
std::vector<Part> partition_by_bytes(std::int64_t total_params, std::int64_t shards);
/// Layers (sizes in order) dealt round-robin to `shards` shards. Requires
/// 1 <= shards <= layers.
std::vector<Part> partition_by_layer(const std::vector<std::int64_t>& layer_params, std::int64_t shards);

/// Host index (0 .. hosts-1) of each shard.
std::vector<std::int64_t> place_round_robin(std::size_t shards, std::int64_t hosts);
std::vector<std::int64_t> place_balanced(const std::vector<Part>& shards, std::int64_t hosts);

}  // namespace pssim::ps
