// MaxMinSolver: max-min fair rates of flows over shared resources, kept up to date
// incrementally as flows come and go.
//
// The problem (the flow-level model SimGrid validated, "CM02" without cross-traffic):
//   resources r with capacity C_r > 0 (bytes/s); flows f, each crossing a set R_f of
//   resources. Find rates x_f >= 0 with  sum_{f : r in R_f} x_f <= C_r  for every r,
//   that are max-min fair: no rate can grow without shrinking a rate that is not larger.
// Progressive filling solves it: raise every rate together; when a resource fills up,
// freeze the flows crossing it at the current level; continue with the others.
// Its solution has a structure this class maintains:
//   - every flow f has a *bottleneck* b(f) in R_f, a saturated resource, and x_f = L_b(f);
//   - a saturated resource r has a *level* L_r = (C_r - S_r) / n_r, where n_r >= 1 flows
//     have r as bottleneck and S_r is the sum of the rates of the other ("foreign") flows
//     crossing r, all of which are bottlenecked at resources of level <= L_r;
//   - an unsaturated resource carries less than its capacity.
//
// Incremental updates (the common case, O(route length) per flow): a new flow joins the
// saturated resource of lowest prospective level on its route; a leaving flow leaves its
// bottleneck; levels are re-derived along "foreign" edges in level order. The result is
// then *verified*: foreign flows never exceed a level, and unsaturated resources stay
// below capacity. The latter uses a certificate instead of exact loads (which would cost
// O(flows) when a heavily shared level moves): each flow carries an "accounted" rate,
// A_r sums them over an unsaturated r, and inc_b bounds how far the rates of flows
// bottlenecked at b rose since they were accounted, so that
//     load_r <= A_r + n_r * max_b inc_b  < C_r      is checked in O(log R).
// When the certificate is too weak, the bottleneck with the largest inc is re-accounted
// (O(its flows)); when a check fails, the structure changed and a full progressive
// filling runs (ProgressiveFilling, progressive_filling.hpp): O(F * route length + R log R).
// The result is exact either way (up to
// floating-point rounding); tests compare it with an independent full solution.
//
// Lone flows: a flow that crosses only resources no other flow crosses (around an
// all-reduce ring, every flow) is placed without being entered in its resources' flow
// lists, and the certificate bookkeeping of its non-bottleneck resources (their accounted
// sums and keys) is put off until something could read it: a flow sharing one of its
// resources, a certificate check with a positive increase bound, a full solve, or
// flows_at(). Its bottleneck and level are set, and reported, as for any flow. Putting the
// bookkeeping off changes no result: the state it leaves when it is caught up is the one
// the bookkeeping would have left (flow lists, accounted sums, valid keys), and until
// then nothing depends on it (see settle_lone()). Around a 1,024-worker ring it cut the
// solver's instructions per flow by 30 %.
//
// Changes are reported to a Listener as they are made (level changes of bottleneck
// resources, flows changing bottleneck), so that a flow's progress can be tracked per
// bottleneck group ("processor sharing": all flows of a group move at its level).
//
// Weighted sharing, rate caps, coefficients and priority classes are another strategy:
// GeneralSharingSolver (general_sharing.hpp), behind the same interface (sharing_solver.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "sim/net/progressive_filling.hpp"
#include "sim/net/sharing_solver.hpp"

namespace pssim::net {

class MaxMinSolver final : public SharingSolver {
 public:
  /// An unsaturated resource with at most this many flows is scanned to decide exactly
  /// whether a new flow would make it a bottleneck (instead of solving in full).
  static constexpr std::size_t kExactScanLimit = 64;

  explicit MaxMinSolver(std::vector<double> capacities, Listener* listener = nullptr);

  /// Adds a flow over `route` (distinct resources, at most kMaxRoute). Its rate is known
  /// after the next solve(). Reuses ids of removed flows.
  FlowId add_flow(std::span<const ResourceId> route) { return new_flow(route); }
  /// The same; a shape other than the default throws std::logic_error (every flow alike:
  /// weights, caps, coefficients and classes are GeneralSharingSolver's).
  FlowId add_flow(std::span<const ResourceId> route, const FlowShape& shape) override;
  /// Removes a flow; takes effect at the next solve().
  void remove_flow(FlowId f) override;
  /// Brings every rate up to date after the adds, removes and capacity changes since the
  /// last call.
  void solve() override;
  /// Changes resource r's capacity (bytes/s, >= 0 and finite); takes effect at the next
  /// solve(), which then solves in full (capacity changes are rare events: a link that
  /// degrades, fails or comes back). Capacity 0 is a failed link: the flows crossing it
  /// get rate 0 (bottlenecked there at level 0) until it has capacity again.
  void set_capacity(ResourceId r, double capacity) override;

