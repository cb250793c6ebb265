#include "sim/schemes/collective_keys.hpp"

#include <fmt/format.h>

#include "sim/scenario/validate.hpp"

namespace pssim::schemes {

using scenario::ConfigNode;

std::vector<scenario::Field> collective_fields() {
  using scenario::enumeration;
  using scenario::omittable;
  using scenario::optional;
  return {optional("algorithm", enumeration(collective::algorithm_names()), "ring",
                   "`ring`: reduce-scatter then all-gather around a ring, 2(N-1) steps of M/N. `halving-doubling`: "
                   "Rabenseifner's recursive halving then doubling (log2 N steps each way). `recursive-doubling`: "
                   "log2 N exchanges of the whole vector (for comparison). `tree`: reduce to worker 0 along a "
                   "binary tree, then broadcast; pipelines when `chunk_bytes` is set. `hierarchical`: ring inside "
                   "each rack, ring across racks, ring inside each rack again (two-tier topology, racks of equal "
                   "size). Non-power-of-two worker counts fold the extra workers in first (halving-doubling, "
                   "recursive-doubling)."),
          omittable("chunk_bytes", scenario::scalar_above(scenario::ValueType::Bytes, 0),
                    "Cut every message into chunks of at most this size that follow each other through the "
                    "algorithm's steps (a tree forwards one chunk while it receives the next). Absent: whole "
                    "messages.")};
}

CollectiveSettings read_collective(const ConfigNode& node, const ScenarioFacts& facts) {
  const auto fail = [](const ConfigNode& at, std::string message) {
    throw scenario::ScenarioError(at.location(), std::move(message));
  };
  CollectiveSettings out;
  const ConfigNode& algorithm = node.at("algorithm");
  out.algorithm = collective::parse_algorithm(scenario::as_text(algorithm));
  if (const ConfigNode* chunk = node.find("chunk_bytes")) out.chunk_bytes = scenario::as_bytes(*chunk);
  if (out.algorithm == collective::AlgorithmKind::Hierarchical) {
    if (!facts.two_tier)
      fail(algorithm, "algorithm hierarchical all-reduces rack by rack: it needs network.topology two-tier");
    if (facts.workers % facts.racks != 0)
      fail(algorithm, fmt::format("algorithm hierarchical needs racks of equal size: {} workers do not divide into "
                                  "{} racks",
                                  facts.workers, facts.racks));
  }
  if (facts.compression)
    fail(*facts.compression, fmt::format("compression applies to parameter-server messages: protocol {} all-reduces "
                                         "gradients uncompressed; remove the compression section",
                                         scenario::as_text(node.at("mode"))));
  return out;
}

ps::AllReducedPart all_reduced_part(training::Part part, const CollectiveSettings& settings, std::size_t racks) {
  return {std::move(part), settings.algorithm, racks, settings.chunk_bytes};
}

}  // namespace pssim::schemes
