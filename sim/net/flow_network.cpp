#include "sim/net/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::net {
namespace {

std::vector<double> capacities_of(const Topology& t) {
  std::vector<double> c(t.resource_count());
  for (ResourceId r = 0; r < c.size(); ++r) c[r] = t.capacity(r);
  return c;
}

}  // namespace

FlowNetwork::FlowNetwork(Simulator& sim, const Topology& topology, NetworkModel model)
    : model_(model),
      sim_(sim),
      topology_(topology),
      solver_(capacities_of(topology), this,
              model.general() ? MaxMinSolver::Sharing::General : MaxMinSolver::Sharing::MaxMin),
      groups_(topology.resource_count()),
      group_dirty_(topology.resource_count(), false),
      resource_bytes_(topology.resource_count(), 0.0),
      active_per_resource_(topology.resource_count(), 0) {
  if (!(model.framing > 0 && model.framing <= 1))
    throw std::invalid_argument(fmt::format("framing must be in (0, 1], not {}", model.framing));
}

std::uint32_t FlowNetwork::new_message() {
  if (!free_messages_.empty()) {
    const std::uint32_t m = free_messages_.back();
    free_messages_.pop_back();
    return m;
  }
  const auto m = static_cast<std::uint32_t>(messages_pool_.size());
  Message& msg = messages_pool_.emplace_back();
  msg.index = m;
  msg.network = this;
  if (model_.general()) progress_.resize(messages_pool_.size());
  return m;
}

void FlowNetwork::send(NodeId src, NodeId dst, double bytes, MessageSink* sink, std::uint64_t tag) {
  send(src, dst, bytes, sink, tag, SendOptions{});
}

void FlowNetwork::send(NodeId src, NodeId dst, double bytes, MessageSink* sink, std::uint64_t tag,
                       const SendOptions& options) {
  if (options.priority != 0 && !model_.priorities)
    throw std::logic_error("a message with a priority class on a network built without priorities");
  if (!(bytes >= 0) || !std::isfinite(bytes)) throw std::invalid_argument("message size must be finite and >= 0");
  close_bins();
  ResourceId route[kMaxRouteLength];
  TimeNs latency = 0;
  const std::size_t hops = topology_.route_into(src, dst, route, latency);
  const std::uint32_t m = new_message();
  Message& msg = messages_pool_[m];
  msg.sink = sink;
  msg.tag = tag;
  msg.seq = next_seq_++;
  msg.bytes = bytes / model_.framing;  // on the wire: with framing 1, exactly `bytes`
  msg.src = src;
  msg.dst = dst;
  msg.state = Message::State::Waiting;
  msg.account = options.account;
  ++messages_;
  Message* p = &msg;
  if (model_.general()) progress_[m].priority = options.priority;
  if (model_.kind == NetworkModel::Kind::Tcp)  // slow start, as LV08 fits it
    latency = round_ns(static_cast<double>(latency) * model_.tcp.latency_factor);
  if (options.follows && hops > 0 && bytes > 0) latency = 0;  // the train's first message paid it
  if (hops == 0 || bytes == 0)
    sim_.schedule_after(latency, [p] { p->network->deliver(p->index); });
  else
    schedule_start(m, latency);
}

// A message that would start in an event right after the open batch's (the same time, and
// no event scheduled in between, so none could fire between the two) joins that batch
// instead: one event starts both, in the same order.
void FlowNetwork::schedule_start(std::uint32_t m, TimeNs latency) {
  Message& msg = messages_pool_[m];
  msg.flow = kNoMessage;  // the end of its batch, for now
  if (open_batch_.last != kNoMessage && open_batch_.event.time - sim_.now() == latency &&
      sim_.last_scheduled(open_batch_.event)) {
    messages_pool_[open_batch_.last].flow = m;
    open_batch_.last = m;
    return;
  }
  Message* p = &msg;
  open_batch_.event = sim_.schedule_after(latency, [p] { p->network->start_batch(p->index); });
  open_batch_.first = open_batch_.last = m;
}

// Every message of the batch counts as the event it would have had. The solve its starts
// request is the next event when nothing else is due now: then it runs here, counted too.
void FlowNetwork::start_batch(std::uint32_t first) {
  if (open_batch_.first == first) open_batch_.last = kNoMessage;  // closed: it is firing
  const bool solve_already_due = solve_due_;  // scheduled by an earlier event of this instant
  for (std::uint32_t m = first, next; m != kNoMessage; m = next) {
    next = messages_pool_[m].flow;
    if (m != first) sim_.count_inline_event();
    start_flow(m);
  }
  if (solve_already_due || !solve_due_) return;
  if (sim_.nothing_else_now()) {
    sim_.count_inline_event();
    solve_now();
  } else {
    sim_.schedule_after(0, [this] { solve_now(); });
  }
}

