// GeneralSharingSolver: see general_sharing.hpp for the problem it solves.
#include "sim/net/general_sharing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::net {

GeneralSharingSolver::GeneralSharingSolver(std::vector<double> capacities, Listener* listener) : listener_(listener) {
  resources_.resize(capacities.size());
  for (std::size_t r = 0; r < capacities.size(); ++r) {
    if (!(capacities[r] > 0) || !std::isfinite(capacities[r]))
      throw std::invalid_argument(fmt::format("resource {} needs a positive, finite capacity", r));
    resources_[r].capacity = capacities[r];
  }
}

GeneralSharingSolver::FlowId GeneralSharingSolver::add_flow(std::span<const ResourceId> route, const FlowShape& shape) {
  if (!(shape.weight > 0) || !std::isfinite(shape.weight))
    throw std::invalid_argument(fmt::format("a flow's weight must be positive and finite, not {}", shape.weight));
  if (!(shape.cap > 0)) throw std::invalid_argument(fmt::format("a flow's rate cap must be positive, not {}", shape.cap));
  if (!shape.coefficients.empty() && shape.coefficients.size() != route.size())
    throw std::invalid_argument("a flow needs one coefficient per resource of its route");
  for (double a : shape.coefficients)
    if (!(a > 0) || !std::isfinite(a))
      throw std::invalid_argument(fmt::format("a flow's coefficient must be positive and finite, not {}", a));
  check_route(route, kMaxGeneralRoute, resources_.size());
  FlowId id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
    routes_.resize(routes_.size() + kMaxGeneralRoute);
    coefficients_.resize(coefficients_.size() + kMaxGeneralRoute);
    positions_.resize(positions_.size() + kMaxGeneralRoute);
  }
  flows_[id] = {shape.weight, shape.cap, 0.0, shape.priority, static_cast<std::uint8_t>(route.size()), true, false};
  for (std::size_t i = 0; i < route.size(); ++i) {
    routes_[id * kMaxGeneralRoute + i] = route[i];
    coefficients_[id * kMaxGeneralRoute + i] = shape.coefficients.empty() ? 1.0 : shape.coefficients[i];
  }
  pending_add_.push_back(id);
  ++active_;
  return id;
}

void GeneralSharingSolver::remove_flow(FlowId f) {
  if (f >= flows_.size() || !flows_[f].active) throw std::invalid_argument("removing a flow that is not active");
  flows_[f].active = false;
  --active_;
  if (flows_[f].placed) {
    pending_remove_.push_back(f);
  } else {  // never solved: just forget it
    pending_add_.erase(std::find(pending_add_.begin(), pending_add_.end(), f));
    free_ids_.push_back(f);
  }
}

void GeneralSharingSolver::set_capacity(ResourceId r, double capacity) {
  if (r >= resources_.size()) throw std::out_of_range("capacity of an unknown resource");
  if (!(capacity >= 0) || !std::isfinite(capacity))
    throw std::invalid_argument(fmt::format("resource {} needs a finite capacity >= 0", r));
  if (resources_[r].capacity == capacity) return;
  resources_[r].capacity = capacity;
  capacity_changed_ = true;
}

// Flow lists: appended to, removed from by moving the last entry into the gap (the order
// of a list is the order flows freeze in, which rounding can see).
void GeneralSharingSolver::attach(FlowId id) {
  for (std::size_t i = 0; i < flows_[id].length; ++i) {
    auto& list = resources_[route_at(id, i)].flows;
    positions_[id * kMaxGeneralRoute + i] = static_cast<std::uint32_t>(list.size());
    list.push_back(id);
  }
  flows_[id].placed = true;
}

void GeneralSharingSolver::detach(FlowId id) {
  for (std::size_t i = 0; i < flows_[id].length; ++i) {
    const ResourceId r = route_at(id, i);
    auto& list = resources_[r].flows;
    const std::uint32_t pos = positions_[id * kMaxGeneralRoute + i];
    const FlowId moved = list.back();
    list[pos] = moved;
    list.pop_back();
    if (moved != id)
      for (std::size_t j = 0; j < flows_[moved].length; ++j)
        if (route_at(moved, j) == r) positions_[moved * kMaxGeneralRoute + j] = pos;
  }
  flows_[id].placed = false;
}

