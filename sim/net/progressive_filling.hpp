// ProgressiveFilling: the max-min fair rates of flows over resources, solved from scratch
// (the full solve of MaxMinSolver, which it falls back on when an incremental update cannot
// be certified).
//
// Raise every rate together; when a resource fills up, freeze the flows crossing it at the
// current level; continue with the others. The result: each flow's bottleneck (the
// resource that froze it) and each bottleneck's level (the rate of the flows it froze); a
// resource that froze no flow has level 0. Ties between resources of equal share are
// broken by resource id, so the result is deterministic.
//
// Cost: O(F x route length x log R) for F flows over R resources (one queue entry per
// resource, re-queued lazily: see fill()). The buffers are kept between calls (no
// allocation in steady state) unless the system is large.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "sim/core/run_heap.hpp"

namespace pssim::net {

class ProgressiveFilling {
 public:
  using ResourceId = std::uint32_t;
  using FlowId = std::uint32_t;
  static constexpr ResourceId kNone = std::numeric_limits<ResourceId>::max();
  /// Buffers are given back after a fill of more resources and flows than this.
  static constexpr std::size_t kKeptScratch = 1 << 16;

  /// Fills `resources` resources and flow ids below `flows`: capacity(r) > 0 or 0,
  /// flows_at(r) the ids of the flows crossing r (each flow of some resource is filled;
  /// the others keep no bottleneck), route(id) the resources of flow id.
  template <typename Capacity, typename FlowsAt, typename Route>
  void fill(std::size_t resources, std::size_t flows, Capacity capacity, FlowsAt flows_at, Route route);

  /// After fill(): r's level (0: it froze no flow) and id's bottleneck (kNone: on no resource).
  double level(ResourceId r) const { return level_[r]; }
  ResourceId bottleneck(FlowId id) const { return bottleneck_[id]; }
  /// Gives the buffers back when the last fill was large (call once its results are read).
  void release_if_large(std::size_t resources, std::size_t flows);

 private:
  std::vector<double> remaining_, level_;
  std::vector<std::uint32_t> unfrozen_;
  std::vector<ResourceId> bottleneck_;
  std::vector<char> frozen_;
  RunHeap<std::pair<double, ResourceId>> queue_;  // filling order: (share, resource)
};

template <typename Capacity, typename FlowsAt, typename Route>
void ProgressiveFilling::fill(std::size_t n_res, std::size_t n_flows, Capacity capacity, FlowsAt flows_at,
                              Route route) {
  auto& remaining = remaining_;
  auto& unfrozen = unfrozen_;
  remaining.resize(n_res);
  unfrozen.resize(n_res);
  level_.assign(n_res, 0.0);
  bottleneck_.assign(n_flows, kNone);
  frozen_.assign(n_flows, 0);
  // Lowest (share, resource) first. Resources of equal share are queued in increasing
  // order, so where most shares are equal (a ring's links) most entries join the run.
  auto& queue = queue_;
  queue.clear();
  const auto push = [&](double share, ResourceId r) { queue.push({share, r}); };
  for (ResourceId r = 0; r < n_res; ++r) {
    remaining[r] = capacity(r);
    unfrozen[r] = static_cast<std::uint32_t>(flows_at(r).size());
    if (unfrozen[r] > 0) push(remaining[r] / unfrozen[r], r);
  }
  double last_level = 0;
  // A resource's entry is not replaced each time one of its flows freezes elsewhere: its
  // share (C - frozen rates) / unfrozen only rises then (a flow freezes at a level no
  // higher than the share), so an entry whose key lags behind is re-queued at the true
  // share when it surfaces. Every resource still being filled keeps an entry with a key
  // <= its share, so the first valid entry popped is the lowest (share, resource): the
  // same order as eager updates, in a queue of one entry per resource instead of one per
  // (flow, resource). Where rounding makes a share fall, it is queued at once.
  while (!queue.empty()) {
    const auto [share, r] = queue.top();
    queue.pop();
    if (unfrozen[r] == 0) continue;
    if (const double current = remaining[r] / unfrozen[r]; share != current) {  // stale entry
      if (share < current) push(current, r);
      continue;
    }
    // Levels only rise during filling; rounding must not make one fall (or reach 0).
    const double level = std::max(share, last_level);
    last_level = level;
    level_[r] = level;
    for (FlowId id : flows_at(r)) {
      if (frozen_[id]) continue;
      frozen_[id] = 1;
      bottleneck_[id] = r;
      for (const ResourceId other : route(id)) {
        if (other == r) continue;
        const double before = remaining[other] / unfrozen[other];
        remaining[other] -= level;
        if (--unfrozen[other] > 0 && remaining[other] / unfrozen[other] < before)
          push(remaining[other] / unfrozen[other], other);
      }
    }
    unfrozen[r] = 0;
  }
}

}  // namespace pssim::net
