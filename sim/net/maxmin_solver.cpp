#include "sim/net/maxmin_solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::net {
namespace {

// Relative slack for comparisons between levels computed along different arithmetic
// paths: a violation smaller than this is rounding, not a changed structure.
constexpr double kTolerance = 1e-12;

}  // namespace

MaxMinSolver::MaxMinSolver(std::vector<double> capacities, Listener* listener) : listener_(listener) {
  resources_.resize(capacities.size());
  for (std::size_t r = 0; r < capacities.size(); ++r) {
    if (!(capacities[r] > 0) || !std::isfinite(capacities[r]))
      throw std::invalid_argument(fmt::format("resource {} needs a positive, finite capacity", r));
    resources_[r].capacity = capacities[r];
  }
  in_changed_.assign(capacities.size(), false);
}

std::span<const MaxMinSolver::ResourceId> MaxMinSolver::route(FlowId f) const {
  return {flows_[f].route, flows_[f].length};
}

double MaxMinSolver::rate(FlowId f) const {
  const Flow& fl = flows_[f];
  return fl.bottleneck == kNone ? 0.0 : resources_[fl.bottleneck].level;
}

MaxMinSolver::FlowId MaxMinSolver::add_flow(std::span<const ResourceId> route) {
  if (route.empty() || route.size() > kMaxRoute)
    throw std::invalid_argument(fmt::format("a flow crosses 1 to {} resources, not {}", kMaxRoute, route.size()));
  for (std::size_t i = 0; i < route.size(); ++i) {
    if (route[i] >= resources_.size()) throw std::out_of_range("flow over an unknown resource");
    for (std::size_t j = 0; j < i; ++j)
      if (route[j] == route[i]) throw std::invalid_argument("a flow crosses a resource twice");
  }
  FlowId id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[id];
  std::copy(route.begin(), route.end(), f.route);
  f.length = static_cast<std::uint8_t>(route.size());
  f.active = true;
  f.placed = false;
  f.bottleneck = kNone;
  f.accounted = 0;
  pending_add_.push_back(id);
  ++active_;
  return id;
}

void MaxMinSolver::remove_flow(FlowId f) {
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

// ---- small helpers -------------------------------------------------------------------------

void MaxMinSolver::count_add(CountMap& m, ResourceId r, std::int64_t delta) {
  auto it = std::lower_bound(m.begin(), m.end(), r, [](const auto& e, ResourceId x) { return e.first < x; });
  if (it != m.end() && it->first == r) {
    const std::int64_t c = static_cast<std::int64_t>(it->second) + delta;
    if (c < 0) throw std::logic_error("max-min solver: negative edge count");
    if (c == 0) m.erase(it);
    else it->second = static_cast<std::uint32_t>(c);
  } else {
    if (delta < 0) throw std::logic_error("max-min solver: removing a missing edge");
    m.insert(it, {r, static_cast<std::uint32_t>(delta)});
  }
}

void MaxMinSolver::attach(FlowId id) {
  Flow& f = flows_[id];
  for (std::size_t i = 0; i < f.length; ++i) {
    auto& list = resources_[f.route[i]].flows;
    f.position[i] = static_cast<std::uint32_t>(list.size());
    list.push_back(id);
  }
  f.placed = true;
}

void MaxMinSolver::detach(FlowId id) {
  Flow& f = flows_[id];
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = f.route[i];
    auto& list = resources_[r].flows;
    const std::uint32_t pos = f.position[i];
    const FlowId moved = list.back();
    list[pos] = moved;
    list.pop_back();
    if (moved != id) {
      Flow& m = flows_[moved];
      for (std::size_t j = 0; j < m.length; ++j)
        if (m.route[j] == r) m.position[j] = pos;
    }
  }
  f.placed = false;
}

void MaxMinSolver::set_bottleneck(FlowId f, ResourceId b) {
  const ResourceId old = flows_[f].bottleneck;
  flows_[f].bottleneck = b;
  if (listener_ && old != b) listener_->bottleneck_changed(f, old, b);
}

