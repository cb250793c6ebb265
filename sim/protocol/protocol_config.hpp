// The protocol section of a scenario, typed: which scheme, and its settings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/collective/algorithm.hpp"

namespace pssim::protocol {

/// When a worker's messages leave, relative to its computation (protocol.overlap).
enum class Overlap {
  None,      ///< pull everything, compute the whole iteration, then push everything
  Backward,  ///< push each layer's gradient pieces as its backward step ends
  Full,      ///< Backward, and layer l's forward starts once every piece of layer l has arrived
};
/// How pieces in flight share the links (protocol.schedule).
enum class Schedule {
  Fifo,      ///< in the order they are produced, max-min fair among all in flight
  Priority,  ///< strict priority by layer, nearest the input first (P3, ByteScheduler)
};

struct ProtocolConfig {
  std::string scheme = "sync";      ///< a name of the scheme registry (sim/schemes/registry.hpp)
  std::int64_t backup_workers = 0;  ///< sync: each round proceeds with the first N - b gradients
  std::int64_t staleness = 0;       ///< ssp: bound s
  collective::AlgorithmKind algorithm = collective::AlgorithmKind::Ring;  ///< allreduce, hybrid
  std::optional<double> chunk_bytes;  ///< allreduce, hybrid: none = whole messages
  std::int64_t local_steps = 0;       ///< local-sgd: optimizer steps a worker takes before it pushes (0: others)
  Overlap overlap = Overlap::None;             ///< sync, async, ssp (none or backward), allreduce
  Schedule schedule = Schedule::Fifo;          ///< sync, async, ssp
  std::optional<double> partition_bytes;       ///< sync, async, ssp: largest piece of a tensor; none: whole
  std::optional<double> bucket_bytes;          ///< allreduce with overlap: gradient bucket size; none: 25 MiB
};

}  // namespace pssim::protocol
