#include "sim/net/group_progress.hpp"

#include <stdexcept>

namespace pssim::net {

FlowNetwork::GroupProgress::GroupProgress(FlowNetwork& network, std::vector<double> capacities)
    : net_(network),
      solver_(std::move(capacities), this),
      groups_(solver_.resource_count()),
      group_dirty_(solver_.resource_count(), false),
      footprint_(solver_.resource_count()) {}

void FlowNetwork::GroupProgress::start(std::uint32_t m) {
  Message& msg = net_.messages_pool_[m];
  ResourceId route[kMaxRouteLength];
  TimeNs latency = 0;
  const std::size_t hops = net_.topology_.route_into(msg.src, msg.dst, route, latency);  // as at send: O(hops)
  msg.flow = solver_.add_flow({route, hops});
  auto& of_flow = net_.message_of_flow_;
  if (of_flow.size() <= msg.flow) of_flow.resize(msg.flow + 1);
  of_flow[msg.flow] = m;
  net_.count_start({route, hops});
}

void FlowNetwork::GroupProgress::advance(Group& g) {
  const TimeNs now = net_.sim_.now();
  if (now > g.updated) {
    g.v += g.level * to_seconds(now - g.updated);
    g.updated = now;
  }
}

void FlowNetwork::GroupProgress::level_changed(ResourceId r, double, double new_level) {
  Group& g = groups_[r];
  advance(g);
  if (!net_.meters_.empty())
    for (const auto& [i, members] : footprint_[r]) {
      Meter& m = net_.meters_[i];
      net_.advance(m);
      m.rate += members * (new_level - g.level);
    }
  g.level = new_level;
  mark_dirty(r);
}

void FlowNetwork::GroupProgress::bottleneck_changed(SharingSolver::FlowId f, ResourceId from, ResourceId to) {
  Message& msg = net_.messages_pool_[net_.message_of_flow_[f]];
  if (!net_.meters_.empty()) move_between_groups(msg, from, to);
  double remaining = msg.bytes;  // a flow without a group has not moved yet
  if (from != SharingSolver::kNone) {
    Group& g = groups_[from];
    advance(g);
    remaining = std::max(0.0, msg.finish - g.v);
    ++msg.epoch;  // its entry in the old group's heap is now stale
    if (--g.members == 0) {
      g.v = 0;  // nobody measures against it: restart the counter (keeps precision)
      g.heap.clear();
    }
    mark_dirty(from);
  }
  if (to != SharingSolver::kNone) {
    Group& g = groups_[to];
    advance(g);
    msg.finish = g.v + remaining;
    ++g.members;
    g.heap.push({msg.finish, msg.index, msg.epoch});
    mark_dirty(to);
  }
}

void FlowNetwork::GroupProgress::footprint_add(Footprint& f, std::uint32_t meter, int delta) {
  auto it = std::lower_bound(f.begin(), f.end(), meter, [](const auto& e, std::uint32_t x) { return e.first < x; });
  if (it != f.end() && it->first == meter) {
    it->second += delta;
    if (it->second == 0) f.erase(it);
  } else {
    if (delta < 0) throw std::logic_error("flow network: a group leaves a link it does not cross");
    f.insert(it, {meter, static_cast<std::uint32_t>(delta)});
  }
}

// Flow `msg` leaves group `from` and joins group `to` (either may be kNone): the recorded
// directions it crosses now carry its new rate instead of its old one.
void FlowNetwork::GroupProgress::move_between_groups(const Message& msg, ResourceId from, ResourceId to) {
  for (const ResourceId r : solver_.route(msg.flow)) {
    const std::uint32_t i = net_.meter_of_[r];
    if (i == kNoMeter) continue;
    Meter& m = net_.meters_[i];
    net_.advance(m);
    if (from != SharingSolver::kNone) {
      m.rate -= groups_[from].level;
      --m.flows;
      footprint_add(footprint_[from], i, -1);
    }
    if (to != SharingSolver::kNone) {
      m.rate += groups_[to].level;
      ++m.flows;
      footprint_add(footprint_[to], i, +1);
    }
    if (m.flows == 0) m.rate = 0;  // no rounding residue on an idle link
  }
}

void FlowNetwork::GroupProgress::refresh_due(ResourceId r) {
  Group& g = groups_[r];
  ++g.version;
  while (!g.heap.empty() && g.heap.top().epoch != net_.messages_pool_[g.heap.top().message].epoch) g.heap.pop();
  if (g.heap.empty() || !(g.level > 0)) return;
  const double seconds = std::max(0.0, g.heap.top().finish - g.v) / g.level;
  TimeNs time = kTimeMax;
  if (seconds < 9e9) time = g.updated + round_ns(seconds * 1e9);
  due_.push({std::max(time, net_.sim_.now()), r, g.version});
}

TimeNs FlowNetwork::GroupProgress::next_completion() {
  for (auto r : dirty_groups_) {
    group_dirty_[r] = false;
    refresh_due(r);
  }
  dirty_groups_.clear();
  while (!due_.empty() && due_.top().version != groups_[due_.top().group].version) due_.pop();
  return due_.empty() ? kTimeMax : due_.top().time;
}

void FlowNetwork::GroupProgress::collect_due(std::vector<std::pair<std::uint64_t, std::uint32_t>>& done) {
  const TimeNs now = net_.sim_.now();
  const auto& pool = net_.messages_pool_;
  while (!due_.empty() && due_.top().time <= now) {
    const Due d = due_.top();
    due_.pop();
    Group& g = groups_[d.group];
    if (d.version != g.version) continue;
    advance(g);
    // Complete every member within one nanosecond of transfer of its end.
    const double tolerance = g.level * 1e-9;
    const auto ends_now = [&](double finish) { return finish - g.v <= tolerance + 1e-12 * finish; };
    if (ends_now(g.heap.max_finish)) {
      // The whole group ends (symmetric flows end together): one pass instead of a pop
      // per member. The same members as popping; done is sorted by the network either way.
      for (const HeapItem& item : g.heap.items) {
        const Message& msg = pool[item.message];
        if (item.epoch != msg.epoch) continue;
        done.emplace_back(msg.seq, item.message);
      }
      g.heap.clear();
    }
    while (!g.heap.empty()) {
      const HeapItem top = g.heap.top();
      const Message& msg = pool[top.message];
      if (top.epoch != msg.epoch) {
        g.heap.pop();
        continue;
      }
      if (!ends_now(top.finish)) break;
      g.heap.pop();
      done.emplace_back(msg.seq, top.message);
    }
    mark_dirty(d.group);
  }
}

void FlowNetwork::GroupProgress::end(std::uint32_t m) {
  const Message& msg = net_.messages_pool_[m];
  const auto route = solver_.route(msg.flow);
  if (!net_.meters_.empty()) {
    // The flow ends within a nanosecond of transfer of its exact end: its meters count
    // what the group says it moved; make that its exact size.
    const double unmoved = msg.finish - groups_[solver_.bottleneck(msg.flow)].v;
    for (const ResourceId r : route)
      if (const std::uint32_t k = net_.meter_of_[r]; k != kNoMeter) net_.meters_[k].bytes += unmoved;
  }
  net_.count_end(route, msg.bytes);
  solver_.remove_flow(msg.flow);
}

double FlowNetwork::GroupProgress::moved(std::uint32_t m, TimeNs t) const {
  const Message& msg = net_.messages_pool_[m];
  const ResourceId b = solver_.bottleneck(msg.flow);
  if (b == SharingSolver::kNone) return 0;  // joined no group yet
  const Group& g = groups_[b];
  const double v = g.v + g.level * to_seconds(t - g.updated);
  return std::clamp(msg.bytes - (msg.finish - v), 0.0, msg.bytes);
}

}  // namespace pssim::net