void FlowNetwork::start_flow(std::uint32_t m) {
  Message& msg = messages_pool_[m];
  if (msg.state == Message::State::Cancelled) {
    free_messages_.push_back(m);
    return;
  }
  msg.state = Message::State::Flowing;
  if (model_.general()) {
    start_general_flow(m);
    return;
  }
  close_bins();
  ResourceId route[kMaxRouteLength];
  TimeNs latency = 0;
  const std::size_t hops = topology_.route_into(msg.src, msg.dst, route, latency);  // as at send: O(hops)
  msg.flow = solver_.add_flow({route, hops});
  if (message_of_flow_.size() <= msg.flow) message_of_flow_.resize(msg.flow + 1);
  message_of_flow_[msg.flow] = m;
  ++flows_started_;
  for (std::size_t i = 0; i < hops; ++i) {
    const auto count = ++active_per_resource_[route[i]];
    if (flow_count_listener_) flow_count_listener_(route[i], count);
  }
  request_solve();
}

void FlowNetwork::deliver(std::uint32_t m) {
  Message& msg = messages_pool_[m];
  const bool cancelled = msg.state == Message::State::Cancelled;
  free_messages_.push_back(m);
  if (cancelled) return;
  MessageSink* sink = msg.sink;
  const std::uint64_t tag = msg.tag;
  sink->on_delivered(tag);
}

// The solve runs as an event of zero delay, after every event already scheduled for now,
// so that simultaneous flow starts are solved together. start_batch() schedules it once
// its starts are done: start_flow() schedules nothing else, so it gets the same place.
void FlowNetwork::request_solve() { solve_due_ = true; }

void FlowNetwork::solve_now() {
  close_bins();  // the solve changes rates at now: bins that ended before see the old ones
  solve_due_ = false;
  solver_.solve();
  schedule_next_completion();
}

void FlowNetwork::advance(Group& g) {
  const TimeNs now = sim_.now();
  if (now > g.updated) {
    g.v += g.level * to_seconds(now - g.updated);
    g.updated = now;
  }
}

void FlowNetwork::level_changed(MaxMinSolver::ResourceId r, double, double new_level) {
  Group& g = groups_[r];
  advance(g);
  if (!meters_.empty())
    for (const auto& [i, members] : footprint_[r]) {
      Meter& m = meters_[i];
      advance(m);
      m.rate += members * (new_level - g.level);
    }
  g.level = new_level;
  if (!group_dirty_[r]) group_dirty_[r] = true, dirty_groups_.push_back(r);
}

void FlowNetwork::bottleneck_changed(MaxMinSolver::FlowId f, MaxMinSolver::ResourceId from,
                                     MaxMinSolver::ResourceId to) {
  Message& msg = messages_pool_[message_of_flow_[f]];
  if (!meters_.empty()) move_between_groups(msg, from, to);
  double remaining = msg.bytes;  // a flow without a group has not moved yet
  if (from != MaxMinSolver::kNone) {
    Group& g = groups_[from];
    advance(g);
    remaining = std::max(0.0, msg.finish - g.v);
    ++msg.epoch;  // its entry in the old group's heap is now stale
    if (--g.members == 0) {
      g.v = 0;  // nobody measures against it: restart the counter (keeps precision)
      g.heap.clear();
    }
    if (!group_dirty_[from]) group_dirty_[from] = true, dirty_groups_.push_back(from);
  }
  if (to != MaxMinSolver::kNone) {
    Group& g = groups_[to];
    advance(g);
    msg.finish = g.v + remaining;
    ++g.members;
    g.heap.push({msg.finish, msg.index, msg.epoch});
    if (!group_dirty_[to]) group_dirty_[to] = true, dirty_groups_.push_back(to);
  }
}

void FlowNetwork::advance(Meter& m) {
  const TimeNs now = sim_.now();
  if (now > m.since) {
    m.bytes += m.rate * to_seconds(now - m.since);
    m.since = now;
  }
}