void MaxMinSolver::set_level(ResourceId r, double level) {
  Resource& res = resources_[r];
  const double old = res.level;
  if (old == level) return;
  res.level = level;
  // inc_r bounds how much the rates of r's flows grew since they were accounted.
  res.increase = level > old ? res.increase + (level - old) : std::max(0.0, res.increase - (old - level));
  touch_increase(r);
  if (listener_) listener_->level_changed(r, old, level);
}

double MaxMinSolver::foreign_load(ResourceId r) const {
  double sum = 0;
  for (const auto& [b, count] : resources_[r].foreign) sum += count * resources_[b].level;
  return sum;
}

void MaxMinSolver::touch_key(ResourceId r) {
  Resource& res = resources_[r];
  ++res.key_version;
  if (res.bottlenecked == 0 && !res.flows.empty())
    keys_.push({(res.capacity - res.accounted) / static_cast<double>(res.flows.size()), {r, res.key_version}});
  if (keys_.size() > 4 * resources_.size() + 1024) {  // drop stale entries
    std::vector<HeapEntry> live;
    for (; !keys_.empty(); keys_.pop())
      if (resources_[keys_.top().second.first].key_version == keys_.top().second.second) live.push_back(keys_.top());
    keys_ = decltype(keys_)(std::greater<>(), std::move(live));
  }
}

void MaxMinSolver::touch_increase(ResourceId r) {
  Resource& res = resources_[r];
  ++res.inc_version;
  if (res.bottlenecked > 0 && res.increase > 0) increases_.push({res.increase, {r, res.inc_version}});
  if (increases_.size() > 4 * resources_.size() + 1024) {
    std::vector<HeapEntry> live;
    for (; !increases_.empty(); increases_.pop())
      if (resources_[increases_.top().second.first].inc_version == increases_.top().second.second)
        live.push_back(increases_.top());
    increases_ = decltype(increases_)(std::less<HeapEntry>(), std::move(live));
  }
}

double MaxMinSolver::min_key() {
  while (!keys_.empty()) {
    const auto& [key, id] = keys_.top();
    if (resources_[id.first].key_version == id.second) return key;
    keys_.pop();
  }
  return std::numeric_limits<double>::infinity();
}

double MaxMinSolver::max_increase() {
  while (!increases_.empty()) {
    const auto& [inc, id] = increases_.top();
    if (resources_[id.first].inc_version == id.second) return inc;
    increases_.pop();
  }
  return 0.0;
}

void MaxMinSolver::reaccount(ResourceId b) {
  Resource& res = resources_[b];
  for (FlowId id : res.flows) {
    Flow& f = flows_[id];
    if (f.bottleneck != b) continue;
    const double delta = res.level - f.accounted;
    f.accounted = res.level;
    for (std::size_t i = 0; i < f.length; ++i) {
      const ResourceId r = f.route[i];
      if (r == b || saturated(r)) continue;
      resources_[r].accounted += delta;
      touch_key(r);
    }
  }
  res.increase = 0;
  touch_increase(b);
  ++stats_.reaccounts;
}

// ---- incremental path ----------------------------------------------------------------------

bool MaxMinSolver::try_remove(FlowId id) {
  Flow& f = flows_[id];
  const ResourceId b = f.bottleneck;
  detach(id);
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = f.route[i];
    if (r == b) continue;
    if (saturated(r)) {
      count_add(resources_[r].foreign, b, -1);
      count_add(resources_[b].dependents, r, -1);
      if (!in_changed_[r]) in_changed_[r] = true, changed_.push_back(r);
    } else {
      resources_[r].accounted -= f.accounted;
      touch_key(r);
    }
  }
  Resource& res = resources_[b];
  --res.bottlenecked;
  set_bottleneck(id, kNone);
  if (res.bottlenecked == 0) {
    // b is no longer a bottleneck: its remaining (foreign) flows keep their rates.
    const double old = res.level;
    res.level = 0;
    res.increase = 0;
    touch_increase(b);
    if (listener_) listener_->level_changed(b, old, 0);
    for (const auto& [r, count] : res.foreign) count_add(resources_[r].dependents, b, -static_cast<std::int64_t>(count));
    res.foreign.clear();
    res.accounted = 0;
    for (FlowId g : res.flows) res.accounted += flows_[g].accounted;
    touch_key(b);
  } else if (!in_changed_[b]) {
    in_changed_[b] = true, changed_.push_back(b);
  }
  free_ids_.push_back(id);
  return true;
}

