// What a run will need in memory, estimated before the simulation is built, against what
// this process may use: a scenario that cannot fit fails at once, with both figures,
// instead of building for a minute and then running out of memory.
//
// The estimate is a lower bound of what the first round needs, from the terms that grow
// with the cluster (peak RSS measured on this project's machine, docs/benchmarks.md "Will it
// fit?": 2.0 kB per worker with one shard, 2.4 kB under a ring all-reduce, 3.5 kB with 8
// shards, 4.7 kB in async with stragglers):
//   simulation   1.5 kB per worker (its host and NIC links in the network, its protocol
//                state and time split) + 150 bytes per worker and shard (its messages
//                in flight); the smallest measured cost is 2.0 kB per worker
//   math         schemes that average gradients (all but those applying each gradient on
//                arrival: async) hold one gradient per worker until the update:
//                (workers - backup workers) x parameters x 4 bytes; the parameters
//                (x 4 bytes) otherwise
// Cheap: O(1), from numbers the scenario and the model already give.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/scenario/scenario.hpp"
#include "sim/schemes/registry.hpp"

namespace pssim::experiment {

/// A run that cannot fit in the memory this process may use (exit status 1, as running
/// out of memory).
class MemoryTooSmall : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MemoryEstimate {
  double bytes = 0;
  std::string terms;  ///< what was counted, e.g. "10000000 workers x 1.65 kB of simulation state"
};

/// The estimate for `s`, run by `scheme` with a model of `params` parameters (see above).
MemoryEstimate estimate_memory(const scenario::Scenario& s, const schemes::Scheme& scheme, std::int64_t params);

struct MemoryLimit {
  double bytes = 0;
  std::string source;  ///< "MemTotal in /proc/meminfo", "memory.max of its cgroup", "its address-space limit, ulimit -v"
};

/// The least of the machine's memory, the cgroup's limit and the address-space limit.
MemoryLimit memory_limit();

/// Throws MemoryTooSmall, with the estimate and the limit, when the estimate exceeds `limit`.
void check_memory(const scenario::Scenario& s, const schemes::Scheme& scheme, std::int64_t params,
                  const MemoryLimit& limit = memory_limit());

}  // namespace pssim::experiment
