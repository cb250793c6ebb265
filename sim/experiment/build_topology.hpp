// The topology of a scenario: hosts named worker-<i> and server-<j>, builder by kind,
// NIC overrides applied.
#pragma once

#include <vector>

#include "sim/net/topology.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::experiment {

struct BuiltTopology {
  net::Topology topology;
  std::vector<net::NodeId> worker_hosts;
  std::vector<net::NodeId> server_hosts;  ///< empty when servers are colocated or not used
};

/// `with_servers` false: no server hosts (schemes without parameter servers); an explicit
/// topology keeps the hosts it lists.
BuiltTopology build_topology(const scenario::Scenario& s, bool with_servers = true);

}  // namespace pssim::experiment
