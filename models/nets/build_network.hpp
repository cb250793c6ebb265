// build_network: NetworkSpec -> a network (see nets/network_spec.hpp for the fields).
#pragma once

#include <memory>

#include "models/nets/network.hpp"
#include "models/nets/network_spec.hpp"

namespace pssim::models {

/// Validates `spec` and builds the network. Throws std::invalid_argument naming the field
/// and the fix (unknown preset, missing vocab_size, a layer that does not fit its input).
template <typename Real = float>
std::unique_ptr<NetworkT<Real>> build_network(const NetworkSpec& spec);

}  // namespace pssim::models