  double rate(FlowId f) const override {
    const Flow& fl = flows_[f];
    return fl.bottleneck == kNone ? 0.0 : resources_[fl.bottleneck].level;
  }
  /// The bottleneck of f (kNone before it is placed).
  ResourceId bottleneck(FlowId f) const { return flows_[f].bottleneck; }
  /// Level of a bottleneck resource, or 0 when no flow is bottlenecked there.
  double level(ResourceId r) const { return resources_[r].bottlenecked > 0 ? resources_[r].level : 0.0; }
  double capacity(ResourceId r) const override { return resources_[r].capacity; }
  /// Flow f's route; the span is valid until the next add_flow().
  std::span<const ResourceId> route(FlowId f) const override { return {route_of(f), flows_[f].length}; }
  /// Flows currently crossing r (unordered). Not const: catches up the lone flows' lists.
  std::span<const FlowId> flows_at(ResourceId r) override {
    settle_lone();
    return resources_[r].flows;
  }
  std::size_t active_flows() const override { return active_; }
  std::size_t resource_count() const override { return resources_.size(); }
  const Stats& stats() const override { return stats_; }

  /// Whether lone flows skip the flow lists and put their bookkeeping off (default: yes).
  /// Results are the same either way: tests compare the two.
  void set_lone_shortcut(bool on) {
    if (!on) settle_lone();
    lone_shortcut_ = on;
  }

  /// Recomputes everything from scratch (progressive filling). solve() calls it when the
  /// incremental path cannot certify its result; tests call it directly.
  void full_solve();

 private:
  FlowId new_flow(std::span<const ResourceId> route);  // validates, allocates, queues

  // (resource, count) pairs kept sorted by resource: small in practice.
  using CountMap = std::vector<std::pair<ResourceId, std::uint32_t>>;

  // 16 bytes; its route and positions live in links_.
  struct Flow {
    std::uint8_t length = 0;
    bool active = false;
    bool placed = false;  // counted in the solution (false while pending)
    // Placed as a lone flow: in no flow list, its index in lone_ in its first position
    // slot, its rate not yet booked on its other resources (see settle_lone()).
    bool lone = false;
    ResourceId bottleneck = kNone;
    double accounted = 0;  // rate booked in A_r of the unsaturated resources it crosses
  };
  struct Resource {
    double capacity = 0;
    std::vector<FlowId> flows;       // placed flows crossing r
    std::uint32_t bottlenecked = 0;  // n_r
    FlowId lone = kNone;             // the lone flow crossing r (then `flows` is empty)
    double level = 0;                // L_r, valid when bottlenecked > 0
    CountMap foreign;                // bottleneck -> count of foreign flows (saturated r only)
    CountMap dependents;             // saturated resource -> count of my flows crossing it
    double accounted = 0;            // A_r (unsaturated r only)
    double increase = 0;             // inc_r: bound on rate growth of my flows since accounted
    double key = std::numeric_limits<double>::infinity();  // key in keys_ (valid entry)
    double increase_bound = 0;       // value in increases_ (valid entry)
    std::uint32_t key_version = 0;   // invalidates stale heap entries
    std::uint32_t inc_version = 0;
  };

  bool saturated(ResourceId r) const { return resources_[r].bottlenecked > 0; }
  // Flow id's route (length entries) and, for each, its index in that resource's flows.
  ResourceId* route_of(FlowId id) { return &links_[id * 2 * width_]; }
  const ResourceId* route_of(FlowId id) const { return &links_[id * 2 * width_]; }
  std::uint32_t* position_of(FlowId id) { return &links_[id * 2 * width_ + width_]; }
  void widen(std::size_t width);
  static void count_add(CountMap& m, ResourceId r, std::int64_t delta);
  void attach(FlowId f);       // adds f to its resources' flow lists, placed
  void enter_lists(FlowId f);  // the lists alone (attach(), settle_lone())
  void detach(FlowId f);
  // Sets L_r and tells the listener; with track_increase, also raises or lowers inc_r by
  // the change (a caller that resets inc_r itself passes false).
  void set_level(ResourceId r, double level, bool track_increase = true);
  void set_bottleneck(FlowId f, ResourceId b);
  void reset_resource(ResourceId r, double level);
  void mark_unclear(ResourceId r) { unclear_[r / 64] |= std::uint64_t{1} << (r % 64); }
  double foreign_load(ResourceId r) const;
  // Brings r's certificate key up to date (see maxmin_solver.cpp): inline, as it runs a
  // few times per flow added or removed.
  void touch_key(ResourceId r) {
    Resource& res = resources_[r];
    if (res.bottlenecked > 0 || res.flows.empty()) {  // not an unsaturated resource in use
      ++res.key_version;
      res.key = std::numeric_limits<double>::infinity();
      return;
    }
    const double key = (res.capacity - res.accounted) / static_cast<double>(res.flows.size());
    if (!(key >= res.key)) queue_key(r, key);  // else the heap already holds a smaller (more pessimistic) key
  }
  void queue_key(ResourceId r, double key);
  // Brings bottleneck r's increase bound up to date: inline, like touch_key().
  void touch_increase(ResourceId r) {
    Resource& res = resources_[r];
    if (res.bottlenecked == 0 || res.increase == 0) {
      ++res.inc_version;
      res.increase_bound = 0;
      return;
    }
    if (!(res.increase <= res.increase_bound)) queue_increase(r);  // else the heap already holds a larger bound
  }
  void queue_increase(ResourceId r);
  void complete_keys();
  void clear_keys();
  double min_key();
  double max_increase();
  void reaccount(ResourceId b);
  void reaccount_flows_at(ResourceId r);

