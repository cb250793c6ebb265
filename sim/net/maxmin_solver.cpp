#include "sim/net/maxmin_solver.hpp"

#include <algorithm>
#include <bit>
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
  unclear_.assign((capacities.size() + 63) / 64, 0);
}

MaxMinSolver::FlowId MaxMinSolver::add_flow(std::span<const ResourceId> route, const FlowShape& shape) {
  if (shape.weight != 1.0 || shape.cap != std::numeric_limits<double>::infinity() || shape.priority != 0 ||
      !shape.coefficients.empty())
    throw std::logic_error("flow weights, caps, coefficients and classes need general sharing (GeneralSharingSolver)");
  return new_flow(route);
}

MaxMinSolver::FlowId MaxMinSolver::new_flow(std::span<const ResourceId> route) {
  check_route(route, kMaxRoute, resources_.size());
  if (route.size() > width_) widen(route.size());
  FlowId id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
    links_.resize(links_.size() + 2 * width_);
  }
  Flow& f = flows_[id];
  std::copy(route.begin(), route.end(), route_of(id));
  f.length = static_cast<std::uint8_t>(route.size());
  f.active = true;
  f.placed = false;
  f.bottleneck = kNone;
  f.accounted = 0;
  pending_add_.push_back(id);
  ++active_;
  return id;
}

// Routes longer than any before: every flow's slot grows (at most kMaxRoute - 1 times).
void MaxMinSolver::widen(std::size_t width) {
  std::vector<std::uint32_t> links(flows_.size() * 2 * width);
  for (FlowId id = 0; id < flows_.size(); ++id) {
    std::copy_n(&links_[id * 2 * width_], width_, &links[id * 2 * width]);
    std::copy_n(&links_[id * 2 * width_ + width_], width_, &links[id * 2 * width + width]);
  }
  links_ = std::move(links);
  width_ = width;
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
  enter_lists(id);
  flows_[id].placed = true;
  ++placed_;
}

void MaxMinSolver::enter_lists(FlowId id) {
  for (std::size_t i = 0; i < flows_[id].length; ++i) {
    auto& list = resources_[route_of(id)[i]].flows;
    position_of(id)[i] = static_cast<std::uint32_t>(list.size());
    list.push_back(id);
  }
}

void MaxMinSolver::detach(FlowId id) {
  Flow& f = flows_[id];
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = route_of(id)[i];
    auto& list = resources_[r].flows;
    const std::uint32_t pos = position_of(id)[i];
    const FlowId moved = list.back();
    list[pos] = moved;
    list.pop_back();
    if (moved != id) {
      Flow& m = flows_[moved];
      for (std::size_t j = 0; j < m.length; ++j)
        if (route_of(moved)[j] == r) position_of(moved)[j] = pos;
    }
  }
  f.placed = false;
  --placed_;
}

void MaxMinSolver::set_bottleneck(FlowId f, ResourceId b) {
  const ResourceId old = flows_[f].bottleneck;
  flows_[f].bottleneck = b;
  if (listener_ && old != b) listener_->bottleneck_changed(f, old, b);
}

void MaxMinSolver::set_level(ResourceId r, double level, bool track_increase) {
  Resource& res = resources_[r];
  const double old = res.level;
  if (old == level) return;
  res.level = level;
  if (track_increase) {
    // inc_r bounds how much the rates of r's flows grew since they were accounted.
    res.increase = level > old ? res.increase + (level - old) : std::max(0.0, res.increase - (old - level));
    touch_increase(r);
  }
  if (listener_) listener_->level_changed(r, old, level);
}

double MaxMinSolver::foreign_load(ResourceId r) const {
  double sum = 0;
  for (const auto& [b, count] : resources_[r].foreign) sum += count * resources_[b].level;
  return sum;
}