void FlowNetwork::footprint_add(Footprint& f, std::uint32_t meter, int delta) {
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
void FlowNetwork::move_between_groups(const Message& msg, MaxMinSolver::ResourceId from, MaxMinSolver::ResourceId to) {
  for (const ResourceId r : solver_.route(msg.flow)) {
    const std::uint32_t i = meter_of_[r];
    if (i == kNoMeter) continue;
    Meter& m = meters_[i];
    advance(m);
    if (from != MaxMinSolver::kNone) {
      m.rate -= groups_[from].level;
      --m.flows;
      footprint_add(footprint_[from], i, -1);
    }
    if (to != MaxMinSolver::kNone) {
      m.rate += groups_[to].level;
      ++m.flows;
      footprint_add(footprint_[to], i, +1);
    }
    if (m.flows == 0) m.rate = 0;  // no rounding residue on an idle link
  }
}

void FlowNetwork::refresh_due(MaxMinSolver::ResourceId r) {
  Group& g = groups_[r];
  ++g.version;
  while (!g.heap.empty() && g.heap.top().epoch != messages_pool_[g.heap.top().message].epoch) g.heap.pop();
  if (g.heap.empty() || !(g.level > 0)) return;
  const double seconds = std::max(0.0, g.heap.top().finish - g.v) / g.level;
  TimeNs time = kTimeMax;
  if (seconds < 9e9) time = g.updated + round_ns(seconds * 1e9);
  due_.push({std::max(time, sim_.now()), r, g.version});
}

void FlowNetwork::schedule_next_completion() {
  if (model_.general()) {
    schedule_next_general_completion();
    return;
  }
  for (auto r : dirty_groups_) {
    group_dirty_[r] = false;
    refresh_due(r);
  }
  dirty_groups_.clear();
  while (!due_.empty() && due_.top().version != groups_[due_.top().group].version) due_.pop();
  const TimeNs next = due_.empty() ? kTimeMax : due_.top().time;
  if (next == completion_time_) return;
  if (completion_event_) sim_.cancel(completion_event_);
  completion_event_ = {};
  completion_time_ = next;
  if (next != kTimeMax) completion_event_ = sim_.schedule_at(next, [this] { complete_due_flows(); });
}

void FlowNetwork::complete_due_flows() {
  if (model_.general()) {
    complete_general_flows();
    return;
  }
  close_bins();
  completion_event_ = {};
  completion_time_ = kTimeMax;
  auto& done = done_;  // (send order, message) of the flows ending now
  done.clear();
  const TimeNs now = sim_.now();
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
      // per member. The same members as popping; done_ is sorted below either way.
      for (const HeapItem& item : g.heap.items) {
        const Message& msg = messages_pool_[item.message];
        if (item.epoch != msg.epoch) continue;
        done.emplace_back(msg.seq, item.message);
      }
      g.heap.clear();
    }
    while (!g.heap.empty()) {
      const HeapItem top = g.heap.top();
      const Message& msg = messages_pool_[top.message];
      if (top.epoch != msg.epoch) {
        g.heap.pop();
        continue;
      }
      if (!ends_now(top.finish)) break;
      g.heap.pop();
      done.emplace_back(msg.seq, top.message);
    }
    if (!group_dirty_[d.group]) group_dirty_[d.group] = true, dirty_groups_.push_back(d.group);
  }
  std::sort(done.begin(), done.end());
  for (const auto& [seq, m] : done) {
    Message& msg = messages_pool_[m];
    msg.state = Message::State::Arriving;  // a sink may cancel it before its turn below
    const auto route = solver_.route(msg.flow);
    if (!meters_.empty()) {
      // The flow ends within a nanosecond of transfer of its exact end: its meters count
      // what the group says it moved; make that its exact size.
      const double unmoved = msg.finish - groups_[solver_.bottleneck(msg.flow)].v;
      for (const ResourceId r : route)
        if (const std::uint32_t k = meter_of_[r]; k != kNoMeter) meters_[k].bytes += unmoved;
    }
    for (const ResourceId r : route) {
      resource_bytes_[r] += msg.bytes;
      const auto count = --active_per_resource_[r];
      if (flow_count_listener_) flow_count_listener_(r, count);
    }
    ended_bytes_[static_cast<std::size_t>(msg.account)] += msg.bytes;
    solver_.remove_flow(msg.flow);
  }
  solver_.solve();
  schedule_next_completion();
  // Deliveries only schedule events, so done_ cannot change under this loop.
  for (const auto& [seq, m] : done) deliver(m);
  release_if_large(done);
}

// A group of a million flows may end at once; its list need not outlive the moment.
void FlowNetwork::release_if_large(std::vector<std::pair<std::uint64_t, std::uint32_t>>& v) {
  if (v.capacity() > 4096) std::vector<std::pair<std::uint64_t, std::uint32_t>>().swap(v);
}

