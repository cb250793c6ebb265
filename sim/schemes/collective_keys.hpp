// The keys of the schemes that all-reduce a part of the parameters (allreduce, hybrid):
// protocol.algorithm and chunk_bytes, their settings type, and the all-reduced part they
// describe.
#pragma once

#include <optional>
#include <vector>

#include "sim/collective/algorithm.hpp"
#include "sim/ps/ps_config.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema.hpp"
#include "sim/schemes/scheme.hpp"

namespace pssim::schemes {

struct CollectiveSettings {
  collective::AlgorithmKind algorithm = collective::AlgorithmKind::Ring;
  std::optional<double> chunk_bytes;  ///< none: whole messages
};

std::vector<scenario::Field> collective_fields();
/// Reads and checks the collective's keys of the resolved `protocol` node (hierarchical
/// needs equal racks; all-reduced gradients go uncompressed).
CollectiveSettings read_collective(const scenario::ConfigNode& protocol, const ScenarioFacts& facts);
/// `part` all-reduced as the settings say, over `racks` racks.
ps::AllReducedPart all_reduced_part(training::Part part, const CollectiveSettings& settings, std::size_t racks);

}  // namespace pssim::schemes
