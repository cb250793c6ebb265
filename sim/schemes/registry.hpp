// The scheme registry: every training scheme a scenario can name, in one table.
//
// An entry gives the scheme's name and documentation and its keys in the scenario's
// `protocol` section (the schema and the reference page come from here), how its keys are
// read and checked against the rest of the scenario, whether it has rounds (outputs), how
// the parameters are laid out among servers and workers, and its factory. The switch on a
// scheme's name happens here only: an unknown name is an error, never another scheme. A
// new scheme is one more entry.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/compute/compute_model.hpp"
#include "sim/core/simulator.hpp"
#include "sim/net/topology.hpp"
#include "sim/net/transport.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/protocol/protocol_config.hpp"
#include "sim/protocol/training_protocol.hpp"
#include "sim/ps/ps_protocol.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema.hpp"
#include "sim/training/model_gradients.hpp"

namespace pssim::schemes {

/// What a scheme's checks look at in the rest of the scenario. The nodes locate errors
/// (file:line); a node not written by the user has line 0.
struct ScenarioFacts {
  std::int64_t workers = 1;
  const scenario::ConfigNode* servers = nullptr;  ///< cluster.servers
  bool two_tier = false;
  std::int64_t racks = 1;
  const scenario::ConfigNode* topology = nullptr;  ///< network.topology
  bool language_model = false;  ///< model.kind lstm-lm
  bool math = false;            ///< a real model with model.math true
  const scenario::ConfigNode* model = nullptr;
  const scenario::ConfigNode* compression = nullptr;  ///< set when push or pull compression is on
};

/// Where the parameters live.
enum class Layout {
  ServerShards,  ///< every part on a server shard
  AllReduced,    ///< one part, replicated on every worker and all-reduced
  Hybrid,        ///< the embedding table's rows on server shards, the rest all-reduced
};

/// What layouts are made from.
struct LayoutInputs {
  std::int64_t params = 0;
  std::vector<std::int64_t> tensor_params;        ///< sizes of the model's tensors, in order
  std::optional<training::EmbeddingTable> embedding;  ///< the embedding table, if the model has one
  std::int64_t shards = 1;
  bool partition_by_layer = false;
  enum class Placement { RoundRobin, Balanced, Colocated } placement = Placement::RoundRobin;
  std::vector<net::NodeId> worker_hosts, server_hosts;
  std::size_t racks = 1;  ///< racks of the two-tier topology (1 otherwise)
};

/// What factories build a protocol from.
struct BuildContext {
  Simulator& sim;
  net::Transport& transport;
  compute::ComputeModel& compute;
  protocol::Observer* observer;
  const protocol::ProtocolConfig& protocol;
  ps::PsConfig config;  ///< timing and limits (has_rounds is set from the entry)
  ps::PsLayout layout;
  ps::PsMath math;
};

struct Scheme {
  std::string name;
  std::string doc;
  std::vector<scenario::Field> fields;  ///< keys of `protocol` besides `mode`
  bool has_rounds = true;               ///< rounds.csv
  bool stale_gradients = false;         ///< gradients may be stale: training.staleness_lr applies
  bool applies_each_gradient = false;   ///< one update per gradient: training.delay_compensation applies
  bool sparse_pulls = true;             ///< cluster.servers.sparse_embeddings is possible
  Layout layout = Layout::ServerShards;
  /// Reads the scheme's keys from the resolved `protocol` node into `out` and checks them
  /// against the scenario; throws ScenarioError at the offending key.
  void (*read)(const scenario::ConfigNode& protocol, const ScenarioFacts& facts, protocol::ProtocolConfig& out);
  /// The protocol. Throws std::invalid_argument for a layout it cannot use.
  std::unique_ptr<protocol::TrainingProtocol> (*create)(BuildContext context);
  /// Workers take protocol.local_steps optimizer steps per computation and push the change
  /// of their parameters, which the shards average and add (local SGD): the experiment
  /// sets up the math and the compute time so.
  bool pushes_change = false;
};

/// Every scheme, in documentation order.
const std::vector<Scheme>& all();
/// The scheme called `name`; throws std::invalid_argument listing the names.
const Scheme& find(const std::string& name);

/// The schema of the scenario's `protocol` section: a variant on `mode`.
scenario::SchemaPtr protocol_schema();

/// The scheme's protocol: the entry's factory, with has_rounds set from the entry.
std::unique_ptr<protocol::TrainingProtocol> build(const Scheme& scheme, BuildContext context);

/// Where the parameters live under `scheme`: shards and their hosts, and the all-reduced
/// part. Throws std::invalid_argument when the model cannot be laid out so (more shards
/// than parameters, layers or table rows; no embedding table for a hybrid).
ps::PsLayout make_layout(const Scheme& scheme, const protocol::ProtocolConfig& protocol, const LayoutInputs& in);

}  // namespace pssim::schemes
