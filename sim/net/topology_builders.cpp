#include "sim/net/topology_builders.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace pssim::net {

Topology build_star(const std::vector<HostSpec>& hosts) {
  Topology t;
  const NodeId sw = t.add_switch("switch");
  for (const auto& h : hosts) t.add_link(t.add_host(h.name), sw, h.up, h.down, h.latency);
  return t;
}

Topology build_two_tier(const std::vector<HostSpec>& hosts, const std::vector<int>& rack_of, int racks,
                        double oversubscription, TimeNs uplink_latency) {
  if (rack_of.size() != hosts.size()) throw std::invalid_argument("two-tier: one rack per host");
  if (racks < 1 || !(oversubscription >= 1)) throw std::invalid_argument("two-tier: racks >= 1, oversubscription >= 1");
  Topology t;
  const NodeId core = t.add_switch("core");
  std::vector<NodeId> tor;
  std::vector<double> up(static_cast<std::size_t>(racks), 0.0), down(static_cast<std::size_t>(racks), 0.0);
  for (int k = 0; k < racks; ++k) tor.push_back(t.add_switch(fmt::format("tor-{}", k)));
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const int k = rack_of[i];
    if (k < 0 || k >= racks) throw std::invalid_argument(fmt::format("two-tier: host {} in no rack", hosts[i].name));
    t.add_link(t.add_host(hosts[i].name), tor[static_cast<std::size_t>(k)], hosts[i].up, hosts[i].down, hosts[i].latency);
    up[static_cast<std::size_t>(k)] += hosts[i].up;
    down[static_cast<std::size_t>(k)] += hosts[i].down;
  }
  for (int k = 0; k < racks; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    if (up[kk] == 0) throw std::invalid_argument(fmt::format("two-tier: rack {} has no host", k));
    t.add_link(tor[kk], core, up[kk] / oversubscription, down[kk] / oversubscription, uplink_latency);
  }
  return t;
}

Topology build_explicit(const std::vector<std::string>& hosts, const std::vector<std::string>& switches,
                        const std::vector<LinkSpec>& links) {
  Topology t;
  for (const auto& s : switches) t.add_switch(s);
  for (const auto& h : hosts)
    if (!t.has_node(h)) t.add_host(h);
  std::vector<int> degree(t.node_count(), 0);
  for (const auto& l : links) {
    for (const auto* end : {&l.from, &l.to})
      if (!t.has_node(*end))
        throw std::invalid_argument(fmt::format("link {} - {}: no host or switch named '{}'", l.from, l.to, *end));
    const NodeId a = t.node(l.from), b = t.node(l.to);
    t.add_link(a, b, l.forward, l.reverse, l.latency);
    ++degree[a], ++degree[b];
  }
  for (const auto& h : hosts)
    if (degree[t.node(h)] == 0) throw std::invalid_argument(fmt::format("host '{}' has no link", h));
  return t;
}

}  // namespace pssim::net
