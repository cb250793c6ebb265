#include "sim/experiment/build_topology.hpp"

#include <stdexcept>
#include <string>

#include "sim/net/topology_builders.hpp"

namespace pssim::experiment {
namespace {

using scenario::NetworkConfig;
using scenario::ServersConfig;

std::string worker_name(std::int64_t i) { return "worker-" + std::to_string(i); }
std::string server_name(std::int64_t j) { return "server-" + std::to_string(j); }

void apply_overrides(net::Topology& t, const NetworkConfig& net) {
  for (const auto& o : net.nic_overrides) {
    if (!t.has_node(o.host))
      throw std::invalid_argument("network.nic_overrides names host '" + o.host + "', which this cluster does not have");
    const net::NodeId host = t.node(o.host);
    const net::LinkId link = t.access_link(host);
    if (o.up) t.set_capacity(t.direction(link, host), *o.up);
    if (o.down) {
      const net::ResourceId up = t.direction(link, host);
      t.set_capacity(up ^ 1u, *o.down);
    }
    if (o.latency) t.set_latency(link, *o.latency);
  }
}

}  // namespace

BuiltTopology build_topology(const scenario::Scenario& s, bool with_servers) {
  const auto& net = s.network;
  const std::int64_t workers = s.cluster.workers.count;
  const bool colocated = s.cluster.servers.placement == ServersConfig::Placement::Colocated;
  const std::int64_t servers = colocated || !with_servers ? 0 : s.cluster.servers.count;
  BuiltTopology out;

  if (net.topology == NetworkConfig::Topology::Explicit) {
    std::vector<std::string> hosts = net.worker_hosts;
    if (!colocated) hosts.insert(hosts.end(), net.server_hosts.begin(), net.server_hosts.end());
    std::vector<net::LinkSpec> links;
    for (const auto& l : net.links) links.push_back({l.from, l.to, l.forward, l.reverse, l.latency});
    out.topology = net::build_explicit(hosts, net.switches, links);
    for (const auto& h : net.worker_hosts) out.worker_hosts.push_back(out.topology.node(h));
    if (!colocated && with_servers)
      for (const auto& h : net.server_hosts) out.server_hosts.push_back(out.topology.node(h));
    return out;
  }

  std::vector<net::HostSpec> hosts;
  for (std::int64_t i = 0; i < workers; ++i)
    hosts.push_back({worker_name(i), net.worker_nic.up, net.worker_nic.down, net.worker_nic.latency});
  for (std::int64_t j = 0; j < servers; ++j)
    hosts.push_back({server_name(j), net.server_nic.up, net.server_nic.down, net.server_nic.latency});
  if (net.topology == NetworkConfig::Topology::Star) {
    out.topology = net::build_star(hosts);
  } else {
    // Workers fill racks in order; servers get a rack of their own or join worker racks.
    std::vector<int> rack_of;
    const auto racks = static_cast<int>(net.racks);
    for (std::int64_t i = 0; i < workers; ++i) rack_of.push_back(static_cast<int>(i * racks / workers));
    const bool own_rack = net.server_racks == NetworkConfig::ServerRacks::OwnRack && servers > 0;
    for (std::int64_t j = 0; j < servers; ++j) rack_of.push_back(own_rack ? racks : static_cast<int>(j % racks));
    out.topology = net::build_two_tier(hosts, rack_of, own_rack ? racks + 1 : racks, net.oversubscription,
                                       net.uplink_latency);
  }
  apply_overrides(out.topology, net);
  for (std::int64_t i = 0; i < workers; ++i) out.worker_hosts.push_back(out.topology.node(worker_name(i)));
  for (std::int64_t j = 0; j < servers; ++j) out.server_hosts.push_back(out.topology.node(server_name(j)));
  return out;
}

}  // namespace pssim::experiment
