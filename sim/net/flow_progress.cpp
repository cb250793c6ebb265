#include "sim/net/flow_progress.hpp"

#include <algorithm>
#include <cmath>

namespace pssim::net {

FlowNetwork::FlowProgress::FlowProgress(FlowNetwork& network, std::vector<double> capacities)
    : net_(network), solver_(std::move(capacities), this) {}

void FlowNetwork::FlowProgress::message_created(std::uint32_t m) {
  if (state_.size() <= m) state_.resize(m + 1);
}

void FlowNetwork::FlowProgress::start(std::uint32_t m) {
  const Message& msg = net_.messages_pool_[m];
  const NetworkModel& model = net_.model_;
  const Topology& topology = net_.topology_;
  // The forward route, then (tcp with cross-traffic) the reverse route's directions.
  constexpr std::size_t kMax = SharingSolver::kMaxGeneralRoute;
  ResourceId route[kMax];
  double coefficients[kMax];
  TimeNs latency = 0;
  const std::size_t hops = topology.route_into(msg.src, msg.dst, route, latency);
  std::size_t length = hops;
  std::fill_n(coefficients, hops, 1.0);
  SharingSolver::FlowShape shape;
  shape.priority = state_[m].priority;
  if (model.kind == NetworkModel::Kind::Tcp) {
    const TcpFactors& tcp = model.tcp;
    const double route_latency = to_seconds(latency);
    double penalty = route_latency;  // SimGrid's sharing penalty; the weight is its inverse
    for (std::size_t i = 0; i < hops; ++i) penalty += tcp.weight_s / topology.capacity(route[i]);
    if (penalty > 0) shape.weight = 1.0 / penalty;
    if (tcp.gamma > 0 && route_latency > 0) shape.cap = tcp.gamma / (2.0 * route_latency);
    if (tcp.crosstraffic > 0) {
      ResourceId back[kMaxRouteLength];
      TimeNs back_latency = 0;
      const std::size_t back_hops = topology.route_into(msg.dst, msg.src, back, back_latency);
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
  const SharingSolver::FlowId flow = solver_.add_flow({route, length}, shape);
  Message& started = net_.messages_pool_[m];
  started.flow = flow;
  auto& of_flow = net_.message_of_flow_;
  if (of_flow.size() <= flow) of_flow.resize(flow + 1);
  of_flow[flow] = m;
  State& p = state_[m];
  p.left = started.bytes;
  p.speed = 0;
  p.since = net_.sim_.now();
  p.hops = static_cast<std::uint8_t>(hops);
  ++p.epoch;
  net_.count_start({route, hops});
  if (!net_.meters_.empty())
    for (std::size_t i = 0; i < hops; ++i)
      if (const std::uint32_t k = net_.meter_of_[route[i]]; k != kNoMeter) ++net_.meters_[k].flows;
}

double FlowNetwork::FlowProgress::left_at(std::uint32_t m, TimeNs t) const {
  const State& p = state_[m];
  return std::max(0.0, p.left - p.speed * to_seconds(t - p.since));
}

bool FlowNetwork::FlowProgress::forward(std::uint32_t m, ResourceId r) const {
  const auto route = solver_.route(net_.messages_pool_[m].flow);
  return std::find(route.begin(), route.begin() + state_[m].hops, r) != route.begin() + state_[m].hops;
}

void FlowNetwork::FlowProgress::rate_changed(SharingSolver::FlowId f, double, double new_rate) {
  const std::uint32_t m = net_.message_of_flow_[f];
  State& p = state_[m];
  const TimeNs now = net_.sim_.now();
  p.left = left_at(m, now);
  p.since = now;
  const double old_speed = p.speed;
  p.speed = net_.model_.kind == NetworkModel::Kind::Tcp ? new_rate * net_.model_.tcp.bandwidth_factor : new_rate;
  if (!net_.meters_.empty())
    for (std::size_t i = 0; i < p.hops; ++i)
      if (const std::uint32_t k = net_.meter_of_[solver_.route(f)[i]]; k != kNoMeter) {
        net_.advance(net_.meters_[k]);
        net_.meters_[k].rate += p.speed - old_speed;
      }
  ++p.epoch;
  if (!(p.speed > 0)) return;  // starved by a higher class: no end in sight
  const double seconds = p.left / p.speed;
  const TimeNs time = seconds < 9e9 ? now + round_ns(seconds * 1e9) : kTimeMax;
  due_.push({time, m, p.epoch});
}

TimeNs FlowNetwork::FlowProgress::next_completion() {
  while (!due_.empty() && due_.top().epoch != state_[due_.top().message].epoch) due_.pop();
  return due_.empty() ? kTimeMax : due_.top().time;
}

void FlowNetwork::FlowProgress::collect_due(std::vector<std::pair<std::uint64_t, std::uint32_t>>& done) {
  const TimeNs now = net_.sim_.now();
  while (!due_.empty() && due_.top().time <= now) {
    const Due d = due_.top();
    due_.pop();
    if (d.epoch != state_[d.message].epoch) continue;
    ++state_[d.message].epoch;
    done.emplace_back(net_.messages_pool_[d.message].seq, d.message);
  }
}

void FlowNetwork::FlowProgress::end(std::uint32_t m) {
  const Message& msg = net_.messages_pool_[m];
  State& p = state_[m];
  const auto route = solver_.route(msg.flow);
  const TimeNs now = net_.sim_.now();
  const double unmoved = p.left - p.speed * to_seconds(now - p.since);  // within a nanosecond of transfer
  net_.count_end(route.first(p.hops), msg.bytes);
  if (!net_.meters_.empty())
    for (std::size_t i = 0; i < p.hops; ++i)
      if (const std::uint32_t k = net_.meter_of_[route[i]]; k != kNoMeter) {
        Meter& meter = net_.meters_[k];
        net_.advance(meter);
        meter.bytes += unmoved;  // its exact size
        meter.rate -= p.speed;
        if (--meter.flows == 0) meter.rate = 0;  // no rounding residue on an idle link
      }
  p.speed = 0;
  solver_.remove_flow(msg.flow);
}

}  // namespace pssim::net
