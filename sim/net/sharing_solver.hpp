// SharingSolver: how flows over shared resources (link directions) share their capacity,
// kept up to date as flows come and go. One interface, one class per strategy (as SimGrid
// keeps one `System` and a solver per model):
//
//   MaxMinSolver          max-min fairness, every flow alike, solved incrementally with a
//                         certificate, falling back on a full progressive filling
//                         (maxmin_solver.hpp, progressive_filling.hpp);
//   GeneralSharingSolver  weighted max-min with rate caps, consumption coefficients and
//                         strict priority classes, solved in full (general_sharing.hpp).
//
// The problems they solve are stated in their headers. A solver reports what it changes to
// a Listener as it changes it, so that the flow network can track each flow's progress.
// Flow and resource ids are dense: flow ids of removed flows are reused.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace pssim::net {

class SharingSolver {
 public:
  using ResourceId = std::uint32_t;
  using FlowId = std::uint32_t;
  static constexpr ResourceId kNone = std::numeric_limits<ResourceId>::max();
  /// Resources a flow crosses (a path); general sharing allows twice as many (a path and
  /// its reverse path, for TCP's ACKs).
  static constexpr std::size_t kMaxRoute = 8;
  static constexpr std::size_t kMaxGeneralRoute = 2 * kMaxRoute;

  class Listener {
   public:
    virtual ~Listener() = default;
    /// Max-min: the level of bottleneck resource r changed (old or new may be 0: not a
    /// bottleneck).
    virtual void level_changed(ResourceId /*r*/, double /*old_level*/, double /*new_level*/) {}
    /// Max-min: flow f moved from bottleneck `from` to `to` (kNone: it was just added / removed).
    virtual void bottleneck_changed(FlowId /*f*/, ResourceId /*from*/, ResourceId /*to*/) {}
    /// General sharing: flow f's rate changed (old 0: just placed).
    virtual void rate_changed(FlowId /*f*/, double /*old_rate*/, double /*new_rate*/) {}
  };

  /// How a flow shares under general sharing (the defaults: as under max-min).
  struct FlowShape {
    double weight = 1.0;                                   ///< w_f > 0
    double cap = std::numeric_limits<double>::infinity();  ///< u_f > 0, bytes/s
    std::uint32_t priority = 0;                            ///< class; 0 is served first
    std::span<const double> coefficients;                  ///< a_rf > 0 per route entry; empty: all 1
  };

  struct Stats {
    std::uint64_t incremental_updates = 0;  ///< flows added or removed without a full solve
    std::uint64_t full_solves = 0;
    std::uint64_t reaccounts = 0;
  };

  /// Which solver make_solver() builds.
  enum class Sharing { MaxMin, General };

  virtual ~SharingSolver() = default;

  /// Adds a flow over `route` (distinct resources); its rate is known after the next
  /// solve(). Throws std::invalid_argument for a bad route or shape (and std::logic_error
  /// for a shape other than the default on a solver that shares every flow alike).
  virtual FlowId add_flow(std::span<const ResourceId> route, const FlowShape& shape) = 0;
  FlowId add_flow(std::span<const ResourceId> route) { return add_flow(route, FlowShape{}); }
  /// Removes a flow; takes effect at the next solve().
  virtual void remove_flow(FlowId f) = 0;
  /// Brings every rate up to date after the adds, removes and capacity changes since the
  /// last call.
  virtual void solve() = 0;
  /// Changes resource r's capacity (bytes/s, >= 0 and finite); takes effect at the next
  /// solve(). Capacity 0 is a failed link: the flows crossing it get rate 0.
  virtual void set_capacity(ResourceId r, double capacity) = 0;
  virtual double capacity(ResourceId r) const = 0;
  virtual double rate(FlowId f) const = 0;
  /// Flow f's route; the span is valid until the next add_flow().
  virtual std::span<const ResourceId> route(FlowId f) const = 0;
  /// Flows currently crossing r (unordered).
  virtual std::span<const FlowId> flows_at(ResourceId r) = 0;
  virtual std::size_t active_flows() const = 0;
  virtual std::size_t resource_count() const = 0;
  virtual const Stats& stats() const = 0;
};

/// Throws unless `route` crosses 1 to `max_length` distinct resources, each < `resources`.
void check_route(std::span<const SharingSolver::ResourceId> route, std::size_t max_length, std::size_t resources);

/// The solver of `sharing` over resources of these capacities (each > 0 and finite).
std::unique_ptr<SharingSolver> make_solver(std::vector<double> capacities, SharingSolver::Listener* listener,
                                           SharingSolver::Sharing sharing);

}  // namespace pssim::net
