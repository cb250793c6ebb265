#include "sim/net/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/net/flow_progress.hpp"
#include "sim/net/group_progress.hpp"

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
      progress_(model.general() ? std::unique_ptr<Progress>(std::make_unique<FlowProgress>(*this, capacities_of(topology)))
                                : std::make_unique<GroupProgress>(*this, capacities_of(topology))),
      solver_(&progress_->solver()),
      resource_bytes_(topology.resource_count(), 0.0),
      active_per_resource_(topology.resource_count(), 0) {
  if (!(model.framing > 0 && model.framing <= 1))
    throw std::invalid_argument(fmt::format("framing must be in (0, 1], not {}", model.framing));
}

FlowNetwork::~FlowNetwork() = default;

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
  progress_->message_created(m);
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
  progress_->sent(m, options);
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
  close_bins();
  progress_->start(m);
  ++flows_started_;
  request_solve();
}

void FlowNetwork::count_start(std::span<const ResourceId> hops) {
  for (const ResourceId r : hops) {
    const auto count = ++active_per_resource_[r];
    if (flow_count_listener_) flow_count_listener_(r, count);
  }
}

void FlowNetwork::count_end(std::span<const ResourceId> hops, double bytes) {
  for (const ResourceId r : hops) {
    resource_bytes_[r] += bytes;
    const auto count = --active_per_resource_[r];
    if (flow_count_listener_) flow_count_listener_(r, count);
  }
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
  solver_->solve();
  schedule_next_completion();
}

void FlowNetwork::advance(Meter& m) {
  const TimeNs now = sim_.now();
  if (now > m.since) {
    m.bytes += m.rate * to_seconds(now - m.since);
    m.since = now;
  }
}

void FlowNetwork::schedule_next_completion() {
  const TimeNs next = progress_->next_completion();
  if (next == completion_time_) return;
  if (completion_event_) sim_.cancel(completion_event_);
  completion_event_ = {};
  completion_time_ = next;
  if (next != kTimeMax) completion_event_ = sim_.schedule_at(next, [this] { complete_due_flows(); });
}

void FlowNetwork::complete_due_flows() {
  close_bins();
  completion_event_ = {};
  completion_time_ = kTimeMax;
  auto& done = done_;  // (send order, message) of the flows ending now
  done.clear();
  progress_->collect_due(done);
  std::sort(done.begin(), done.end());
  for (const auto& [seq, m] : done) {
    Message& msg = messages_pool_[m];
    msg.state = Message::State::Arriving;  // a sink may cancel it before its turn below
    progress_->end(m);
    ended_bytes_[static_cast<std::size_t>(msg.account)] += msg.bytes;
  }
  solver_->solve();
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
  if (!progress_->follows_dynamics())  // per-flow progress (flow_progress.hpp) does not follow them
    throw std::logic_error("capacity changes are not modelled under general sharing (tcp, priority classes)");
  close_bins();  // bins that ended before now saw the old capacity
  if (capacity_log_.empty()) capacity_log_.resize(topology_.resource_count());
  CapacityLog& log = capacity_log_[r];
  const TimeNs now = sim_.now();
  log.seconds = capacity_seconds(r);
  log.since = now;
  log.changed = true;
  solver_->set_capacity(r, capacity);
  // At once: the solver's listener brings every group and meter to now at the old rates
  // before it installs the new ones.
  solver_->solve();
  schedule_next_completion();
}

double FlowNetwork::capacity_seconds(ResourceId r) const {
  if (!capacity_changed(r)) return topology_.capacity(r) * to_seconds(sim_.now());
  const CapacityLog& log = capacity_log_[r];
  return log.seconds + solver_->capacity(r) * to_seconds(sim_.now() - log.since);
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
  if (!progress_->follows_dynamics())  // per-flow progress (flow_progress.hpp) has no cancellation
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
      const double moved = progress_->moved(m, now);
      ended_bytes_[static_cast<std::size_t>(msg.account)] += moved;
      count_end(solver_->route(msg.flow), moved);
      solver_->remove_flow(msg.flow);
      released.push_back(m);
    }
    msg.state = Message::State::Cancelled;
  }
  if (!released.empty()) {
    solver_->solve();  // reports the flows leaving their groups while the messages are intact
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
    bytes += progress_->moved(m, now);
  }
  return bytes * model_.framing;  // the flows move wire bytes; the payload is what a sender sent
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
      const double at_end = log.seconds + solver_->capacity(r) * to_seconds(end - log.since);
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
  for (ResourceId r = 0; r < resource_bytes_.size(); ++r)  // the flows in progress: their payload so far
    for (SharingSolver::FlowId f : solver_->flows_at(r)) {
      const std::uint32_t m = message_of_flow_[f];
      if (progress_->forward(m, r)) resource_bytes_[r] += progress_->moved(m, now);
    }
}

}  // namespace pssim::net
