// What the entries of the schemes built on the PS engine (sim/ps) share: the engine
// itself with a scheme's policy, and the keys that overlap communication with computation
// (protocol.overlap, schedule and partition_bytes: PsConfig's timing, ps_protocol.hpp),
// listed with overlap_fields() and read with read_overlap().
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "sim/protocol/protocol_config.hpp"
#include "sim/ps/scheme_policy.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema.hpp"
#include "sim/schemes/scheme.hpp"

namespace pssim::schemes {

/// The PS engine over the context's layout, with `policy`.
std::unique_ptr<protocol::TrainingProtocol> make_ps(BuildContext& context, std::unique_ptr<ps::SchemePolicy> policy);

/// `fields` and the overlap keys. `no_full`: why overlap full is not modelled under the
/// scheme (empty: it is), said in the key's documentation and in the error.
std::vector<scenario::Field> overlap_fields(std::vector<scenario::Field> fields, std::string_view no_full = {});
/// Reads the overlap keys of the resolved `protocol` node into `out`; throws
/// ScenarioError at overlap full when the scheme gives a reason against it.
void read_overlap(const scenario::ConfigNode& protocol, protocol::ProtocolConfig& out, std::string_view no_full = {});

}  // namespace pssim::schemes
