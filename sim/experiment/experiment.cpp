#include "sim/experiment/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/experiment/build_topology.hpp"

namespace pssim::experiment {
namespace {

using scenario::ServersConfig;
using scenario::SpeedConfig;

ps::ComputeSpec compute_spec(const scenario::WorkersConfig& w) {
  ps::ComputeSpec c;
  const auto& s = w.speed;
  switch (s.dist) {
    case SpeedConfig::Dist::Constant: c.speed = ps::ComputeSpec::Speed::Constant; break;
    case SpeedConfig::Dist::List: c.speed = ps::ComputeSpec::Speed::List; break;
    case SpeedConfig::Dist::Uniform: c.speed = ps::ComputeSpec::Speed::Uniform; break;
    case SpeedConfig::Dist::Lognormal: c.speed = ps::ComputeSpec::Speed::Lognormal; break;
    case SpeedConfig::Dist::Stragglers: c.speed = ps::ComputeSpec::Speed::Stragglers; break;
    case SpeedConfig::Dist::TransientStragglers: c.speed = ps::ComputeSpec::Speed::TransientStragglers; break;
  }
  c.factor = s.factor;
  c.factors = s.factors;
  c.min = s.min;
  c.max = s.max;
  c.sigma = s.sigma;
  c.fraction = s.fraction;
  c.slowdown = s.slowdown;
  c.probability = s.probability;
  c.noise_sigma = w.noise_sigma;
  c.throughput = w.throughput_flops;
  return c;
}

ps::PsConfig protocol_config(const scenario::Scenario& s) {
  ps::PsConfig c;
  switch (s.protocol.mode) {
    case scenario::ProtocolConfig::Mode::Sync: c.mode = ps::PsConfig::Mode::Sync; break;
    case scenario::ProtocolConfig::Mode::Async: c.mode = ps::PsConfig::Mode::Async; break;
    case scenario::ProtocolConfig::Mode::Ssp: c.mode = ps::PsConfig::Mode::Ssp; break;
  }
  c.backup_workers = s.protocol.backup_workers;
  c.staleness = s.protocol.staleness;
  c.flops_per_iteration = static_cast<double>(s.data.batch_size()) * s.model.synthetic.flops_per_sample;
  c.apply_bandwidth = s.cluster.servers.apply_bandwidth;
  c.stop_updates = s.training.stop.updates;
  return c;
}

// Link directions whose utilization is recorded over time: all of them in small
// networks; in large ones, all but the workers' own NIC links (those are summarized by
// links.csv), which keeps the series small while showing servers and switch uplinks.
std::vector<net::ResourceId> recorded_resources(const net::Topology& t, const std::vector<net::NodeId>& workers) {
  std::vector<net::ResourceId> out;
  if (t.resource_count() <= 512) {
    for (net::ResourceId r = 0; r < t.resource_count(); ++r) out.push_back(r);
    return out;
  }
  std::vector<bool> worker_link(t.link_count(), false);
  for (net::NodeId w : workers) worker_link[t.access_link(w)] = true;
  for (net::ResourceId r = 0; r < t.resource_count(); ++r)
    if (!worker_link[r / 2]) out.push_back(r);
  return out;
}

}  // namespace

Experiment::Experiment(const scenario::Scenario& s) : scenario_(s), sim_(s.seed) {
  BuiltTopology built = build_topology(s);
  topology_ = std::move(built.topology);
  layout_.worker_hosts = built.worker_hosts;

  const auto& model = s.model.synthetic;
  const auto& servers = s.cluster.servers;
  layout_.shards = servers.partition == ServersConfig::Partition::Layer
                       ? ps::partition_by_layer(model.layer_params, servers.shards)
                       : ps::partition_by_bytes(model.params, servers.shards);
  const bool colocated = servers.placement == ServersConfig::Placement::Colocated;
  const std::vector<net::NodeId>& hosts = colocated ? built.worker_hosts : built.server_hosts;
  const auto host_count = static_cast<std::int64_t>(hosts.size());
  const std::vector<std::int64_t> placement = servers.placement == ServersConfig::Placement::Balanced
                                                  ? ps::place_balanced(layout_.shards, host_count)
                                                  : ps::place_round_robin(layout_.shards.size(), host_count);
  for (std::int64_t h : placement) layout_.shard_hosts.push_back(hosts[static_cast<std::size_t>(h)]);
  check_connected();

  network_ = std::make_unique<net::FlowNetwork>(sim_, topology_);
  network_->record_utilization(s.output.utilization_interval, recorded_resources(topology_, layout_.worker_hosts));
  compute_ = std::make_unique<ps::ComputeModel>(compute_spec(s.cluster.workers),
                                                static_cast<std::size_t>(s.cluster.workers.count), sim_.random());
  config_ = protocol_config(s);
  engine_ = std::make_unique<ps::PsEngine>(sim_, *network_, *compute_, config_, layout_, &forward_);
}

// Every worker must reach every shard's host and back; better said now than mid-run.
void Experiment::check_connected() const {
  std::vector<net::NodeId> servers = layout_.shard_hosts;
  std::sort(servers.begin(), servers.end());
  servers.erase(std::unique(servers.begin(), servers.end()), servers.end());
  net::ResourceId buffer[net::kMaxRouteLength];
  TimeNs latency;
  try {
    for (net::NodeId w : layout_.worker_hosts)
      for (net::NodeId s : servers) {
        topology_.route_into(w, s, buffer, latency);
        topology_.route_into(s, w, buffer, latency);
      }
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

double Experiment::progress_fraction() const {
  const auto& stop = scenario_.training.stop;
  double f = 0;
  if (stop.sim_time) f = std::max(f, static_cast<double>(sim_.now()) / static_cast<double>(*stop.sim_time));
  if (stop.updates) {
    std::int64_t least = engine_->shard_version(0);
    for (std::size_t s = 1; s < engine_->shards(); ++s) least = std::min(least, engine_->shard_version(s));
    f = std::max(f, static_cast<double>(least) / static_cast<double>(*stop.updates));
  }
  return std::min(f, 1.0);
}

RunStats Experiment::run(ps::PsObserver* observer, const std::function<void(const Experiment&)>& progress) {
  if (sim_.events_executed() > 0) throw std::logic_error("an experiment runs once");
  forward_.target = observer;
  const auto start = std::chrono::steady_clock::now();
  engine_->start();
  const auto& stop = scenario_.training.stop;
  if (stop.sim_time) sim_.schedule_at(*stop.sim_time, [this] { sim_.stop(); });
  std::uint64_t next_report = 1 << 14;
  sim_.run_until_condition([&] {
    if (progress && sim_.events_executed() >= next_report) {
      next_report = sim_.events_executed() + (1 << 14);
      progress(*this);
    }
    return engine_->finished();
  });
  RunStats stats;
  if (engine_->finished()) {
    stats.stopped_by = StopReason::Updates;
  } else if (stop.sim_time && sim_.now() == *stop.sim_time) {
    stats.stopped_by = StopReason::SimTime;
  } else {
    throw std::runtime_error(fmt::format("the simulation ran out of events at {} s before reaching a stop condition "
                                         "(a protocol deadlock: please report it with the scenario)",
                                         to_seconds(sim_.now())));
  }
  network_->finish();
  engine_->finish();
  forward_.target = nullptr;
  stats.sim_time = sim_.now();
  stats.events = sim_.events_executed();
  stats.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace pssim::experiment
