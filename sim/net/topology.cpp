#include "sim/net/topology.hpp"

#include <cmath>
#include <stdexcept>

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <fmt/format.h>

namespace pssim::net {

NodeId Topology::add_node(std::string name, NodeKind kind) {
  if (by_name_.count(name)) throw std::invalid_argument(fmt::format("node '{}' defined twice", name));
  const NodeId id = static_cast<NodeId>(boost::add_vertex(graph_));
  by_name_.emplace(name, id);
  nodes_.push_back({std::move(name), kind});
  invalidate_routes();
  return id;
}

void Topology::invalidate_routes() {
  routes_.clear();
  trees_.clear();
  tree_of_start_.clear();
  first_hops_.clear();
}

NodeId Topology::add_host(std::string name) { return add_node(std::move(name), NodeKind::Host); }
NodeId Topology::add_switch(std::string name) { return add_node(std::move(name), NodeKind::Switch); }

LinkId Topology::add_link(NodeId a, NodeId b, double capacity_ab, double capacity_ba, TimeNs latency) {
  if (a >= nodes_.size() || b >= nodes_.size() || a == b)
    throw std::invalid_argument("a link joins two different existing nodes");
  for (double c : {capacity_ab, capacity_ba})
    if (!(c > 0) || !std::isfinite(c))
      throw std::invalid_argument(fmt::format("link {} - {} needs a positive, finite capacity", nodes_[a].name,
                                              nodes_[b].name));
  if (latency < 0) throw std::invalid_argument("negative link latency");
  const LinkId id = static_cast<LinkId>(links_.size());
  links_.push_back({a, b, {capacity_ab, capacity_ba}, latency});
  boost::add_edge(a, b, id, graph_);
  invalidate_routes();
  return id;
}

NodeId Topology::node(const std::string& name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) throw std::out_of_range(fmt::format("no node named '{}'", name));
  return it->second;
}

double Topology::capacity(ResourceId r) const { return links_.at(r / 2).capacity[r % 2]; }

void Topology::set_capacity(ResourceId r, double capacity) {
  if (!(capacity > 0) || !std::isfinite(capacity)) throw std::invalid_argument("capacity must be positive and finite");
  links_.at(r / 2).capacity[r % 2] = capacity;
}

void Topology::set_latency(LinkId l, TimeNs latency) {
  if (latency < 0) throw std::invalid_argument("negative link latency");
  links_.at(l).latency = latency;
  invalidate_routes();
}

ResourceId Topology::direction(LinkId l, NodeId from) const {
  const Link& link = links_.at(l);
  if (link.a != from && link.b != from) throw std::invalid_argument("node is not an end of the link");
  return 2 * l + (link.a == from ? 0 : 1);
}

std::string Topology::resource_name(ResourceId r) const {
  const Link& l = links_.at(r / 2);
  const NodeId from = r % 2 == 0 ? l.a : l.b;
  const NodeId to = r % 2 == 0 ? l.b : l.a;
  return nodes_[from].name + " -> " + nodes_[to].name;
}

LinkId Topology::access_link(NodeId host) const {
  const auto [begin, end] = boost::out_edges(host, graph_);
  if (std::distance(begin, end) != 1)
    throw std::logic_error(fmt::format("host '{}' does not have exactly one link", nodes_.at(host).name));
  return boost::get(boost::edge_index, graph_, *begin);
}

std::int64_t Topology::weight(LinkId l) const {
  // Latency in ns scaled by 2^20, plus 1 per hop: equal latencies prefer fewer hops.
  // Latencies are at most 10 s = 1e10 ns, so a path of 2^20 hops stays below 2^63.
  return links_[l].latency * (std::int64_t{1} << 20) + 1;
}