// The heaps hold bounds for the certificate, not exact values: a resource's entry is only
// replaced when its bound gets more pessimistic (a smaller key, a larger increase). An
// entry more pessimistic than the truth keeps the certificate safe, and skipping the
// other updates saves most heap operations. full_solve() and reaccount() make the bounds
// exact again.
//
// Keys >= 0 wait in parked_ instead of the heap until an increase bound is positive: while
// max inc is 0 the certificate only asks whether some key is negative, and the heap of
// negative keys answers that (and names the same tightest resource). Around an all-reduce
// ring every flow leaves an exactly full link with key 0 behind, and queueing it cost a
// tenth of the benchmark's time. complete_keys() moves the parked keys in when needed.
//
// touch_key() (inline, in the header) settles the common cases; this queues a new key.
void MaxMinSolver::queue_key(ResourceId r, double key) {
  Resource& res = resources_[r];
  res.key = key;
  ++res.key_version;
  if (!keys_complete_ && key >= 0) {
    parked_.emplace_back(r, res.key_version);
    if (parked_.size() > 4 * resources_.size() + 1024)  // drop stale entries
      std::erase_if(parked_, [this](const auto& p) { return resources_[p.first].key_version != p.second; });
    return;
  }
  keys_.push({key, {r, res.key_version}});
  if (keys_.size() > 4 * resources_.size() + 1024) {  // drop stale entries
    std::vector<HeapEntry> live;
    for (; !keys_.empty(); keys_.pop())
      if (resources_[keys_.top().second.first].key_version == keys_.top().second.second) live.push_back(keys_.top());
    keys_ = decltype(keys_)(std::greater<>(), std::move(live));
  }
}

// touch_increase() (inline, in the header) settles the common cases; this queues a new bound.
void MaxMinSolver::queue_increase(ResourceId r) {
  Resource& res = resources_[r];
  res.increase_bound = res.increase;
  ++res.inc_version;
  increases_.push({res.increase, {r, res.inc_version}});
  if (increases_.size() > 4 * resources_.size() + 1024) {
    std::vector<HeapEntry> live;
    for (; !increases_.empty(); increases_.pop())
      if (resources_[increases_.top().second.first].inc_version == increases_.top().second.second)
        live.push_back(increases_.top());
    increases_ = decltype(increases_)(std::less<HeapEntry>(), std::move(live));
  }
}

void MaxMinSolver::complete_keys() {
  for (const auto& [r, version] : parked_)
    if (resources_[r].key_version == version) keys_.push({resources_[r].key, {r, version}});
  parked_.clear();
  keys_complete_ = true;
}

// Every key or parked key goes (full solves start afresh).
void MaxMinSolver::clear_keys() {
  keys_ = {};
  parked_.clear();
  keys_complete_ = false;
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
      const ResourceId r = route_of(id)[i];
      if (r == b || saturated(r)) continue;
      resources_[r].accounted += delta;
      if (delta < 0) resources_[r].key = std::numeric_limits<double>::infinity();  // force a fresh entry
      touch_key(r);
    }
  }
  res.increase = 0;
  touch_increase(b);  // drops b's entry: the bound is exact again
  ++stats_.reaccounts;
}

// Books every flow crossing unsaturated resource r at its current rate. Always safe: a
// flow booked at its rate is within any bound of its bottleneck.
void MaxMinSolver::reaccount_flows_at(ResourceId r) {
  for (FlowId id : resources_[r].flows) {
    Flow& f = flows_[id];
    const double rate = resources_[f.bottleneck].level;
    const double delta = rate - f.accounted;
    if (delta == 0) continue;
    f.accounted = rate;
    for (std::size_t i = 0; i < f.length; ++i) {
      const ResourceId other = route_of(id)[i];
      if (saturated(other)) continue;
      resources_[other].accounted += delta;
      if (delta < 0) resources_[other].key = std::numeric_limits<double>::infinity();  // force a fresh entry
      touch_key(other);
    }
  }
}

// ---- incremental path ----------------------------------------------------------------------

// b has no bottlenecked flow left: it becomes an unsaturated resource. Its remaining
// (foreign) flows keep their rates; they are booked in its certificate sum.
void MaxMinSolver::release_bottleneck(ResourceId b) {
  Resource& res = resources_[b];
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
}

