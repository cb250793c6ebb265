// The protocol section of a scenario, typed: which scheme, and its settings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/collective/algorithm.hpp"

namespace pssim::protocol {

struct ProtocolConfig {
  std::string scheme = "sync";      ///< a name of the scheme registry (sim/schemes/registry.hpp)
  std::int64_t backup_workers = 0;  ///< sync: each round proceeds with the first N - b gradients
  std::int64_t staleness = 0;       ///< ssp: bound s
  collective::AlgorithmKind algorithm = collective::AlgorithmKind::Ring;  ///< allreduce, hybrid
  std::optional<double> chunk_bytes;  ///< allreduce, hybrid: none = whole messages
  std::int64_t local_steps = 0;       ///< local-sgd: optimizer steps a worker takes before it pushes (0: others)
};

}  // namespace pssim::protocol