// ---- dynamics ----------------------------------------------------------------------------------

void FlowNetwork::set_capacity(ResourceId r, double capacity) {
  if (r >= topology_.resource_count()) throw std::out_of_range("capacity of an unknown link direction");
  if (model_.general())  // per-flow progress (flow_network_general.cpp) does not follow capacity changes
    throw std::logic_error("capacity changes are not modelled under general sharing (tcp, priority classes)");
  close_bins();  // bins that ended before now saw the old capacity
  if (capacity_log_.empty()) capacity_log_.resize(topology_.resource_count());
  CapacityLog& log = capacity_log_[r];
  const TimeNs now = sim_.now();
  log.seconds = capacity_seconds(r);
  log.since = now;
  log.changed = true;
  solver_.set_capacity(r, capacity);
  // At once: the solver's listener brings every group and meter to now at the old rates
  // before it installs the new ones.
  solver_.solve();
  schedule_next_completion();
}

double FlowNetwork::capacity_seconds(ResourceId r) const {
  if (!capacity_changed(r)) return topology_.capacity(r) * to_seconds(sim_.now());
  const CapacityLog& log = capacity_log_[r];
  return log.seconds + solver_.capacity(r) * to_seconds(sim_.now() - log.since);
}

std::size_t FlowNetwork::cancel_host(NodeId host) {
  return cancel_matching([host](const Message& m) { return m.src == host || m.dst == host; });
}

std::size_t FlowNetwork::cancel_sink(const MessageSink* sink) {
  return cancel_matching([sink](const Message& m) { return m.sink == sink; });
}

// Scans the pool (O(messages in flight)): cancellations are rare events. A waiting
// message is freed by its pending event; a flowing one leaves the solver now, having
// carried what it moved; an arriving one (complete, delivery later in this instant) is
// skipped by deliver().
template <typename Match>
std::size_t FlowNetwork::cancel_matching(Match match) {
  if (model_.general())  // per-flow progress (flow_network_general.cpp) has no cancellation
    throw std::logic_error("cancelling messages is not modelled under general sharing (tcp, priority classes)");
  close_bins();
  std::vector<std::pair<std::uint64_t, std::uint32_t>> hit;  // (send order, message)
  std::vector<bool> is_free(messages_pool_.size(), false);
  for (std::uint32_t m : free_messages_) is_free[m] = true;
  for (std::uint32_t m = 0; m < messages_pool_.size(); ++m) {
    const Message& msg = messages_pool_[m];
    if (is_free[m] || msg.state == Message::State::Cancelled || !match(msg)) continue;
    hit.emplace_back(msg.seq, m);
  }
  std::sort(hit.begin(), hit.end());
  const TimeNs now = sim_.now();
  std::vector<std::uint32_t> released;
  std::vector<std::pair<MessageSink*, std::uint64_t>> told;  // sinks may send (reuse slots) when told
  for (const auto& [seq, m] : hit) {
    Message& msg = messages_pool_[m];
    told.emplace_back(msg.sink, msg.tag);
    if (msg.state == Message::State::Flowing) {
      const double moved = moved_at(msg, now);
      ended_bytes_[static_cast<std::size_t>(msg.account)] += moved;
      for (const ResourceId r : solver_.route(msg.flow)) {
        resource_bytes_[r] += moved;
        const auto count = --active_per_resource_[r];
        if (flow_count_listener_) flow_count_listener_(r, count);
      }
      solver_.remove_flow(msg.flow);
      released.push_back(m);
    }
    msg.state = Message::State::Cancelled;
  }
  if (!released.empty()) {
    solver_.solve();  // reports the flows leaving their groups while the messages are intact
    schedule_next_completion();
    for (std::uint32_t m : released) free_messages_.push_back(m);
  }
  for (const auto& [sink, tag] : told) sink->on_cancelled(tag);
  return told.size();
}

double FlowNetwork::bytes_moved(ByteAccount account) const {
  double bytes = ended_bytes_[static_cast<std::size_t>(account)];
  const TimeNs now = sim_.now();
  for (std::uint32_t m = 0; m < messages_pool_.size(); ++m) {
    const Message& msg = messages_pool_[m];
    if (msg.state != Message::State::Flowing || msg.account != account) continue;
    bytes += model_.general() ? msg.bytes - general_left_at(m, now) : moved_at(msg, now);
  }
  return bytes * model_.framing;  // the flows move wire bytes; the payload is what a sender sent
}

