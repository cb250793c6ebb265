// Builders of the topologies a scenario can ask for.
//
//   star      every host linked to one non-blocking switch "switch"
//   two-tier  hosts under top-of-rack switches "tor-<k>", joined by a core switch "core";
//             a rack's uplink has, in each direction, the sum of its hosts' NIC capacities
//             in that direction divided by the oversubscription ratio
//   explicit  nodes and links as listed
// A host's link to its switch is its NIC: up = host -> switch, down = switch -> host.
#pragma once

#include <string>
#include <vector>

#include "sim/net/topology.hpp"

namespace pssim::net {

struct HostSpec {
  std::string name;
  double up = 0;    ///< bytes/s sent
  double down = 0;  ///< bytes/s received
  TimeNs latency = 0;
};

Topology build_star(const std::vector<HostSpec>& hosts);

/// `rack_of[i]` is the rack (0 .. racks-1) of hosts[i]; every rack must hold a host.
Topology build_two_tier(const std::vector<HostSpec>& hosts, const std::vector<int>& rack_of, int racks,
                        double oversubscription, TimeNs uplink_latency);

struct LinkSpec {
  std::string from, to;
  double forward = 0, reverse = 0;  ///< bytes/s
  TimeNs latency = 0;
};

/// Hosts and switches by name; every link end must be one of them. Throws
/// std::invalid_argument naming an unknown node, or a host with no link.
Topology build_explicit(const std::vector<std::string>& hosts, const std::vector<std::string>& switches,
                        const std::vector<LinkSpec>& links);

}  // namespace pssim::net
