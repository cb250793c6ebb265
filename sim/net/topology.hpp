// Topology: hosts and switches joined by full-duplex links, held in a Boost.Graph graph.
//
// Every link has a latency and one capacity per direction (bytes per second). Each
// direction of a link is a *resource* of the flow model: resource 2*l is link l from its
// first end to its second ("up" for a host's NIC link), 2*l + 1 the reverse ("down").
// Switches are non-blocking: only links constrain flows.
//
// Routes are shortest paths by total latency, ties broken by fewest hops, then by link
// order (deterministic). A host with a single link (its NIC) always leaves and arrives by
// it, so routes between such hosts only need shortest-path trees rooted at switches:
// Dijkstra runs once per switch that starts a route, O((V + E) log V), and each requested
// (source, destination) route is cached. Memory grows with the pairs used, not V^2.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sim/core/time.hpp"

namespace pssim::net {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
using ResourceId = std::uint32_t;

/// The longest route a flow may take, in links.
inline constexpr std::size_t kMaxRouteLength = 8;  // = MaxMinSolver::kMaxRoute

struct Route {
  std::vector<ResourceId> resources;  ///< link directions crossed, in order
  TimeNs latency = 0;                 ///< sum of the links' latencies
};

class Topology {
 public:
  enum class NodeKind { Host, Switch };

  NodeId add_host(std::string name);
  NodeId add_switch(std::string name);
  /// A full-duplex link. `capacity_ab` applies from a to b, `capacity_ba` from b to a
  /// (bytes per second, > 0). Throws std::invalid_argument for bad values.
  LinkId add_link(NodeId a, NodeId b, double capacity_ab, double capacity_ba, TimeNs latency);

  std::size_t node_count() const { return nodes_.size(); }
  std::size_t link_count() const { return links_.size(); }
  std::size_t resource_count() const { return 2 * links_.size(); }
  const std::string& node_name(NodeId n) const { return nodes_.at(n).name; }
  NodeKind node_kind(NodeId n) const { return nodes_.at(n).kind; }
  /// Node by name; throws std::out_of_range naming it when absent.
  NodeId node(const std::string& name) const;
  bool has_node(const std::string& name) const { return by_name_.count(name) != 0; }

  double capacity(ResourceId r) const;
  /// "worker-3 -> switch" style name of a link direction.
  std::string resource_name(ResourceId r) const;
  /// The link a host is attached by, if it has exactly one (its NIC link).
  LinkId access_link(NodeId host) const;
  /// The resource of link l in the direction leaving node `from`.
  ResourceId direction(LinkId l, NodeId from) const;
  /// Changes one direction's capacity (per-host NIC overrides). Routes are unaffected.
  void set_capacity(ResourceId r, double capacity);
  void set_latency(LinkId l, TimeNs latency);

  /// The cached route from src to dst. Throws std::runtime_error if dst is unreachable
  /// or the route is longer than kMaxRouteLength. src == dst gives an empty route.
  const Route& route(NodeId src, NodeId dst) const;

  /// The same route written into `out` (room for kMaxRouteLength resources), without the
  /// per-pair cache: O(route length) after the first route from the same switch, and no
  /// hashing, for the hot path of sending messages. Returns the number of resources.
  std::size_t route_into(NodeId src, NodeId dst, ResourceId* out, TimeNs& latency) const {
    // Two hosts on one switch whose first hops are known (twice per message: at its send
    // and at its start), in line; everything else, and the errors, out of line.
    if (src < first_hops_.size() && dst < first_hops_.size() && src != dst) {
      const FirstHop& from = first_hops_[src];
      const FirstHop& to = first_hops_[dst];
      if (from.known && to.known && from.link != kNoLink && to.link != kNoLink && from.start == to.start &&
          from.start != dst) {
        out[0] = from.out;
        out[1] = to.in;
        latency = from.latency + to.latency;
        return 2;
      }
    }
    return route_into_any(src, dst, out, latency);
  }

 private:
  struct Node {
    std::string name;
    NodeKind kind;
  };
  struct Link {
    NodeId a, b;
    double capacity[2];
    TimeNs latency;
  };
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                      boost::property<boost::edge_index_t, LinkId>>;

  /// Shortest-path tree rooted at `root`: for every node, the link that reaches it from
  /// its parent (kNoLink for the root and unreachable nodes).
  struct Tree {
    std::vector<LinkId> via;
  };
  static constexpr LinkId kNoLink = 0xffffffffu;

  NodeId add_node(std::string name, NodeKind kind);
  void invalidate_routes();
  const Tree& tree_from(NodeId root) const;
  /// The first hop of routes from src (its access link, for a single-link host) and the
  /// node the rest of the path starts from.
  void first_hop(NodeId src, LinkId& link, NodeId& start) const;
  // route_into() for any pair, with its errors; route() builds its table with it.
  std::size_t route_into_any(NodeId src, NodeId dst, ResourceId* out, TimeNs& latency) const;
  std::int64_t weight(LinkId l) const;

  Graph graph_;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::unordered_map<std::string, NodeId> by_name_;
  mutable std::unordered_map<std::uint64_t, Route> routes_;  // key: src << 32 | dst
  mutable std::unordered_map<NodeId, Tree> trees_;
  mutable std::vector<const Tree*> tree_of_start_;  // per node: its tree, once built
  // Per node, once asked: first_hop() (it looks the access link up in the graph, which
  // showed in the profile of sending messages), with the access link's two directions and
  // latency, so that a route between hosts on one switch reads nothing else.
  struct FirstHop {
    LinkId link = kNoLink;
    NodeId start = 0;
    ResourceId out = 0;  // the access link's direction away from the node (valid with a link)
    ResourceId in = 0;   // its direction into the node
    TimeNs latency = 0;  // the access link's latency
    bool known = false;
  };
  mutable std::vector<FirstHop> first_hops_;
  // first_hops_[node], found once (the vector is cleared when nodes or links change).
  const FirstHop& first_hop_of(NodeId node) const {
    if (first_hops_.empty()) first_hops_.assign(nodes_.size(), FirstHop{});
    FirstHop& hop = first_hops_[node];
    if (!hop.known) {
      first_hop(node, hop.link, hop.start);
      if (hop.link != kNoLink) {
        const bool node_is_a = links_[hop.link].a == node;
        hop.out = 2 * hop.link + (node_is_a ? 0 : 1);
        hop.in = 2 * hop.link + (node_is_a ? 1 : 0);
        hop.latency = links_[hop.link].latency;
      }
      hop.known = true;
    }
    return hop;
  }
};

}  // namespace pssim::net