bool MaxMinSolver::try_add(FlowId id) {
  attach(id);
  Flow& f = flows_[id];
  ResourceId best = kNone;
  double best_level = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = f.route[i];
    if (!saturated(r)) continue;
    const Resource& res = resources_[r];
    const double candidate = (res.capacity - foreign_load(r)) / (res.bottlenecked + 1);
    if (candidate < best_level || (candidate == best_level && r < best)) best = r, best_level = candidate;
  }
  if (best == kNone || !(best_level > 0)) return false;  // a new bottleneck forms: solve in full
  const double slack_bound = max_increase();
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = f.route[i];
    if (saturated(r)) continue;
    const Resource& res = resources_[r];
    const double others = static_cast<double>(res.flows.size() - 1);
    if (res.capacity - res.accounted - others * slack_bound < best_level * (1 + kTolerance)) return false;
  }
  Resource& bres = resources_[best];
  ++bres.bottlenecked;
  set_bottleneck(id, best);
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = f.route[i];
    if (r == best || !saturated(r)) continue;
    count_add(resources_[r].foreign, best, +1);
    count_add(bres.dependents, r, +1);
    if (!in_changed_[r]) in_changed_[r] = true, changed_.push_back(r);
  }
  set_level(best, (bres.capacity - foreign_load(best)) / bres.bottlenecked);
  if (!in_changed_[best]) in_changed_[best] = true, changed_.push_back(best);
  f.accounted = bres.level;
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = f.route[i];
    if (saturated(r)) continue;
    resources_[r].accounted += f.accounted;
    touch_key(r);
  }
  return true;
}

// Re-derives the levels of changed saturated resources and of everything that depends on
// them, lowest level first, so that each level is computed from final foreign levels.
bool MaxMinSolver::propagate() {
  using Item = std::pair<double, ResourceId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  // Levels set directly by try_add have already moved: their dependents must follow.
  for (ResourceId r : changed_) {
    if (!saturated(r)) continue;
    queue.push({resources_[r].level, r});
    for (const auto& [d, count] : resources_[r].dependents) queue.push({resources_[d].level, d});
  }
  std::size_t budget = 8 * (queue.size() + 64);
  while (!queue.empty()) {
    if (budget-- == 0) return false;  // levels keep moving (ties in a cycle): solve in full
    const ResourceId r = queue.top().second;
    queue.pop();
    if (!saturated(r)) continue;
    Resource& res = resources_[r];
    const double level = (res.capacity - foreign_load(r)) / res.bottlenecked;
    if (level == res.level) continue;
    set_level(r, level);
    if (!in_changed_[r]) in_changed_[r] = true, changed_.push_back(r);
    for (const auto& [d, count] : res.dependents) queue.push({resources_[d].level, d});
  }
  return true;
}

bool MaxMinSolver::certify() {
  for (ResourceId r : changed_) {
    if (!saturated(r)) continue;
    const Resource& res = resources_[r];
    if (!(res.level > 0) || !std::isfinite(res.level)) return false;
    for (const auto& [b, count] : res.foreign)  // foreign flows are not faster than r's own
      if (resources_[b].level > res.level * (1 + kTolerance)) return false;
    for (const auto& [d, count] : res.dependents)  // r's flows are not faster than another level they cross
      if (res.level > resources_[d].level * (1 + kTolerance)) return false;
  }
  // Unsaturated resources stay below capacity: min_r (C_r - A_r) / n_r > max_b inc_b.
  std::size_t reaccounted = 0;
  for (;;) {
    const double key = min_key();
    const double bound = max_increase();
    if (key > bound * (1 + kTolerance)) return true;
    if (bound == 0) return false;  // a resource at or over capacity: the structure changed
    const ResourceId worst = increases_.top().second.first;
    reaccounted += resources_[worst].flows.size();
    if (reaccounted > active_ / 4 + 64) return false;
    reaccount(worst);
  }
}

// ---- full solve ----------------------------------------------------------------------------

