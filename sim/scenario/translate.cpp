#include "sim/scenario/translate.hpp"

#include <numeric>
#include <set>

#include <fmt/format.h>

#include "sim/scenario/validate.hpp"

namespace pssim::scenario {
namespace {

bool given(const ConfigNode* node) { return node && node->location().line > 0; }

[[noreturn]] void fail(const ConfigNode& at, std::string message) { throw ScenarioError(at.location(), std::move(message)); }

// The file position to blame for a problem with `node`: its own if the user wrote it,
// else (a default) that of `fallback`.
const ConfigNode& written(const ConfigNode& node, const ConfigNode& fallback) { return given(&node) ? node : fallback; }

std::optional<double> optional_bandwidth(const ConfigNode& map, const char* key) {
  if (const ConfigNode* n = map.find(key)) return as_bandwidth(*n);
  return std::nullopt;
}

ModelConfig read_model(const ConfigNode& node) {
  ModelConfig m;
  const std::string& kind = as_text(node.at("kind"));
  if (kind == "synthetic") {
    m.kind = ModelConfig::Kind::Synthetic;
    m.synthetic.params = as_count(node.at("params"));
    m.synthetic.flops_per_sample = as_flops(node.at("flops_per_sample"));
    if (const ConfigNode* layers = node.find("layer_params")) {
      for (const auto& item : layers->items()) m.synthetic.layer_params.push_back(as_count(item));
      const auto sum = std::accumulate(m.synthetic.layer_params.begin(), m.synthetic.layer_params.end(), std::int64_t{0});
      if (sum != m.synthetic.params)
        fail(*layers, fmt::format("model.layer_params sum to {}, but model.params is {}", sum, m.synthetic.params));
    } else {
      m.synthetic.layer_params = {m.synthetic.params};
    }
  }
  return m;
}

StopConfig read_stop(const ConfigNode& node, const ConfigNode& root) {
  StopConfig s;
  if (const ConfigNode* t = node.find("sim_time")) s.sim_time = as_duration(*t);
  if (const ConfigNode* u = node.find("updates")) s.updates = as_count(*u);
  if (!s.sim_time && !s.updates)
    fail(written(node, root), "training.stop needs at least one condition: sim_time (e.g. 60s) or updates (e.g. 100)");
  return s;
}

SpeedConfig read_speed(const ConfigNode& node, std::int64_t workers) {
  SpeedConfig s;
  const std::string& dist = as_text(node.at("dist"));
  if (dist == "constant") {
    s.dist = SpeedConfig::Dist::Constant;
    s.factor = as_real(node.at("factor"));
  } else if (dist == "list") {
    s.dist = SpeedConfig::Dist::List;
    const ConfigNode& list = node.at("factors");
    for (const auto& item : list.items()) s.factors.push_back(as_real(item));
    if (static_cast<std::int64_t>(s.factors.size()) != workers)
      fail(list, fmt::format("cluster.workers.speed.factors has {} entries for {} workers", s.factors.size(), workers));
  } else if (dist == "uniform") {
    s.dist = SpeedConfig::Dist::Uniform;
    s.min = as_real(node.at("min"));
    s.max = as_real(node.at("max"));
    if (s.min > s.max) fail(node.at("max"), fmt::format("speed max {} is below min {}", s.max, s.min));
  } else if (dist == "lognormal") {
    s.dist = SpeedConfig::Dist::Lognormal;
    s.sigma = as_real(node.at("sigma"));
  } else if (dist == "stragglers") {
    s.dist = SpeedConfig::Dist::Stragglers;
    s.fraction = as_real(node.at("fraction"));
    s.slowdown = as_real(node.at("slowdown"));
  } else if (dist == "transient-stragglers") {
    s.dist = SpeedConfig::Dist::TransientStragglers;
    s.probability = as_real(node.at("probability"));
    s.slowdown = as_real(node.at("slowdown"));
  }
  return s;
}

ServersConfig read_servers(ConfigNode& node, std::int64_t workers, const ModelConfig& model) {
  ServersConfig s;
  const std::string& placement = as_text(node.at("placement"));
  s.placement = placement == "balanced"    ? ServersConfig::Placement::Balanced
                : placement == "colocated" ? ServersConfig::Placement::Colocated
                                           : ServersConfig::Placement::RoundRobin;
  s.partition = as_text(node.at("partition")) == "layer" ? ServersConfig::Partition::Layer : ServersConfig::Partition::Bytes;
  s.count = as_count(node.at("count"));
  const bool colocated = s.placement == ServersConfig::Placement::Colocated;
  if (colocated && given(node.find("count")))
    fail(node.at("count"), "cluster.servers.count does not apply with placement: colocated (servers run on the "
                           "worker hosts); remove it");
  if (colocated) s.count = workers;
  if (const ConfigNode* shards = node.find("shards")) {
    s.shards = as_count(*shards);
  } else {
    s.shards = s.count;
    const SourceLocation derived{"derived from cluster.servers.count", 0, 0};
    node.insert_after("count", "shards", derived, ConfigNode::scalar(std::to_string(s.shards), derived));
  }
  const ConfigNode& at_shards = *node.find("shards");
  const auto& layers = model.synthetic.layer_params;
  if (s.partition == ServersConfig::Partition::Layer && s.shards > static_cast<std::int64_t>(layers.size()))
    fail(at_shards, fmt::format("{} shards but the model has {} layers: with partition: layer some shards would be "
                                "empty (use fewer shards or partition: bytes)",
                                s.shards, layers.size()));
  if (s.shards > model.synthetic.params)
    fail(at_shards, fmt::format("{} shards for {} parameters: some shards would be empty", s.shards,
                                model.synthetic.params));
  s.apply_bandwidth = optional_bandwidth(node, "apply_bandwidth");
  return s;
}

NicConfig read_nic(const ConfigNode& node) {
  NicConfig nic;
  const double both = as_bandwidth(node.at("bandwidth"));
  nic.up = optional_bandwidth(node, "up").value_or(both);
  nic.down = optional_bandwidth(node, "down").value_or(both);
  nic.latency = as_duration(node.at("latency"));
  return nic;
}

void read_nic_overrides(const ConfigNode& list, const ClusterConfig& cluster, NetworkConfig& net) {
  std::set<std::string> seen;
  for (const auto& item : list.items()) {
    NicOverride o;
    const ConfigNode& host = item.at("host");
    o.host = as_text(host);
    int index = -1;
    std::int64_t limit = 0;
    if (o.host.rfind("worker-", 0) == 0) limit = cluster.workers.count, index = 7;
    else if (o.host.rfind("server-", 0) == 0) limit = cluster.servers.count, index = 7;
    bool valid = index > 0 && o.host.size() > 7 && o.host.find_first_not_of("0123456789", 7) == std::string::npos &&
                 o.host.size() < 15;
    if (valid) valid = std::stoll(o.host.substr(7)) < limit;
    if (!valid)
      fail(host, fmt::format("no host '{}': hosts are worker-0 .. worker-{} and server-0 .. server-{}", o.host,
                             cluster.workers.count - 1, cluster.servers.count - 1));
    if (!seen.insert(o.host).second) fail(host, fmt::format("host '{}' is overridden twice", o.host));
    const auto both = optional_bandwidth(item, "bandwidth");
    o.up = optional_bandwidth(item, "up");
    o.down = optional_bandwidth(item, "down");
    if (!o.up) o.up = both;
    if (!o.down) o.down = both;
    if (const ConfigNode* l = item.find("latency")) o.latency = as_duration(*l);
    if (!o.up && !o.down && !o.latency) fail(item, "a NIC override needs bandwidth, up, down or latency");
    net.nic_overrides.push_back(o);
  }
}

NetworkConfig read_network(const ConfigNode& node, const ClusterConfig& cluster) {
  NetworkConfig net;
  const std::string& topology = as_text(node.at("topology"));
  if (topology == "explicit") {
    net.topology = NetworkConfig::Topology::Explicit;
    for (const auto& s : node.at("switches").items()) net.switches.push_back(as_text(s));
    for (const auto& l : node.at("links").items()) {
      ExplicitLink link;
      link.from = as_text(l.at("from"));
      link.to = as_text(l.at("to"));
      link.forward = as_bandwidth(l.at("bandwidth"));
      link.reverse = optional_bandwidth(l, "reverse").value_or(link.forward);
      link.latency = as_duration(l.at("latency"));
      if (link.from == link.to) fail(l, fmt::format("link from '{}' to itself", link.from));
      net.links.push_back(link);
    }
    const ConfigNode& workers = node.at("workers");
    for (const auto& w : workers.items()) net.worker_hosts.push_back(as_text(w));
    if (static_cast<std::int64_t>(net.worker_hosts.size()) != cluster.workers.count)
      fail(workers, fmt::format("network.workers lists {} hosts for {} workers", net.worker_hosts.size(),
                                cluster.workers.count));
    const ConfigNode& servers = node.at("servers");
    for (const auto& s : servers.items()) net.server_hosts.push_back(as_text(s));
    if (cluster.servers.placement != ServersConfig::Placement::Colocated &&
        static_cast<std::int64_t>(net.server_hosts.size()) != cluster.servers.count)
      fail(servers, fmt::format("network.servers lists {} hosts for {} servers", net.server_hosts.size(),
                                cluster.servers.count));
    return net;
  }
  net.topology = topology == "two-tier" ? NetworkConfig::Topology::TwoTier : NetworkConfig::Topology::Star;
  net.worker_nic = read_nic(node.at("worker_nic"));
  net.server_nic = read_nic(node.at("server_nic"));
  read_nic_overrides(node.at("nic_overrides"), cluster, net);
  if (net.topology == NetworkConfig::Topology::TwoTier) {
    net.racks = as_count(node.at("racks"));
    if (net.racks > cluster.workers.count)
      fail(node.at("racks"), fmt::format("{} racks for {} workers: some racks would be empty", net.racks,
                                         cluster.workers.count));
    net.oversubscription = as_real(node.at("oversubscription"));
    net.uplink_latency = as_duration(node.at("uplink_latency"));
    net.server_racks = as_text(node.at("server_racks")) == "spread" ? NetworkConfig::ServerRacks::Spread
                                                                    : NetworkConfig::ServerRacks::OwnRack;
  }
  return net;
}

ProtocolConfig read_protocol(const ConfigNode& node, std::int64_t workers) {
  ProtocolConfig p;
  const std::string& mode = as_text(node.at("mode"));
  if (mode == "sync") {
    p.mode = ProtocolConfig::Mode::Sync;
    p.backup_workers = as_count(node.at("backup_workers"));
    if (p.backup_workers >= workers)
      fail(node.at("backup_workers"), fmt::format("{} backup workers out of {}: a round needs at least one gradient",
                                                  p.backup_workers, workers));
  } else if (mode == "async") {
    p.mode = ProtocolConfig::Mode::Async;
  } else {
    p.mode = ProtocolConfig::Mode::Ssp;
    p.staleness = as_count(node.at("staleness"));
  }
  return p;
}

}  // namespace

Scenario translate(ConfigNode& resolved) {
  Scenario s;
  s.name = as_text(resolved.at("name"));
  if (const ConfigNode* d = resolved.find("description")) s.description = as_text(*d);
  s.seed = static_cast<std::uint64_t>(as_count(resolved.at("seed")));
  s.model = read_model(resolved.at("model"));
  s.data.batch_size = as_count(resolved.at("data").at("batch_size"));
  s.training.stop = read_stop(resolved.at("training").at("stop"), resolved);

  ConfigNode& cluster = *resolved.find("cluster");
  const ConfigNode& workers = cluster.at("workers");
  s.cluster.workers.count = as_count(workers.at("count"));
  s.cluster.workers.throughput_flops = as_flop_rate(workers.at("throughput"));
  s.cluster.workers.speed = read_speed(workers.at("speed"), s.cluster.workers.count);
  s.cluster.workers.noise_sigma = as_real(workers.at("noise").at("sigma"));
  s.cluster.servers = read_servers(*cluster.find("servers"), s.cluster.workers.count, s.model);

  s.network = read_network(resolved.at("network"), s.cluster);
  s.protocol = read_protocol(resolved.at("protocol"), s.cluster.workers.count);
  s.output.utilization_interval = as_duration(resolved.at("output").at("utilization_interval"));
  return s;
}

}  // namespace pssim::scenario
