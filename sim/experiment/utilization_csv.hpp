// link_utilization.csv: the network's utilization series as rows (time_s, link,
// utilization), bin by bin, in the order of the recorded link directions.
//
// A long run has millions of rows; each bin's start time and each link's name are
// formatted once, so a row costs one number's formatting.
#pragma once

#include <filesystem>

#include "sim/net/flow_network.hpp"

namespace pssim::experiment {

/// Writes `network`'s utilization series (complete after FlowNetwork::finish()) to `path`
/// atomically. Throws output::OutputError.
void write_link_utilization(const std::filesystem::path& path, const net::FlowNetwork& network);

}  // namespace pssim::experiment