bool MaxMinSolver::try_remove(FlowId id) {
  Flow& f = flows_[id];
  const ResourceId b = f.bottleneck;
  detach(id);
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = route_of(id)[i];
    if (r == b) continue;
    if (saturated(r)) {
      count_add(resources_[r].foreign, b, -1);
      count_add(resources_[b].dependents, r, -1);
      if (!in_changed_[r]) in_changed_[r] = true, changed_.push_back(r);
      needs_propagation_ = true;
    } else {
      resources_[r].accounted -= f.accounted;
      // Left empty with a rounding residue: the one way a resource without flows differs
      // from what a full solve leaves (see reset_resource()).
      if (resources_[r].flows.empty() && resources_[r].accounted != 0) mark_unclear(r);
      touch_key(r);
    }
  }
  Resource& res = resources_[b];
  --res.bottlenecked;
  set_bottleneck(id, kNone);
  if (res.bottlenecked == 0) {
    release_bottleneck(b);
  } else {
    if (!in_changed_[b]) in_changed_[b] = true, changed_.push_back(b);
    needs_propagation_ = true;
  }
  free_ids_.push_back(id);
  return true;
}

// Moves flow g, foreign at the new bottleneck u, from its bottleneck b to u (its rate drops
// to u's level). b loses a member: its level rises, or it stops being a bottleneck.
void MaxMinSolver::take_over(FlowId id, ResourceId u) {
  Flow& g = flows_[id];
  const ResourceId b = g.bottleneck;
  count_add(resources_[u].foreign, b, -1);
  count_add(resources_[b].dependents, u, -1);
  for (std::size_t i = 0; i < g.length; ++i) {
    const ResourceId r = route_of(id)[i];
    if (r == b || r == u || !saturated(r)) continue;  // unsaturated: its rate only drops
    count_add(resources_[r].foreign, b, -1);
    count_add(resources_[b].dependents, r, -1);
    count_add(resources_[r].foreign, u, +1);
    count_add(resources_[u].dependents, r, +1);
    if (!in_changed_[r]) in_changed_[r] = true, changed_.push_back(r);
  }
  Resource& old = resources_[b];
  --old.bottlenecked;
  ++resources_[u].bottlenecked;
  set_bottleneck(id, u);
  if (old.bottlenecked == 0) {
    release_bottleneck(b);
  } else {
    count_add(old.foreign, u, +1);  // g still crosses b, now as a foreign flow
    count_add(resources_[u].dependents, b, +1);
    if (!in_changed_[b]) in_changed_[b] = true, changed_.push_back(b);
  }
}

// A flow alone on every resource of its route (around an all-reduce ring, every flow):
// exactly what the general path of try_add() does for it, without its scans. It fills
// the first resource of least capacity alone, at that capacity, and crosses the others
// unsaturated (no other flow there can be bottlenecked).
bool MaxMinSolver::add_alone(FlowId id) {
  Flow& f = flows_[id];
  ResourceId best = kNone;
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = route_of(id)[i];
    if (best == kNone || resources_[r].capacity < resources_[best].capacity) best = r;
  }
  Resource& bres = resources_[best];
  if (!(bres.capacity > 0)) return false;  // a failed link: the full solve stalls the flow
  bres.accounted = 0;
  ++bres.bottlenecked;
  set_bottleneck(id, best);
  touch_key(best);  // saturated now: drops its certificate key
  settle_added(id, best, true, 0.0);
  return true;
}

// ---- lone flows ----------------------------------------------------------------------------
//
// A lone flow is exactly what add_alone() makes of a flow alone on its route, except
// that it is not in its resources' flow lists and its rate is not yet booked in the
// accounted sums (nor keys) of its other resources. Nothing reads those before
// settle_lone() catches them up:
//   - its resources carry no other flow: a flow that would share one settles first
//     (solve()), and the flow lists, foreign and dependent edges of other resources
//     never name these resources;
//   - the certificate reads keys: with an increase bound of 0 a key only fails when it is
//     negative, and a lone flow's keys (C_r - its rate, its rate being its route's least
//     capacity) are not; with a positive bound, certify() settles first;
//   - a full solve, a batch removed in full and flows_at() settle first.
// Catching up then gives the same sums and valid keys: each other resource had accounted
// 0 when the flow came (a condition of being lone) and has nothing else since, and its
// key (C_r - rate) / 1 is queued as the flow's arrival would have queued it. The flow's
// own changes (bottleneck, level, increase) are made, and reported, at once, as
// add_alone() and try_remove() make them; so are the statistics.

