// FlowNetwork under general sharing (the tcp model, priority classes): flows built with
// their shape (weight, cap, coefficients, class) and tracked one by one. See
// flow_network.hpp; the max-min path with bottleneck groups is in flow_network.cpp.
#include <algorithm>
#include <cmath>

#include "sim/net/flow_network.hpp"

namespace pssim::net {

void FlowNetwork::start_general_flow(std::uint32_t m) {
  close_bins();
  const Message& msg = messages_pool_[m];
  // The forward route, then (tcp with cross-traffic) the reverse route's directions.
  constexpr std::size_t kMax = MaxMinSolver::kMaxGeneralRoute;
  ResourceId route[kMax];
  double coefficients[kMax];
  TimeNs latency = 0;
  const std::size_t hops = topology_.route_into(msg.src, msg.dst, route, latency);
  std::size_t length = hops;
  std::fill_n(coefficients, hops, 1.0);
  MaxMinSolver::FlowShape shape;
  shape.priority = progress_[m].priority;
  if (model_.kind == NetworkModel::Kind::Tcp) {
    const TcpFactors& tcp = model_.tcp;
    const double route_latency = to_seconds(latency);
    double penalty = route_latency;  // SimGrid's sharing penalty; the weight is its inverse
    for (std::size_t i = 0; i < hops; ++i) penalty += tcp.weight_s / topology_.capacity(route[i]);
    if (penalty > 0) shape.weight = 1.0 / penalty;
    if (tcp.gamma > 0 && route_latency > 0) shape.cap = tcp.gamma / (2.0 * route_latency);
    if (tcp.crosstraffic > 0) {
      ResourceId back[kMaxRouteLength];
      TimeNs back_latency = 0;
      const std::size_t back_hops = topology_.route_into(msg.dst, msg.src, back, back_latency);
      for (std::size_t i = 0; i < back_hops; ++i) {
        ResourceId* same = std::find(route, route + length, back[i]);
        if (same != route + length) {
          coefficients[same - route] += tcp.crosstraffic;  // a direction on both paths (odd topologies)
        } else {
          route[length] = back[i];
          coefficients[length++] = tcp.crosstraffic;
        }
      }
    }
  }
  shape.coefficients = {coefficients, length};
  const MaxMinSolver::FlowId flow = solver_.add_flow({route, length}, shape);
  Message& started = messages_pool_[m];
  started.flow = flow;
  if (message_of_flow_.size() <= flow) message_of_flow_.resize(flow + 1);
  message_of_flow_[flow] = m;
  Progress& p = progress_[m];
  p.left = started.bytes;
  p.speed = 0;
  p.since = sim_.now();
  p.hops = static_cast<std::uint8_t>(hops);
  ++p.epoch;
  ++flows_started_;
  for (std::size_t i = 0; i < hops; ++i) {
    const auto count = ++active_per_resource_[route[i]];
    if (flow_count_listener_) flow_count_listener_(route[i], count);
    if (!meters_.empty())
      if (const std::uint32_t k = meter_of_[route[i]]; k != kNoMeter) ++meters_[k].flows;
  }
  request_solve();
}

double FlowNetwork::general_left_at(std::uint32_t m, TimeNs t) const {
  const Progress& p = progress_[m];
  return std::max(0.0, p.left - p.speed * to_seconds(t - p.since));
}

void FlowNetwork::rate_changed(MaxMinSolver::FlowId f, double, double new_rate) {
  const std::uint32_t m = message_of_flow_[f];
  Progress& p = progress_[m];
  const TimeNs now = sim_.now();
  p.left = general_left_at(m, now);
  p.since = now;
  const double old_speed = p.speed;
  p.speed = model_.kind == NetworkModel::Kind::Tcp ? new_rate * model_.tcp.bandwidth_factor : new_rate;
  if (!meters_.empty())
    for (std::size_t i = 0; i < p.hops; ++i)
      if (const std::uint32_t k = meter_of_[solver_.route(f)[i]]; k != kNoMeter) {
        advance(meters_[k]);
        meters_[k].rate += p.speed - old_speed;
      }
  ++p.epoch;
  if (!(p.speed > 0)) return;  // starved by a higher class: no end in sight
  const double seconds = p.left / p.speed;
  const TimeNs time = seconds < 9e9 ? now + round_ns(seconds * 1e9) : kTimeMax;
  flow_due_.push({time, m, p.epoch});
}

void FlowNetwork::schedule_next_general_completion() {
  while (!flow_due_.empty() && flow_due_.top().epoch != progress_[flow_due_.top().message].epoch) flow_due_.pop();
  const TimeNs next = flow_due_.empty() ? kTimeMax : flow_due_.top().time;
  if (next == completion_time_) return;
  if (completion_event_) sim_.cancel(completion_event_);
  completion_event_ = {};
  completion_time_ = next;
  if (next != kTimeMax) completion_event_ = sim_.schedule_at(next, [this] { complete_due_flows(); });
}

void FlowNetwork::complete_general_flows() {
  close_bins();
  completion_event_ = {};
  completion_time_ = kTimeMax;
  auto& done = done_;
  done.clear();
  const TimeNs now = sim_.now();
  while (!flow_due_.empty() && flow_due_.top().time <= now) {
    const FlowDue d = flow_due_.top();
    flow_due_.pop();
    if (d.epoch != progress_[d.message].epoch) continue;
    ++progress_[d.message].epoch;
    done.emplace_back(messages_pool_[d.message].seq, d.message);
  }
  std::sort(done.begin(), done.end());
  for (const auto& [seq, m] : done) {
    Message& msg = messages_pool_[m];
    msg.state = Message::State::Arriving;
    Progress& p = progress_[m];
    const auto route = solver_.route(msg.flow);
    const double unmoved = p.left - p.speed * to_seconds(now - p.since);  // within a nanosecond of transfer
    for (std::size_t i = 0; i < p.hops; ++i) {
      const ResourceId r = route[i];
      resource_bytes_[r] += msg.bytes;
      const auto count = --active_per_resource_[r];
      if (flow_count_listener_) flow_count_listener_(r, count);
      if (meters_.empty()) continue;
      if (const std::uint32_t k = meter_of_[r]; k != kNoMeter) {
        Meter& meter = meters_[k];
        advance(meter);
        meter.bytes += unmoved;  // its exact size
        meter.rate -= p.speed;
        if (--meter.flows == 0) meter.rate = 0;  // no rounding residue on an idle link
      }
    }
    p.speed = 0;
    ended_bytes_[static_cast<std::size_t>(msg.account)] += msg.bytes;
    solver_.remove_flow(msg.flow);
  }
  solver_.solve();
  schedule_next_completion();
  for (const auto& [seq, m] : done) deliver(m);
  release_if_large(done);
}

}  // namespace pssim::net
