// MaxMinSolver under Sharing::General: weights, rate caps, consumption coefficients and
// strict priority classes (the problem is stated in maxmin_solver.hpp). A full
// progressive filling on every solve(), class after class.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/net/maxmin_solver.hpp"

namespace pssim::net {

MaxMinSolver::FlowId MaxMinSolver::add_flow(std::span<const ResourceId> route, const FlowShape& shape) {
  if (!general_) throw std::logic_error("flow weights, caps, coefficients and classes need Sharing::General");
  if (!(shape.weight > 0) || !std::isfinite(shape.weight))
    throw std::invalid_argument(fmt::format("a flow's weight must be positive and finite, not {}", shape.weight));
  if (!(shape.cap > 0)) throw std::invalid_argument(fmt::format("a flow's rate cap must be positive, not {}", shape.cap));
  if (!shape.coefficients.empty() && shape.coefficients.size() != route.size())
    throw std::invalid_argument("a flow needs one coefficient per resource of its route");
  for (double a : shape.coefficients)
    if (!(a > 0) || !std::isfinite(a))
      throw std::invalid_argument(fmt::format("a flow's coefficient must be positive and finite, not {}", a));
  const FlowId id = new_flow(route, kMaxGeneralRoute);
  if (general_flows_.size() < flows_.size()) {
    general_flows_.resize(flows_.size());
    general_coefficients_.resize(flows_.size() * kMaxGeneralRoute, 1.0);
  }
  general_flows_[id] = {shape.weight, shape.cap, 0.0, shape.priority};
  for (std::size_t i = 0; i < route.size(); ++i)
    general_coefficients_[id * kMaxGeneralRoute + i] = shape.coefficients.empty() ? 1.0 : shape.coefficients[i];
  return id;
}

// Progressive filling of one level per class. Within a class, an unfrozen flow runs at
// w_f L; resource r saturates at L_r = remaining_r / usage_r (usage_r = sum of a_rf w_f
// over its unfrozen flows of the class) and a capped flow at u_f / w_f. The smallest of
// these comes next: a resource freezes its unfrozen flows of the class at w_f L_r, a cap
// freezes its flow at u_f. As in full_solve(), a resource's queued key is not updated
// each time one of its flows freezes elsewhere: its level only rises then, so a stale
// (lower) key is re-queued at the true value when it surfaces.
void MaxMinSolver::general_solve() {
  for (FlowId id : pending_remove_) {
    detach(id);
    general_flows_[id].rate = 0;
    free_ids_.push_back(id);
  }
  auto& g = general_scratch_;
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
  const auto cap_level = [&](FlowId id) { return general_flows_[id].cap / general_flows_[id].weight; };
  std::sort(placed.begin(), placed.end(), [&](FlowId a, FlowId b) {
    const GeneralFlow &x = general_flows_[a], &y = general_flows_[b];
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
    const double w = general_flows_[id].weight;
    for (std::size_t i = 0; i < f.length; ++i) {
      const ResourceId r = route_of(id)[i];
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
    const std::uint32_t cls = general_flows_[placed[begin]].priority;
    while (end < placed.size() && general_flows_[placed[end]].priority == cls) ++end;
    queue.clear();
    for (std::size_t k = begin; k < end; ++k) {
      const FlowId id = placed[k];
      g.frozen[id] = 0;
      const Flow& f = flows_[id];
      for (std::size_t i = 0; i < f.length; ++i) {
        const ResourceId r = route_of(id)[i];
        if (unfrozen_at[r]++ == 0) g.usage[r] = 0;
        g.usage[r] += coefficient(id, i) * general_flows_[id].weight;
      }
    }
    // One queue entry per resource the class crosses.
    for (std::size_t k = begin; k < end; ++k)
      for (std::size_t i = 0; i < flows_[placed[k]].length; ++i) {
        const ResourceId r = route_of(placed[k])[i];
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
        freeze(placed[next_cap], general_flows_[placed[next_cap]].cap);
        --left;
        continue;
      }
      if (r == kNone) throw std::logic_error("max-min solver: unfrozen flows on no resource");
      std::pop_heap(queue.begin(), queue.end(), later);
      queue.pop_back();
      last_level = std::max(last_level, level);  // rounding must not make a level fall
      for (FlowId id : resources_[r].flows) {
        if (g.frozen[id]) continue;
        freeze(id, general_flows_[id].weight * last_level);
        --left;
      }
    }
    begin = end;
  }

  // Install and report: changed rates, and every newly placed flow.
  for (std::size_t k = 0; k < fresh; ++k) {
    const FlowId id = order[k];
    general_flows_[id].rate = g.rates[id];
    if (listener_) listener_->rate_changed(id, 0.0, g.rates[id]);
    g.frozen[id] = 2;  // reported
  }
  for (FlowId id : placed) {
    if (g.frozen[id] == 2) continue;
    const double old = general_flows_[id].rate;
    general_flows_[id].rate = g.rates[id];
    if (listener_ && old != g.rates[id]) listener_->rate_changed(id, old, g.rates[id]);
  }
  ++stats_.full_solves;
}

}  // namespace pssim::net