  bool try_remove(FlowId f);
  bool try_add(FlowId f);
  bool add_lone(FlowId f);     // places f as a lone flow if it is one; false (no change) if not
  void remove_lone(FlowId f);  // try_remove() for a lone flow
  bool touches_lone(FlowId f) const;
  // Enters every lone flow in its resources' lists and books its rate on its other
  // resources, as placing it the ordinary way would have: O(lone flows x route length).
  void settle_lone();
  bool add_alone(FlowId f);  // try_add() for a flow alone on its route
  void settle_added(FlowId f, ResourceId best, bool new_bottleneck, double carried_increase);
  void settle_level(FlowId f, ResourceId best, bool new_bottleneck, double carried_increase);
  void book_rate(FlowId f);
  void take_over(FlowId f, ResourceId u);
  void release_bottleneck(ResourceId b);
  bool propagate();
  bool certify();

  std::vector<Resource> resources_;
  std::vector<Flow> flows_;
  // Per flow, 2 x width_ entries: its route, then its positions. width_ is the longest
  // route so far (2 in a star, 4 in two tiers): a flow takes 16 + 8 x width_ bytes, not
  // 16 + 8 x kMaxRoute.
  std::vector<std::uint32_t> links_;
  std::size_t width_ = 1;
  std::vector<FlowId> free_ids_;
  std::vector<FlowId> pending_add_, pending_remove_;
  std::vector<FlowId> lone_;  // the lone flows (Flow::lone), in no particular order
  bool lone_shortcut_ = true;
  std::size_t active_ = 0;
  std::size_t placed_ = 0;  // flows placed: attached to their resources' lists, or lone
  // Bit r: resource r may differ from what a full solve leaves a resource without flows
  // (its flows were removed for a full solve, or it kept a residue); only these need
  // clearing when the last flows leave (full_solve() with nothing placed).
  std::vector<std::uint64_t> unclear_;
  bool capacity_changed_ = false;  // set_capacity since the last solve(): solve in full
  Listener* listener_;
  Stats stats_;

  // Work lists of one solve().
  std::vector<ResourceId> changed_;  // levels changed: verify and propagate
  // Whether this solve's changes may move a level propagate() would re-derive: false while
  // every flow added was alone on its route (its level is final) and every flow removed
  // left its bottleneck empty and crossed no other saturated resource.
  bool needs_propagation_ = false;
  std::vector<bool> in_changed_;
  ProgressiveFilling filling_;  // the full solve
  // Buffers of the incremental path, kept to avoid allocating on every call.
  struct Scratch {
    std::vector<std::pair<double, ResourceId>> propagation;  // binary min-heap
    std::vector<std::pair<double, FlowId>> rates;   // try_add: (rate, flow) at a resource
    std::vector<FlowId> switching;                  // try_add: flows a new bottleneck takes over
  } scratch_;
  // Certificate heaps (lazy deletion by version).
  using HeapEntry = std::pair<double, std::pair<ResourceId, std::uint32_t>>;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> keys_;  // (C - A) / n, unsaturated
  // Keys >= 0 not in keys_ while keys_complete_ is false: (resource, key_version); see touch_key().
  std::vector<std::pair<ResourceId, std::uint32_t>> parked_;
  bool keys_complete_ = false;
  std::priority_queue<HeapEntry> increases_;                                    // inc, bottlenecks
};

}  // namespace pssim::net