bool MaxMinSolver::add_lone(FlowId id) {
  if (!lone_shortcut_) return false;
  Flow& f = flows_[id];
  const ResourceId* route = route_of(id);
  ResourceId best = kNone;
  for (std::size_t i = 0; i < f.length; ++i) {
    const Resource& res = resources_[route[i]];
    // Crossed by another flow; or a rounding residue in its accounted sum, which the
    // flow's booking would change (an unsaturated resource's: the ordinary way books it).
    if (!res.flows.empty() || res.lone != kNone || res.accounted != 0) return false;
    if (best == kNone || res.capacity < resources_[best].capacity) best = route[i];
  }
  if (!(resources_[best].capacity > 0)) return false;  // add_alone() fails: the full solve stalls it
  f.placed = true;
  f.lone = true;
  ++placed_;
  position_of(id)[0] = static_cast<std::uint32_t>(lone_.size());
  lone_.push_back(id);
  for (std::size_t i = 0; i < f.length; ++i) resources_[route[i]].lone = id;
  // add_alone() but for the changed list (its level is final, and certify() would find
  // nothing to check) and the booking on the other resources (settle_lone()).
  Resource& bres = resources_[best];  // its accounted sum is 0 already (add_alone() zeroes it)
  ++bres.bottlenecked;
  set_bottleneck(id, best);
  touch_key(best);
  settle_level(id, best, true, 0.0);
  return true;
}

// try_remove() for a lone flow: its other resources were never charged, and their keys
// are infinite already (they carry no flow).
void MaxMinSolver::remove_lone(FlowId id) {
  Flow& f = flows_[id];
  const std::uint32_t at = position_of(id)[0];
  const FlowId moved = lone_.back();
  lone_[at] = moved;
  position_of(moved)[0] = at;
  lone_.pop_back();
  for (std::size_t i = 0; i < f.length; ++i) resources_[route_of(id)[i]].lone = kNone;
  f.lone = false;
  f.placed = false;
  --placed_;
  const ResourceId b = f.bottleneck;
  --resources_[b].bottlenecked;  // to 0: nothing else crosses b
  set_bottleneck(id, kNone);
  release_bottleneck(b);
  free_ids_.push_back(id);
}

bool MaxMinSolver::touches_lone(FlowId id) const {
  const Flow& f = flows_[id];
  for (std::size_t i = 0; i < f.length; ++i)
    if (resources_[route_of(id)[i]].lone != kNone) return true;
  return false;
}

void MaxMinSolver::settle_lone() {
  for (const FlowId id : lone_) {
    flows_[id].lone = false;
    for (std::size_t i = 0; i < flows_[id].length; ++i) resources_[route_of(id)[i]].lone = kNone;
    enter_lists(id);
    book_rate(id);
  }
  lone_.clear();
}

// The end of adding flow id at bottleneck best: best's level (settle_level()), to be
// verified, and the flow booked at that level on the unsaturated resources it crosses.
void MaxMinSolver::settle_added(FlowId id, ResourceId best, bool new_bottleneck, double carried_increase) {
  settle_level(id, best, new_bottleneck, carried_increase);
  if (!in_changed_[best]) in_changed_[best] = true, changed_.push_back(best);
  book_rate(id);
}

// Best's level now that flow id is bottlenecked there (and, for a new bottleneck, its
// increase bound, starting from what taken-over flows carry); the flow's rate is that level.
void MaxMinSolver::settle_level(FlowId id, ResourceId best, bool new_bottleneck, double carried_increase) {
  Resource& bres = resources_[best];
  // Tracking a new bottleneck's increase through the level change would only queue a
  // heap entry that is stale at once: it is set afresh below.
  set_level(best, (bres.capacity - foreign_load(best)) / bres.bottlenecked, !new_bottleneck);
  if (new_bottleneck) {
    bres.increase = carried_increase;
    bres.increase_bound = 0;
    touch_increase(best);
  }
  flows_[id].accounted = bres.level;
}

// Books flow id's rate in the accounted sums (and keys) of the unsaturated resources it crosses.
void MaxMinSolver::book_rate(FlowId id) {
  const Flow& f = flows_[id];
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = route_of(id)[i];
    if (saturated(r)) continue;
    resources_[r].accounted += f.accounted;
    touch_key(r);
  }
}

