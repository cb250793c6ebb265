// Pieces: how a shard's messages are cut when communication overlaps computation or is
// scheduled by priority (protocol.overlap, protocol.schedule, protocol.partition_bytes).
//
// A piece is the part of one layer's parameters that lies in one shard, cut further into
// runs of at most partition_bytes (4 bytes per parameter; at least one parameter each).
// Each piece travels as a flow of its own; a shard's message (a push or a pull) counts as
// arrived when its last piece has. A piece carries the layer it belongs to: the time its
// gradient exists (that layer's backward step ends) and its priority class (the layer's
// index: layers nearer the input first).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/training/parts.hpp"

namespace pssim::ps {

struct Piece {
  std::size_t layer = 0;    ///< index of its layer, forward order
  std::int64_t params = 0;  ///< > 0
};

/// Pieces of each shard, in increasing layer order (then parameter order). `layers` are the
/// layers' parameter ranges in forward order (disjoint; together they need not cover every
/// shard: parameters outside every layer count to the last layer before them, or the first).
/// Complexity: O(shard ranges x layers + pieces).
std::vector<std::vector<Piece>> cut_pieces(const std::vector<training::Part>& shards,
                                           const std::vector<training::Range>& layers,
                                           std::optional<double> partition_bytes);

}  // namespace pssim::ps