void MaxMinSolver::full_solve() {
  const std::size_t n_res = resources_.size();
  std::vector<double> remaining(n_res);
  std::vector<std::uint32_t> unfrozen(n_res);
  std::vector<double> new_level(n_res, 0.0);
  std::vector<ResourceId> new_bottleneck(flows_.size(), kNone);
  std::vector<char> frozen(flows_.size(), 0);
  using Item = std::pair<double, ResourceId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  for (ResourceId r = 0; r < n_res; ++r) {
    remaining[r] = resources_[r].capacity;
    unfrozen[r] = static_cast<std::uint32_t>(resources_[r].flows.size());
    if (unfrozen[r] > 0) queue.push({remaining[r] / unfrozen[r], r});
  }
  double last_level = 0;
  while (!queue.empty()) {
    const auto [share, r] = queue.top();
    queue.pop();
    if (unfrozen[r] == 0 || share != remaining[r] / unfrozen[r]) continue;  // stale entry
    // Levels only rise during filling; rounding must not make one fall (or reach 0).
    const double level = std::max(share, last_level);
    last_level = level;
    new_level[r] = level;
    for (FlowId id : resources_[r].flows) {
      if (frozen[id]) continue;
      frozen[id] = 1;
      new_bottleneck[id] = r;
      const Flow& f = flows_[id];
      for (std::size_t i = 0; i < f.length; ++i) {
        const ResourceId other = f.route[i];
        if (other == r) continue;
        remaining[other] -= level;
        if (--unfrozen[other] > 0) queue.push({remaining[other] / unfrozen[other], other});
      }
    }
    unfrozen[r] = 0;
  }

  // Install the solution, reporting changes.
  for (ResourceId r = 0; r < n_res; ++r) {
    Resource& res = resources_[r];
    const double old = res.bottlenecked > 0 ? res.level : 0.0;
    res.level = new_level[r];
    res.bottlenecked = 0;
    res.foreign.clear();
    res.dependents.clear();
    res.accounted = 0;
    res.increase = 0;
    ++res.inc_version;
    if (listener_ && old != new_level[r]) listener_->level_changed(r, old, new_level[r]);
  }
  for (FlowId id = 0; id < flows_.size(); ++id) {
    Flow& f = flows_[id];
    if (!f.placed) continue;
    const ResourceId b = new_bottleneck[id];
    set_bottleneck(id, b);
    ++resources_[b].bottlenecked;
    f.accounted = new_level[b];
  }
  for (FlowId id = 0; id < flows_.size(); ++id) {
    const Flow& f = flows_[id];
    if (!f.placed) continue;
    for (std::size_t i = 0; i < f.length; ++i) {
      const ResourceId r = f.route[i];
      if (r == f.bottleneck) continue;
      if (resources_[r].bottlenecked > 0) {
        count_add(resources_[r].foreign, f.bottleneck, +1);
        count_add(resources_[f.bottleneck].dependents, r, +1);
      } else {
        resources_[r].accounted += f.accounted;
      }
    }
  }
  keys_ = {};
  increases_ = {};
  for (ResourceId r = 0; r < n_res; ++r) touch_key(r);
  ++stats_.full_solves;
}

void MaxMinSolver::solve() {
  if (pending_add_.empty() && pending_remove_.empty()) return;
  // A batch that replaces a good part of the flows is cheaper to solve in full.
  const std::size_t batch = pending_add_.size() + pending_remove_.size();
  bool incremental = batch <= std::max<std::size_t>(16, active_ / 4);
  for (FlowId id : pending_remove_) {
    if (incremental) {
      incremental = try_remove(id);
      ++stats_.incremental_updates;
      continue;
    }
    const ResourceId b = flows_[id].bottleneck;
    detach(id);
    if (b != kNone) set_bottleneck(id, kNone);
    free_ids_.push_back(id);
  }
  for (FlowId id : pending_add_) {
    if (incremental) {
      incremental = try_add(id);
      if (incremental) {
        ++stats_.incremental_updates;
        continue;
      }
      // try_add attached the flow; the full solve places it.
    } else {
      attach(id);
    }
  }
  pending_add_.clear();
  pending_remove_.clear();
  if (incremental) incremental = propagate() && certify();
  for (ResourceId r : changed_) in_changed_[r] = false;
  changed_.clear();
  if (!incremental) full_solve();
}

}  // namespace pssim::net
