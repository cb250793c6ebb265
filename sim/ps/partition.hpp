// How the flat parameter vector is cut into shards, and where shards live.
//
// The parameters of a model are one float32 vector; a layer (tensor) is a contiguous
// range of it. A shard owns a set of ranges; its message size is 4 bytes per parameter.
//   by bytes: S contiguous ranges whose sizes differ by at most one parameter;
//   by layer: whole layers dealt to shards round-robin in layer order (as TensorFlow's
//             replica_device_setter places variables), which can leave shards unequal.
// Placement maps shards to server hosts: round-robin (shard k on host k mod H), or
// balanced (largest shard first onto the host with the fewest bytes so far, ties to the
// lowest host index).
#pragma once

#include <cstdint>
#include <vector>

namespace pssim::ps {

inline constexpr double kBytesPerParam = 4.0;  // float32

struct Range {
  std::int64_t begin = 0;  ///< first parameter index
  std::int64_t end = 0;    ///< one past the last
  std::int64_t size() const { return end - begin; }
};

struct Shard {
  std::vector<Range> ranges;
  std::int64_t params = 0;
  double bytes() const { return kBytesPerParam * static_cast<double>(params); }
};

/// S contiguous shards of nearly equal size. Requires 1 <= shards <= total_params.
std::vector<Shard> partition_by_bytes(std::int64_t total_params, std::int64_t shards);
/// Layers (sizes in order) dealt round-robin to `shards` shards. Requires
/// 1 <= shards <= layers.
std::vector<Shard> partition_by_layer(const std::vector<std::int64_t>& layer_params, std::int64_t shards);

/// Host index (0 .. hosts-1) of each shard.
std::vector<std::int64_t> place_round_robin(std::size_t shards, std::int64_t hosts);
std::vector<std::int64_t> place_balanced(const std::vector<Shard>& shards, std::int64_t hosts);

}  // namespace pssim::ps