bool MaxMinSolver::try_add(FlowId id) {
  attach(id);
  Flow& f = flows_[id];
  bool alone = true;
  for (std::size_t i = 0; i < f.length && alone; ++i) alone = resources_[route_of(id)[i]].flows.size() == 1;
  if (alone) return add_alone(id);
  needs_propagation_ = true;
  // Where would the new flow be bottlenecked? At a saturated resource, the level it would
  // share there; at an unsaturated one, the capacity left (the certificate's lower bound
  // first; the exact value, by scanning the resource's flows, only if it might bind).
  ResourceId best = kNone;
  double best_level = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = route_of(id)[i];
    if (!saturated(r)) continue;
    const Resource& res = resources_[r];
    const double candidate = (res.capacity - foreign_load(r)) / (res.bottlenecked + 1);
    if (candidate < best_level || (candidate == best_level && r < best)) best = r, best_level = candidate;
  }
  const double slack_bound = max_increase();
  ResourceId fresh = kNone;  // an unsaturated resource that would become f's bottleneck
  double fresh_level = best_level;
  double carried_increase = 0;
  auto& rates = scratch_.rates;
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = route_of(id)[i];
    if (saturated(r)) continue;
    const Resource& res = resources_[r];
    const std::size_t others = res.flows.size() - 1;
    if (res.capacity - res.accounted - static_cast<double>(others) * slack_bound >= best_level * (1 + kTolerance))
      continue;  // cannot bind
    if (others > kExactScanLimit) return false;
    // Water-filling on r alone: f and every flow at r at least as fast as the level L
    // would share what the slower ones leave: L = (C - slower) / (1 + faster).
    rates.clear();
    for (FlowId g : res.flows)
      if (g != id) rates.emplace_back(resources_[flows_[g].bottleneck].level, g);
    std::sort(rates.begin(), rates.end());
    double slower = 0, level = 0;
    std::size_t first_faster = rates.size();
    for (std::size_t k = 0; k <= rates.size(); ++k) {
      level = (res.capacity - slower) / static_cast<double>(1 + rates.size() - k);
      if (k == rates.size() || rates[k].first >= level) {
        first_faster = k;
        break;
      }
      slower += rates[k].first;
    }
    if (level < best_level * (1 + kTolerance) && (fresh == kNone || level < fresh_level)) {
      fresh = r, fresh_level = level;
      // Flows faster than L move their bottleneck to r (ties may stay where they are).
      scratch_.switching.clear();
      for (std::size_t k = first_faster; k < rates.size(); ++k)
        if (rates[k].first > level * (1 + kTolerance)) scratch_.switching.push_back(rates[k].second);
    }
  }
  if (fresh != kNone) {
    if (!(fresh_level > 0)) return false;
    best = fresh, best_level = fresh_level;
  }
  if (best == kNone || !(best_level > 0)) return false;

  Resource& bres = resources_[best];
  if (best == fresh) {
    // A new bottleneck: its flows so far become its foreign flows, except those faster
    // than its level, which it takes over.
    for (FlowId g : bres.flows) {
      if (g == id) continue;
      const ResourceId b = flows_[g].bottleneck;
      count_add(bres.foreign, b, +1);
      count_add(resources_[b].dependents, best, +1);
    }
    bres.accounted = 0;
    // A taken-over flow's rate only drops, but it may still exceed what was accounted for
    // it: its old bottleneck's bound carries over to the new one.
    carried_increase = 0;
    for (FlowId g : scratch_.switching) {
      carried_increase = std::max(carried_increase, resources_[flows_[g].bottleneck].increase);
      take_over(g, best);
    }
  }
  ++bres.bottlenecked;
  set_bottleneck(id, best);
  if (best == fresh) touch_key(best);  // saturated now: drops its certificate key
  for (std::size_t i = 0; i < f.length; ++i) {
    const ResourceId r = route_of(id)[i];
    if (r == best || !saturated(r)) continue;
    count_add(resources_[r].foreign, best, +1);
    count_add(bres.dependents, r, +1);
    if (!in_changed_[r]) in_changed_[r] = true, changed_.push_back(r);
  }
  settle_added(id, best, best == fresh, carried_increase);
  return true;
}