double FlowNetwork::moved_at(const Message& msg, TimeNs t) const {
  const ResourceId b = solver_.bottleneck(msg.flow);
  if (b == MaxMinSolver::kNone) return 0;  // joined no group yet
  const Group& g = groups_[b];
  const double v = g.v + g.level * to_seconds(t - g.updated);
  return std::clamp(msg.bytes - (msg.finish - v), 0.0, msg.bytes);
}

void FlowNetwork::record_utilization(TimeNs bin, std::vector<ResourceId> resources, std::size_t max_values) {
  if (messages_ > 0) throw std::logic_error("record_utilization must be called before the first message");
  if (resources.empty()) return;
  series_ = UtilizationSeries(resources.size(), bin, max_values);
  meter_of_.assign(topology_.resource_count(), kNoMeter);
  for (std::size_t i = 0; i < resources.size(); ++i) {
    if (resources[i] >= meter_of_.size()) throw std::invalid_argument("recording an unknown link direction");
    if (meter_of_[resources[i]] != kNoMeter) throw std::invalid_argument("a link direction recorded twice");
    meter_of_[resources[i]] = static_cast<std::uint32_t>(i);
  }
  recorded_ = std::move(resources);
  meters_.assign(recorded_.size(), Meter{0, 0, sim_.now(), 0});
  footprint_.assign(topology_.resource_count(), {});
  bytes_at_bin_start_.assign(recorded_.size(), 0.0);
  row_.assign(recorded_.size(), 0.f);
  capacity_at_bin_start_.assign(recorded_.size(), 0.0);
  for (std::size_t i = 0; i < recorded_.size(); ++i)
    capacity_at_bin_start_[i] = topology_.capacity(recorded_[i]) * to_seconds(sim_.now());
  bin_start_ = sim_.now();
}

void FlowNetwork::close_bin(TimeNs end, bool last) {
  const double seconds = to_seconds(end - bin_start_);
  for (std::size_t i = 0; i < recorded_.size(); ++i) {
    const Meter& m = meters_[i];
    const ResourceId r = recorded_[i];
    const double bytes = m.bytes + m.rate * to_seconds(end - m.since);
    // Bytes over the capacity the bin offered: capacity x seconds while it never changed
    // (the same arithmetic as before changes existed), else the integral over the bin.
    double offered = topology_.capacity(r) * seconds;
    if (capacity_changed(r)) {
      const CapacityLog& log = capacity_log_[r];
      const double at_end = log.seconds + solver_.capacity(r) * to_seconds(end - log.since);
      offered = at_end - capacity_at_bin_start_[i];
      capacity_at_bin_start_[i] = at_end;
    } else {
      capacity_at_bin_start_[i] = topology_.capacity(r) * to_seconds(end);
    }
    row_[i] = seconds > 0 && offered > 0 ? static_cast<float>((bytes - bytes_at_bin_start_[i]) / offered) : 0.f;
    bytes_at_bin_start_[i] = bytes;
  }
  if (last) series_.append_last(row_);
  else series_.append_full(row_);
  bin_start_ = end;
}

// Rates have been constant since the last network event, so the byte counts at a bin
// boundary in the past are exact.
void FlowNetwork::close_bins() {
  if (meters_.empty() || finished_) return;
  while (bin_start_ + series_.bin() <= sim_.now()) close_bin(bin_start_ + series_.bin(), false);
}

void FlowNetwork::finish() {
  if (finished_) return;
  close_bins();
  if (!meters_.empty() && sim_.now() > bin_start_) close_bin(sim_.now(), true);
  finished_ = true;
  const TimeNs now = sim_.now();
  if (model_.general()) {  // payload on the forward route of the flows in progress
    for (ResourceId r = 0; r < resource_bytes_.size(); ++r)
      for (MaxMinSolver::FlowId f : solver_.flows_at(r)) {
        const std::uint32_t m = message_of_flow_[f];
        const auto route = solver_.route(f);
        if (std::find(route.begin(), route.begin() + progress_[m].hops, r) != route.begin() + progress_[m].hops)
          resource_bytes_[r] += messages_pool_[m].bytes - general_left_at(m, now);
      }
    return;
  }
  for (ResourceId r = 0; r < resource_bytes_.size(); ++r)
    for (MaxMinSolver::FlowId f : solver_.flows_at(r)) resource_bytes_[r] += moved_at(messages_pool_[message_of_flow_[f]], now);
}

}  // namespace pssim::net
