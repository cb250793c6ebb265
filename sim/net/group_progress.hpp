// GroupProgress: flows under max-min sharing, tracked per bottleneck group (a
// FlowNetwork::Progress, progress_tracker.hpp).
//
// All flows bottlenecked at resource r move at r's level (processor sharing), so the group
// keeps one "virtual" byte counter V_r(t) = integral of the level, and a flow finishes when
// V_r reaches the value it was given on joining (Message::finish). A level change costs
// O(log n) instead of touching every flow; a flow changing group O(log n + route length).
// Each group's members wait in a min-heap of finishes; a heap of group end times (`due_`)
// says which group ends next.
//
// Meters (the network's utilization recording): each group knows how many of its members
// cross each recorded direction (its footprint), so a level change moves the meters'
// rates in O(recorded directions its members cross).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/core/run_heap.hpp"
#include "sim/net/maxmin_solver.hpp"
#include "sim/net/progress_tracker.hpp"

namespace pssim::net {

class FlowNetwork::GroupProgress final : public FlowNetwork::Progress, private SharingSolver::Listener {
 public:
  GroupProgress(FlowNetwork& network, std::vector<double> capacities);

  SharingSolver& solver() override { return solver_; }
  void start(std::uint32_t m) override;
  TimeNs next_completion() override;
  void collect_due(std::vector<std::pair<std::uint64_t, std::uint32_t>>& done) override;
  void end(std::uint32_t m) override;
  double moved(std::uint32_t m, TimeNs t) const override;
  bool forward(std::uint32_t, ResourceId) const override { return true; }
  bool follows_dynamics() const override { return true; }

 private:
  using ResourceId = SharingSolver::ResourceId;
  // Equal finishes are ordered by message index, not send order: every member that ends
  // at a completion event is collected whatever the order, and deliveries are sorted by
  // send order anyway. 16 bytes: a group holds one per member.
  struct HeapItem {
    double finish;
    std::uint32_t message;
    std::uint32_t epoch;
    bool operator>(const HeapItem& o) const { return finish != o.finish ? finish > o.finish : message > o.message; }
  };
  // A binary min-heap on a vector whose capacity survives clear() up to 4,096 entries (no
  // allocation when a small group empties and fills again, as every group does each
  // round; a group of a million members gives its 16 MB back). `max_finish` is the
  // largest finish pushed since the last clear(): an upper bound of the live entries'
  // finishes, which tells when a whole group ends at once.
  struct MinHeap {
    std::vector<HeapItem> items;
    double max_finish = 0;
    bool empty() const { return items.empty(); }
    const HeapItem& top() const { return items.front(); }
    void push(const HeapItem& x) {
      items.push_back(x);
      std::push_heap(items.begin(), items.end(), std::greater<>());
      max_finish = std::max(max_finish, x.finish);
    }
    void pop() {
      std::pop_heap(items.begin(), items.end(), std::greater<>());
      items.pop_back();
    }
    void clear() {
      if (items.capacity() > 4096) std::vector<HeapItem>().swap(items);
      else items.clear();
      max_finish = 0;
    }
  };
  struct Group {
    double v = 0;        // bytes moved per flow since the group formed
    TimeNs updated = 0;  // time of v
    double level = 0;    // bytes/s
    std::uint32_t members = 0;
    std::uint32_t version = 0;
    MinHeap heap;
  };
  struct Due {
    TimeNs time;
    ResourceId group;
    std::uint32_t version;
    bool operator>(const Due& o) const { return time != o.time ? time > o.time : group > o.group; }
  };
  // (meter, members of a group crossing it), sorted by meter: small in practice.
  using Footprint = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

  // SharingSolver::Listener
  void level_changed(ResourceId r, double old_level, double new_level) override;
  void bottleneck_changed(SharingSolver::FlowId f, ResourceId from, ResourceId to) override;

  void advance(Group& g);
  void mark_dirty(ResourceId r) {
    if (!group_dirty_[r]) group_dirty_[r] = true, dirty_groups_.push_back(r);
  }
  void refresh_due(ResourceId r);
  void move_between_groups(const Message& msg, ResourceId from, ResourceId to);
  static void footprint_add(Footprint& f, std::uint32_t meter, int delta);

  FlowNetwork& net_;
  MaxMinSolver solver_;
  std::vector<Group> groups_;  // one per resource
  RunHeap<Due> due_;           // group end times; in a ring they arrive in order
  std::vector<ResourceId> dirty_groups_;
  std::vector<bool> group_dirty_;
  std::vector<Footprint> footprint_;  // per group (bottleneck resource), while meters record
};

}  // namespace pssim::net