// Re-derives the levels of changed saturated resources and of everything that depends on
// them, lowest level first, so that each level is computed from final foreign levels.
bool MaxMinSolver::propagate() {
  auto& queue = scratch_.propagation;  // (level, resource), lowest level first
  queue.clear();
  const auto later = [](const std::pair<double, ResourceId>& x, const std::pair<double, ResourceId>& y) { return x > y; };
  const auto push = [&](ResourceId r) {
    queue.emplace_back(resources_[r].level, r);
    std::push_heap(queue.begin(), queue.end(), later);
  };
  // Levels set directly by try_add have already moved: their dependents must follow.
  for (ResourceId r : changed_) {
    if (!saturated(r)) continue;
    push(r);
    for (const auto& [d, count] : resources_[r].dependents) push(d);
  }
  std::size_t budget = 8 * (queue.size() + 64);
  while (!queue.empty()) {
    if (budget-- == 0) return false;  // levels keep moving (ties in a cycle): solve in full
    std::pop_heap(queue.begin(), queue.end(), later);
    const ResourceId r = queue.back().second;
    queue.pop_back();
    if (!saturated(r)) continue;
    Resource& res = resources_[r];
    const double level = (res.capacity - foreign_load(r)) / res.bottlenecked;
    if (level == res.level) continue;
    set_level(r, level);
    if (!in_changed_[r]) in_changed_[r] = true, changed_.push_back(r);
    for (const auto& [d, count] : res.dependents) push(d);
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
  // When that fails, tighten the bounds before giving up: first re-account the flows of the
  // resource with the smallest key (their booked rates may be stale-high), then the flows
  // of the bottleneck with the largest increase; stop when that work nears a full solve.
  std::size_t reaccounted = 0;
  ResourceId last_tightened = kNone;
  for (;;) {
    const double bound = max_increase();
    // Lone flows' keys may bind once the bound is positive (it only falls in this loop).
    if (bound > 0 && !lone_.empty()) settle_lone();
    if (bound > 0 && !keys_complete_) complete_keys();
    const double key = min_key();  // with bound 0 and keys parked: the smallest negative key, or infinity
    // A resource may be exactly full without being anyone's bottleneck (a flow crossing
    // two links of equal capacity, as around an all-reduce ring): load <= capacity is all
    // feasibility needs, so equality passes.
    if (key >= bound * (1 + kTolerance)) return true;
    if (reaccounted > active_ / 4 + 64) return false;
    const ResourceId tightest = keys_.top().second.first;
    if (tightest != last_tightened) {
      last_tightened = tightest;
      reaccounted += resources_[tightest].flows.size();
      reaccount_flows_at(tightest);
      continue;
    }
    if (bound == 0) return false;  // exact bookkeeping and still full: the structure changed
    const ResourceId worst = increases_.top().second.first;
    reaccounted += resources_[worst].flows.size();
    reaccount(worst);
  }
}

// ---- full solve ----------------------------------------------------------------------------

void MaxMinSolver::full_solve() {
  settle_lone();  // it fills from the flow lists
  const std::size_t n_res = resources_.size();
  if (placed_ == 0) {  // nothing to fill (the last flows just left): every level is 0
    clear_keys();
    increases_ = {};
    // Only marked resources can differ from what a full solve leaves; the others are
    // clear already. Visited in increasing order, as the full solve reports levels.
    for (std::size_t w = 0; w < unclear_.size(); ++w)
      for (std::uint64_t bits = unclear_[w]; bits != 0; bits &= bits - 1)
        reset_resource(static_cast<ResourceId>(64 * w + static_cast<std::size_t>(std::countr_zero(bits))), 0.0);
    std::fill(unclear_.begin(), unclear_.end(), 0);
    ++stats_.full_solves;
    return;
  }
  filling_.fill(
      n_res, flows_.size(), [this](ResourceId r) { return resources_[r].capacity; },
      [this](ResourceId r) -> const std::vector<FlowId>& { return resources_[r].flows; },
      [this](FlowId id) { return route(id); });

  // Install the solution, reporting changes.
  for (ResourceId r = 0; r < n_res; ++r) reset_resource(r, filling_.level(r));
  for (FlowId id = 0; id < flows_.size(); ++id) {
    Flow& f = flows_[id];
    if (!f.placed) continue;
    const ResourceId b = filling_.bottleneck(id);
    set_bottleneck(id, b);
    ++resources_[b].bottlenecked;
    f.accounted = filling_.level(b);
  }
  for (FlowId id = 0; id < flows_.size(); ++id) {
    const Flow& f = flows_[id];
    if (!f.placed) continue;
    for (std::size_t i = 0; i < f.length; ++i) {
      const ResourceId r = route_of(id)[i];
      if (r == f.bottleneck) continue;
      if (resources_[r].bottlenecked > 0) {
        count_add(resources_[r].foreign, f.bottleneck, +1);
        count_add(resources_[f.bottleneck].dependents, r, +1);
      } else {
        resources_[r].accounted += f.accounted;
      }
    }
  }
  clear_keys();
  increases_ = {};
  for (ResourceId r = 0; r < n_res; ++r) touch_key(r);
  std::fill(unclear_.begin(), unclear_.end(), 0);  // every resource is as a full solve leaves it
  ++stats_.full_solves;
  filling_.release_if_large(n_res, flows_.size());
}

// Resource r as a full solve leaves it before counting its flows: at `level` (0: not a
// bottleneck), without foreign edges, accounted rates, increase bound or key; the
// listener hears a change of level. Versions stay as they are: the caller empties the
// heaps they guard.
void MaxMinSolver::reset_resource(ResourceId r, double level) {
  Resource& res = resources_[r];
  const double old = res.bottlenecked > 0 ? res.level : 0.0;
  res.level = level;
  res.bottlenecked = 0;
  res.foreign.clear();
  res.dependents.clear();
  res.accounted = 0;
  res.increase = 0;
  res.increase_bound = 0;
  res.key = std::numeric_limits<double>::infinity();
  if (listener_ && old != level) listener_->level_changed(r, old, level);
}

void MaxMinSolver::set_capacity(ResourceId r, double capacity) {
  if (r >= resources_.size()) throw std::out_of_range("capacity of an unknown resource");
  if (!(capacity >= 0) || !std::isfinite(capacity))
    throw std::invalid_argument(fmt::format("resource {} needs a finite capacity >= 0", r));
  if (resources_[r].capacity == capacity) return;
  resources_[r].capacity = capacity;
  capacity_changed_ = true;
}

void MaxMinSolver::solve() {
  if (pending_add_.empty() && pending_remove_.empty() && !capacity_changed_) return;
  // A batch that replaces a good part of the flows is cheaper to solve in full; so is a
  // changed capacity (its effect is not confined to the flows crossing it).
  const std::size_t batch = pending_add_.size() + pending_remove_.size();
  bool incremental = !capacity_changed_ && batch <= std::max<std::size_t>(16, active_ / 4);
  capacity_changed_ = false;
  needs_propagation_ = false;
  if (!incremental) settle_lone();  // the removals below take flows out of their lists
  for (FlowId id : pending_remove_) {
    if (incremental) {
      if (flows_[id].lone) remove_lone(id);
      else incremental = try_remove(id);
      ++stats_.incremental_updates;
      continue;
    }
    const ResourceId b = flows_[id].bottleneck;
    for (std::size_t i = 0; i < flows_[id].length; ++i) mark_unclear(route_of(id)[i]);  // the full solve settles them
    detach(id);
    if (b != kNone) set_bottleneck(id, kNone);
    free_ids_.push_back(id);
  }
  for (FlowId id : pending_add_) {
    if (incremental) {
      if (add_lone(id)) {
        ++stats_.incremental_updates;
        continue;
      }
      if (touches_lone(id)) settle_lone();  // it shares a resource with one
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
  // Without a level to re-derive, propagate() would pop every changed level and find it
  // unchanged (a flow alone on its route set its bottleneck's level from scratch).
  if (incremental) incremental = (!needs_propagation_ || propagate()) && certify();
  for (ResourceId r : changed_) in_changed_[r] = false;
  changed_.clear();
  if (!incremental) full_solve();
}

}  // namespace pssim::net
