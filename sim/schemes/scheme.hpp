// Scheme: one training scheme, whole: its name and documentation, its keys in the
// scenario's `protocol` section and its settings type, its capabilities, where the
// parameters live, its protocol, and its math as two rules.
//
// Each scheme is defined in a file of its own (sim/schemes/<name>.cpp) as one entry built
// with named fields, and listed once in the registry (registry.cpp). Its settings are a
// type of that file: its `read` function checks the keys and stores them in
// ProtocolConfig::settings (a std::any), and its factory and rules read them back with
// settings_as<T>(). So a new scheme adds a file and a line, and changes no shared header.
//
// Capabilities are what the rest of the program asks instead of comparing names: the
// scenario layer's checks and messages, the schema's prose, the outputs, and the plots
// (`pssim schema --schemes` prints them for analysis/).
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/optim/optimizer.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/core/simulator.hpp"
#include "sim/net/topology.hpp"
#include "sim/net/transport.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/protocol/protocol_config.hpp"
#include "sim/protocol/training_protocol.hpp"
#include "sim/ps/ps_config.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema.hpp"
#include "sim/training/learning_rate.hpp"
#include "sim/training/model_gradients.hpp"
#include "sim/training/server_rule.hpp"
#include "sim/training/worker_rule.hpp"

namespace pssim::schemes {

/// The largest worker count a scheme's key may name (backup workers ...).
constexpr double kMaxWorkers = 100'000;

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
const char* to_string(Layout layout);  ///< "server-shards", "all-reduced", "hybrid"

/// What the scenario layer, the outputs and the plots may ask of a scheme.
struct Capabilities {
  bool has_rounds = true;              ///< rounds that every part completes (rounds.csv, round times)
  bool stale_gradients = false;        ///< gradients may be stale: training.staleness_lr applies
  bool applies_each_gradient = false;  ///< one update per gradient: training.delay_compensation applies
  bool sparse_pulls = false;           ///< a worker pulls the rows its next batch reads: sparse_embeddings
  bool abandons_stale = false;         ///< a round may close without a straggler: protocol.abandon_stale
  /// Every iteration is one round of one gradient from every worker, applied once: the
  /// closed forms of a round hold (analysis/closed_forms.py).
  bool bulk_synchronous = false;
  /// Why a setting is not modelled under the scheme, for the error (empty: it is).
  std::string_view no_adaptive_batches;  ///< cluster.workers.batch: adaptive
  std::string_view no_server_crashes;    ///< server_crash, server_recover events
  std::string_view no_worker_crashes;    ///< worker_crash, worker_recover events
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

/// What a scheme's rules are made from (besides its settings).
struct RuleInputs {
  models::OptimizerSpec optimizer;  ///< training.optimizer
  training::LearningRatePolicy lr;  ///< its rates
  std::int64_t workers = 1;
};

using WorkerRuleFactory = std::unique_ptr<training::WorkerRule> (*)(const protocol::ProtocolConfig&, const RuleInputs&);
using ServerRuleFactory = std::unique_ptr<training::ServerRule> (*)(const protocol::ProtocolConfig&, const RuleInputs&);
/// The default rules: a gradient per computation; training.optimizer on what arrives.
std::unique_ptr<training::WorkerRule> gradient_rule(const protocol::ProtocolConfig&, const RuleInputs&);
std::unique_ptr<training::ServerRule> optimizer_rule(const protocol::ProtocolConfig&, const RuleInputs& in);
/// The default count of gradients an averaged update waits for: one per worker.
inline std::int64_t every_worker(const protocol::ProtocolConfig&, std::int64_t workers) { return workers; }

struct Scheme {
  std::string name;   ///< protocol.mode
  std::string label;  ///< how plots and tables name it ("SSP", "local SGD")
  /// How tables and plots describe a run of it, with its settings: `{key}` stands for the
  /// value of protocol.key, `{key|noun}` for it counted ("4 steps"). Empty: the label.
  std::string summary;
  std::string doc;
  std::vector<scenario::Field> fields;  ///< keys of `protocol` besides `mode`
  Layout layout = Layout::ServerShards;
  Capabilities capabilities;
  /// Reads the scheme's keys from the resolved `protocol` node into `out` (its settings
  /// type into out.settings) and checks them against the scenario; throws ScenarioError
  /// at the offending key.
  void (*read)(const scenario::ConfigNode& protocol, const ScenarioFacts& facts, protocol::ProtocolConfig& out) = nullptr;
  /// The protocol. Throws std::invalid_argument for a layout it cannot use.
  std::unique_ptr<protocol::TrainingProtocol> (*create)(BuildContext context) = nullptr;
  /// Its math: what a worker's computation makes of the parameters it holds (and how many
  /// batches it reads: the compute time scales with them), and how a part combines what
  /// arrives.
  WorkerRuleFactory worker_rule = gradient_rule;
  ServerRuleFactory server_rule = optimizer_rule;
  /// Gradients an averaged update waits for with `workers` workers under these settings
  /// (the memory estimate holds a model for each until the update; a scheme that
  /// applies each gradient holds none).
  std::int64_t (*gradients_per_update)(const protocol::ProtocolConfig& protocol, std::int64_t workers) = every_worker;
};

/// The settings a scheme's `read` stored, as its type T; throws std::bad_any_cast for a
/// scenario of another scheme.
template <typename T>
const T& settings_as(const protocol::ProtocolConfig& p) {
  return std::any_cast<const T&>(p.settings);
}

}  // namespace pssim::schemes