const Topology::Tree& Topology::tree_from(NodeId root) const {
  if (auto it = trees_.find(root); it != trees_.end()) return it->second;
  const std::size_t n = nodes_.size();
  std::vector<std::int64_t> distance(n);
  std::vector<std::size_t> predecessor(n);
  auto weights = boost::make_function_property_map<Graph::edge_descriptor>(
      [this](const Graph::edge_descriptor& e) { return weight(boost::get(boost::edge_index, graph_, e)); });
  boost::dijkstra_shortest_paths(graph_, root,
                                 boost::predecessor_map(predecessor.data()).distance_map(distance.data()).weight_map(weights));
  Tree tree;
  tree.via.assign(n, kNoLink);
  // The link into each node from its parent: among parallel links the lightest, then the
  // lowest id. One pass over the links: O(E).
  for (LinkId l = 0; l < links_.size(); ++l) {
    const NodeId a = links_[l].a, b = links_[l].b;
    for (const auto& [parent, child] : {std::pair{a, b}, std::pair{b, a}}) {
      if (child == root || predecessor[child] != parent) continue;
      const LinkId best = tree.via[child];
      if (best == kNoLink || weight(l) < weight(best) || (weight(l) == weight(best) && l < best)) tree.via[child] = l;
    }
  }
  return trees_.emplace(root, std::move(tree)).first->second;
}

void Topology::first_hop(NodeId src, LinkId& link, NodeId& start) const {
  link = kNoLink;
  start = src;
  if (nodes_[src].kind == NodeKind::Host && boost::out_degree(src, graph_) == 1) {
    link = access_link(src);
    start = links_[link].a == src ? links_[link].b : links_[link].a;
  }
}

std::size_t Topology::route_into_any(NodeId src, NodeId dst, ResourceId* out, TimeNs& latency) const {
  if (src >= nodes_.size() || dst >= nodes_.size()) throw std::out_of_range("route between unknown nodes");
  latency = 0;
  if (src == dst) return 0;
  std::size_t n = 0;
  const FirstHop& hop = first_hop_of(src);
  const LinkId link = hop.link;
  const NodeId start = hop.start;
  if (link != kNoLink) {
    out[n++] = hop.out;
    latency += hop.latency;
  }
  if (start != dst) {
    // A single-link destination on the same switch: its link is the rest of the route
    // (every other path into it ends with that link too), without the tree.
    if (const FirstHop& last = first_hop_of(dst); last.link != kNoLink && last.start == start) {
      out[n++] = last.in;
      latency += last.latency;
      return n;
    }
    if (tree_of_start_.empty()) tree_of_start_.assign(nodes_.size(), nullptr);  // cleared when nodes change
    if (!tree_of_start_[start]) tree_of_start_[start] = &tree_from(start);
    const Tree& tree = *tree_of_start_[start];
    // Walk up from dst to the root, then reverse that part in place.
    const std::size_t first = n;
    for (NodeId v = dst; v != start;) {
      const LinkId l = tree.via[v];
      if (l == kNoLink)
        throw std::runtime_error(fmt::format("no route from {} to {}: the topology is not connected",
                                             nodes_[src].name, nodes_[dst].name));
      if (n == kMaxRouteLength)
        throw std::runtime_error(fmt::format("the route from {} to {} crosses more than {} links",
                                             nodes_[src].name, nodes_[dst].name, kMaxRouteLength));
      const NodeId u = links_[l].a == v ? links_[l].b : links_[l].a;
      out[n++] = 2 * l + (links_[l].a == u ? 0 : 1);
      latency += links_[l].latency;
      v = u;
    }
    std::reverse(out + first, out + n);
  }
  return n;
}

const Route& Topology::route(NodeId src, NodeId dst) const {
  const std::uint64_t key = (std::uint64_t{src} << 32) | dst;
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;
  ResourceId buffer[kMaxRouteLength];
  Route route;
  const std::size_t n = route_into_any(src, dst, buffer, route.latency);
  route.resources.assign(buffer, buffer + n);
  return routes_.emplace(key, std::move(route)).first->second;
}

}  // namespace pssim::net