// Progressive filling of one level per class. Within a class, an unfrozen flow runs at
// w_f L; resource r saturates at L_r = remaining_r / usage_r (usage_r = sum of a_rf w_f
// over its unfrozen flows of the class) and a capped flow at u_f / w_f. The smallest of
// these comes next: a resource freezes its unfrozen flows of the class at w_f L_r, a cap
// freezes its flow at u_f. As in ProgressiveFilling, a resource's queued key is not updated
// each time one of its flows freezes elsewhere: its level only rises then, so a stale
// (lower) key is re-queued at the true value when it surfaces.
void GeneralSharingSolver::solve() {
  if (pending_add_.empty() && pending_remove_.empty() && !capacity_changed_) return;
  capacity_changed_ = false;  // a full solve, from the capacities as they are
  for (FlowId id : pending_remove_) {
    detach(id);
    flows_[id].rate = 0;
    free_ids_.push_back(id);
  }
  auto& g = scratch_;
  auto& order = g.order;
  order.clear();
  for (FlowId id : pending_add_) {
    attach(id);
    order.push_back(id);  // newly placed: always reported
  }
  pending_add_.clear();
  pending_remove_.clear();
  const std::size_t fresh = order.size();

  const std::size_t n_res = resources_.size();
  g.remaining.resize(n_res);
  g.usage.assign(n_res, 0.0);
  for (ResourceId r = 0; r < n_res; ++r) g.remaining[r] = resources_[r].capacity;
  g.rates.assign(flows_.size(), 0.0);
  g.frozen.assign(flows_.size(), 1);  // flows of other classes count as frozen while a class fills
  auto& unfrozen_at = g.unfrozen;
  unfrozen_at.assign(n_res, 0);
  g.queued.assign(n_res, 0);
  std::uint32_t cls_mark = 1;  // g.queued[r] == cls_mark: r is queued for the class being filled

  // Every placed flow, by class, then by cap level (the order caps are reached in).
  auto& placed = g.placed;
  placed.clear();
  for (FlowId id = 0; id < flows_.size(); ++id)
    if (flows_[id].placed) placed.push_back(id);
  const auto cap_level = [&](FlowId id) { return flows_[id].cap / flows_[id].weight; };
  std::sort(placed.begin(), placed.end(), [&](FlowId a, FlowId b) {
    const Flow &x = flows_[a], &y = flows_[b];
    if (x.priority != y.priority) return x.priority < y.priority;
    const double ca = cap_level(a), cb = cap_level(b);
    return ca != cb ? ca < cb : a < b;
  });

  auto& queue = g.queue;
  const auto later = [](const std::pair<double, ResourceId>& x, const std::pair<double, ResourceId>& y) { return x > y; };
  const auto key_of = [&](ResourceId r) { return std::max(0.0, g.remaining[r]) / g.usage[r]; };
  const auto push = [&](ResourceId r) {
    queue.emplace_back(key_of(r), r);
    std::push_heap(queue.begin(), queue.end(), later);
  };
  const auto freeze = [&](FlowId id, double rate) {
    g.frozen[id] = 1;
    g.rates[id] = rate;
    const Flow& f = flows_[id];
    const double w = flows_[id].weight;
    for (std::size_t i = 0; i < f.length; ++i) {
      const ResourceId r = route_at(id, i);
      const double a = coefficient(id, i);
      g.remaining[r] -= a * rate;
      if (--unfrozen_at[r] == 0) {
        g.usage[r] = 0;  // exactly: no rounding residue decides anything later
      } else {
        const double before = key_of(r);
        g.usage[r] -= a * w;
        if (!(g.usage[r] > 0)) g.usage[r] = 0;
        else if (key_of(r) < before) push(r);  // rounding made it fall: queue it now
      }
    }
  };

  for (std::size_t begin = 0; begin < placed.size();) {
    std::size_t end = begin;
    const std::uint32_t cls = flows_[placed[begin]].priority;
    while (end < placed.size() && flows_[placed[end]].priority == cls) ++end;
    queue.clear();
    for (std::size_t k = begin; k < end; ++k) {
      const FlowId id = placed[k];
      g.frozen[id] = 0;
      const Flow& f = flows_[id];
      for (std::size_t i = 0; i < f.length; ++i) {
        const ResourceId r = route_at(id, i);
        if (unfrozen_at[r]++ == 0) g.usage[r] = 0;
        g.usage[r] += coefficient(id, i) * flows_[id].weight;
      }
    }
    // One queue entry per resource the class crosses.
    for (std::size_t k = begin; k < end; ++k)
      for (std::size_t i = 0; i < flows_[placed[k]].length; ++i) {
        const ResourceId r = route_at(placed[k], i);
        if (g.queued[r] != cls_mark) g.queued[r] = cls_mark, queue.emplace_back(key_of(r), r);
      }
    ++cls_mark;
    std::make_heap(queue.begin(), queue.end(), later);

    std::size_t next_cap = begin;  // placed[begin, end) is sorted by cap level
    double last_level = 0;
    std::size_t left = end - begin;
    while (left > 0) {
      while (next_cap < end && g.frozen[placed[next_cap]]) ++next_cap;
      const double cap = next_cap < end ? cap_level(placed[next_cap]) : std::numeric_limits<double>::infinity();
      // The lowest resource level still valid.
      double level = std::numeric_limits<double>::infinity();
      ResourceId r = kNone;
      while (!queue.empty()) {
        const auto [key, top] = queue.front();
        if (unfrozen_at[top] == 0) {
          std::pop_heap(queue.begin(), queue.end(), later);
          queue.pop_back();
          continue;
        }
        if (const double current = key_of(top); key != current) {  // stale entry
          std::pop_heap(queue.begin(), queue.end(), later);
          queue.pop_back();
          if (key < current) push(top);
          continue;
        }
        level = key, r = top;
        break;
      }
      if (cap <= level) {  // a flow reaches its cap before any resource fills
        last_level = std::max(last_level, cap);
        freeze(placed[next_cap], flows_[placed[next_cap]].cap);
        --left;
        continue;
      }
      if (r == kNone) throw std::logic_error("max-min solver: unfrozen flows on no resource");
      std::pop_heap(queue.begin(), queue.end(), later);
      queue.pop_back();
      last_level = std::max(last_level, level);  // rounding must not make a level fall
      for (FlowId id : resources_[r].flows) {
        if (g.frozen[id]) continue;
        freeze(id, flows_[id].weight * last_level);
        --left;
      }
    }
    begin = end;
  }

  // Install and report: changed rates, and every newly placed flow.
  for (std::size_t k = 0; k < fresh; ++k) {
    const FlowId id = order[k];
    flows_[id].rate = g.rates[id];
    if (listener_) listener_->rate_changed(id, 0.0, g.rates[id]);
    g.frozen[id] = 2;  // reported
  }
  for (FlowId id : placed) {
    if (g.frozen[id] == 2) continue;
    const double old = flows_[id].rate;
    flows_[id].rate = g.rates[id];
    if (listener_ && old != g.rates[id]) listener_->rate_changed(id, old, g.rates[id]);
  }
  ++stats_.full_solves;
}

}  // namespace pssim::net
