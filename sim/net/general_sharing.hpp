// GeneralSharingSolver: weighted max-min sharing with rate caps, consumption coefficients
// and strict priority classes (SimGrid's lmm has the same terms), solved in full on every
// solve(). The network's tcp model and priority scheduling use it (flow_progress.hpp).
//
// A flow f has a weight w_f > 0, a rate cap u_f > 0 (bytes/s; infinite: none), a
// consumption coefficient a_rf > 0 on each resource of its route (a flow at rate x uses
// a_rf x of r: 1 on the links it crosses, 0.05 on the reverse path for TCP's ACKs), and a
// priority class p_f (0 first). The problem, class by class in increasing p:
//   the flows of class p get the weighted max-min fair rates x_f <= u_f subject to
//       sum_{f in class p, r in R_f} a_rf x_f <= C_r - (what classes < p use of r),
//   i.e. progressive filling of a level L: every unfrozen flow of the class runs at
//   x_f = w_f L; a resource freezes its flows when sum a_rf w_f L reaches what it has
//   left, a flow freezes alone at its cap when w_f L reaches u_f.
// So classes are served in strict priority (a lower class gets only what higher ones leave
// at each resource, possibly nothing), and within a class bandwidth is shared in
// proportion to the weights. With every weight and coefficient 1, no caps and one class
// this is MaxMinSolver's problem.
//
// Cost: O(F x route length x log R) per solve(). The listener hears rate_changed() for
// each flow whose rate changed and for every flow just placed (levels and bottlenecks are
// not reported: flows of a resource no longer share one rate).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "sim/net/sharing_solver.hpp"

namespace pssim::net {

class GeneralSharingSolver final : public SharingSolver {
 public:
  explicit GeneralSharingSolver(std::vector<double> capacities, Listener* listener = nullptr);

  /// Routes up to kMaxGeneralRoute. Throws std::invalid_argument for a weight, cap or
  /// coefficient that is not > 0, or coefficients not one per route entry.
  FlowId add_flow(std::span<const ResourceId> route, const FlowShape& shape) override;
  using SharingSolver::add_flow;
  void remove_flow(FlowId f) override;
  void solve() override;
  void set_capacity(ResourceId r, double capacity) override;
  double capacity(ResourceId r) const override { return resources_[r].capacity; }
  double rate(FlowId f) const override { return flows_[f].rate; }
  std::span<const ResourceId> route(FlowId f) const override {
    return {&routes_[f * kMaxGeneralRoute], flows_[f].length};
  }
  std::span<const FlowId> flows_at(ResourceId r) override { return resources_[r].flows; }
  std::size_t active_flows() const override { return active_; }
  std::size_t resource_count() const override { return resources_.size(); }
  const Stats& stats() const override { return stats_; }

 private:
  struct Flow {
    double weight = 1, cap = std::numeric_limits<double>::infinity(), rate = 0;
    std::uint32_t priority = 0;
    std::uint8_t length = 0;
    bool active = false;
    bool placed = false;  // in its resources' lists (false while pending)
  };
  struct Resource {
    double capacity = 0;
    std::vector<FlowId> flows;  // placed flows crossing it
  };
  // Route entry i of flow id, its coefficient, and its index in that resource's list.
  ResourceId route_at(FlowId id, std::size_t i) const { return routes_[id * kMaxGeneralRoute + i]; }
  double coefficient(FlowId id, std::size_t i) const { return coefficients_[id * kMaxGeneralRoute + i]; }
  void attach(FlowId id);
  void detach(FlowId id);

  std::vector<Resource> resources_;
  std::vector<Flow> flows_;                  // per flow id
  std::vector<ResourceId> routes_;           // kMaxGeneralRoute per flow id
  std::vector<double> coefficients_;         // kMaxGeneralRoute per flow id
  std::vector<std::uint32_t> positions_;     // kMaxGeneralRoute per flow id
  std::vector<FlowId> free_ids_, pending_add_, pending_remove_;
  std::size_t active_ = 0;
  bool capacity_changed_ = false;
  Listener* listener_;
  Stats stats_;
  struct Scratch {
    std::vector<double> remaining, usage;          // per resource: capacity left, sum a w of unfrozen flows
    std::vector<double> rates;                     // per flow: the new rate
    std::vector<char> frozen;                      // per flow: 0 filling, 1 frozen, 2 reported
    std::vector<std::uint32_t> unfrozen, queued;   // per resource: unfrozen flows; queue mark
    std::vector<FlowId> order, placed;             // newly placed flows; placed flows by (class, cap level)
    std::vector<std::pair<double, ResourceId>> queue;
  } scratch_;
};

}  // namespace pssim::net
