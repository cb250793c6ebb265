#include "sim/schemes/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/ps/async_policy.hpp"
#include "sim/ps/clocked_policies.hpp"
#include "sim/ps/partition.hpp"
#include "sim/scenario/validate.hpp"

namespace pssim::schemes {
namespace {

using scenario::ConfigNode;
using scenario::ValueType;

constexpr double kMaxWorkers = 100'000;

bool given(const ConfigNode* node) { return node && node->location().line > 0; }

[[noreturn]] void fail(const ConfigNode& at, std::string message) {
  throw scenario::ScenarioError(at.location(), std::move(message));
}

// ---- reading the protocol section -----------------------------------------------------------

// protocol.overlap, schedule and partition_bytes (the PS schemes but local-sgd).
void read_overlap(const ConfigNode& node, bool full_allowed, protocol::ProtocolConfig& out) {
  if (const ConfigNode* overlap = node.find("overlap")) {
    const std::string& mode = scenario::as_text(*overlap);
    out.overlap = mode == "full"       ? protocol::Overlap::Full
                  : mode == "backward" ? protocol::Overlap::Backward
                                       : protocol::Overlap::None;
    if (out.overlap == protocol::Overlap::Full && !full_allowed)
      fail(*overlap, fmt::format("overlap full starts a forward pass before the staleness bound is known to allow "
                                 "it: protocol {} supports overlap none or backward",
                                 scenario::as_text(node.at("mode"))));
  }
  if (const ConfigNode* schedule = node.find("schedule"))
    out.schedule = scenario::as_text(*schedule) == "priority" ? protocol::Schedule::Priority : protocol::Schedule::Fifo;
  if (const ConfigNode* bytes = node.find("partition_bytes")) out.partition_bytes = scenario::as_bytes(*bytes);
}

void read_sync(const ConfigNode& node, const ScenarioFacts& facts, protocol::ProtocolConfig& out) {
  read_overlap(node, true, out);
  out.backup_workers = scenario::as_count(node.at("backup_workers"));
  if (out.backup_workers >= facts.workers)
    fail(node.at("backup_workers"), fmt::format("{} backup workers out of {}: a round needs at least one gradient",
                                                out.backup_workers, facts.workers));
}

void read_async(const ConfigNode& node, const ScenarioFacts&, protocol::ProtocolConfig& out) {
  read_overlap(node, true, out);
}

void read_ssp(const ConfigNode& node, const ScenarioFacts&, protocol::ProtocolConfig& out) {
  read_overlap(node, false, out);
  out.staleness = scenario::as_count(node.at("staleness"));
}

void read_local_sgd(const ConfigNode& node, const ScenarioFacts&, protocol::ProtocolConfig& out) {
  out.local_steps = scenario::as_count(node.at("local_steps"));
}

// The keys of the schemes that all-reduce (allreduce, hybrid).
void read_collective(const ConfigNode& node, const ScenarioFacts& facts, protocol::ProtocolConfig& out) {
  const ConfigNode& algorithm = node.at("algorithm");
  out.algorithm = collective::parse_algorithm(scenario::as_text(algorithm));
  if (const ConfigNode* chunk = node.find("chunk_bytes")) out.chunk_bytes = scenario::as_bytes(*chunk);
  if (out.algorithm == collective::AlgorithmKind::Hierarchical) {
    if (!facts.two_tier)
      fail(algorithm, "algorithm hierarchical all-reduces rack by rack: it needs network.topology two-tier");
    if (facts.workers % facts.racks != 0)
      fail(algorithm, fmt::format("algorithm hierarchical needs racks of equal size: {} workers do not divide into "
                                  "{} racks",
                                  facts.workers, facts.racks));
  }
  if (facts.compression)
    fail(*facts.compression, fmt::format("compression applies to parameter-server messages: protocol {} all-reduces "
                                         "gradients uncompressed; remove the compression section",
                                         scenario::as_text(node.at("mode"))));
}

void read_allreduce(const ConfigNode& node, const ScenarioFacts& facts, protocol::ProtocolConfig& out) {
  if (const ConfigNode* overlap = node.find("overlap")) {
    const std::string& mode = scenario::as_text(*overlap);
    out.overlap = mode == "full"       ? protocol::Overlap::Full
                  : mode == "backward" ? protocol::Overlap::Backward
                                       : protocol::Overlap::None;
  }
  if (const ConfigNode* bucket = node.find("bucket_bytes")) {
    if (out.overlap == protocol::Overlap::None)
      fail(*bucket, "bucket_bytes sizes the gradient buckets of an overlapped all-reduce: set protocol.overlap to "
                    "backward or full, or remove bucket_bytes");
    out.bucket_bytes = scenario::as_bytes(*bucket);
  }
  if (given(facts.servers))
    fail(*facts.servers, "cluster.servers is not used by protocol allreduce: there are no parameter servers (every "
                         "worker keeps a replica of the parameters); remove the servers section");
  read_collective(node, facts, out);
}

void read_hybrid(const ConfigNode& node, const ScenarioFacts& facts, protocol::ProtocolConfig& out) {
  if (!facts.language_model || !facts.math)
    fail(given(facts.model) ? *facts.model : node.at("mode"),
         "protocol hybrid keeps the embedding table on the servers and moves only the rows each batch reads: it needs "
         "model.kind lstm-lm with model.math true");
  read_collective(node, facts, out);
}

// ---- building ----------------------------------------------------------------------------------

std::unique_ptr<protocol::TrainingProtocol> make_ps(BuildContext& c, std::unique_ptr<ps::SchemePolicy> policy) {
  return std::make_unique<ps::PsProtocol>(c.sim, c.transport, c.compute, std::move(c.config), std::move(c.layout),
                                          std::move(policy), c.observer, c.math);
}

std::unique_ptr<protocol::TrainingProtocol> create_sync(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SyncPolicy>(c.protocol.backup_workers));
}
std::unique_ptr<protocol::TrainingProtocol> create_async(BuildContext c) {
  return make_ps(c, std::make_unique<ps::AsyncPolicy>());
}
std::unique_ptr<protocol::TrainingProtocol> create_ssp(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SspPolicy>(c.protocol.staleness));
}
// Local SGD is synchronous PS whose pushes are parameter changes: the policy is sync's
// (every worker's change, averaged); the math and the H-times-longer computation are set
// up by the experiment from the entry's pushes_change.
std::unique_ptr<protocol::TrainingProtocol> create_local_sgd(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SyncPolicy>(0));
}
// All-reduced parts are synchronous: a worker starts when it holds the last round's
// result of every part.
std::unique_ptr<protocol::TrainingProtocol> create_all_reduced(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SyncPolicy>(0));
}

std::vector<scenario::Field> collective_fields() {
  using scenario::enumeration;
  using scenario::omittable;
  using scenario::optional;
  return {optional("algorithm", enumeration(collective::algorithm_names()), "ring",
                   "`ring`: reduce-scatter then all-gather around a ring, 2(N-1) steps of M/N. `halving-doubling`: "
                   "Rabenseifner's recursive halving then doubling (log2 N steps each way). `recursive-doubling`: "
                   "log2 N exchanges of the whole vector (for comparison). `tree`: reduce to worker 0 along a "
                   "binary tree, then broadcast; pipelines when `chunk_bytes` is set. `hierarchical`: ring inside "
                   "each rack, ring across racks, ring inside each rack again (two-tier topology, racks of equal "
                   "size). Non-power-of-two worker counts fold the extra workers in first (halving-doubling, "
                   "recursive-doubling)."),
          omittable("chunk_bytes", scenario::scalar_above(ValueType::Bytes, 0),
                    "Cut every message into chunks of at most this size that follow each other through the "
                    "algorithm's steps (a tree forwards one chunk while it receives the next). Absent: whole "
                    "messages.")};
}

// Keys of allreduce: the collective's, and overlap with gradient buckets (PyTorch DDP).
std::vector<scenario::Field> allreduce_fields() {
  using scenario::enumeration;
  using scenario::omittable;
  using scenario::optional;
  std::vector<scenario::Field> fields = collective_fields();
  fields.push_back(optional(
      "overlap", enumeration({"none", "backward", "full"}), "none",
      "When the all-reduce runs relative to the computation (forward through the layers, then backward from the "
      "last). `none`: one all-reduce of every gradient after the whole iteration. `backward` (PyTorch DDP): the "
      "layers are gathered into buckets of `bucket_bytes` from the last layer back, and each bucket is all-reduced "
      "on its own as soon as the backward step of its first layer ends. `full`: besides, layer l's forward step "
      "starts as soon as the bucket holding layer l is reduced. The math is the same in every mode."));
  fields.push_back(omittable("bucket_bytes", scenario::scalar_above(ValueType::Bytes, 0, 1e15),
                             "With overlap: a bucket closes once it holds at least this many bytes of gradients "
                             "(whole layers). Absent: 25MiB (DDP's bucket_cap_mb)."));
  return fields;
}

// Keys of the PS schemes that can overlap communication with computation.
std::vector<scenario::Field> overlap_fields(std::vector<scenario::Field> fields) {
  using scenario::enumeration;
  using scenario::omittable;
  using scenario::optional;
  fields.push_back(optional(
      "overlap", enumeration({"none", "backward", "full"}), "none",
      "When messages leave relative to the computation, which runs forward through the layers, then backward "
      "from the last (each layer's step takes its share of the iteration's FLOPs: `model.layer_flops`, or "
      "counted from a real network's shapes). `none`: the whole iteration, then every push. `backward` (wait-free "
      "backpropagation, Poseidon / TensorFlow): each layer's gradient leaves as soon as its backward step ends. "
      "`full`: besides, layer l's forward step starts as soon as every piece of layer l's parameters has arrived "
      "(not with ssp). The math is the same in every mode."));
  fields.push_back(optional(
      "schedule", enumeration({"fifo", "priority"}), "fifo",
      "How messages in flight share the network. `fifo`: every piece leaves when it is produced and shares each "
      "link max-min fairly with all others (a fluid model: a small piece produced late is not stuck behind a large "
      "one, as it would be in one TCP connection's queue). `priority` (P3, ByteScheduler): strict priority by layer, the input "
      "layer first: at a link shared by pieces of several layers, the nearest the input take all the bandwidth "
      "they can use, the rest share what is left (max-min within a layer). Strict priority rather than weights "
      "because the next forward pass needs the first layers first and weights would still share the bandwidth "
      "with the last ones; with partition_bytes it is close to the preemptive per-piece order of those systems."));
  fields.push_back(omittable(
      "partition_bytes", scenario::scalar_above(ValueType::Bytes, 0, 1e15),
      "Cut each layer's part of a shard's message into pieces of at most this size (BytePS: 4MB), each a flow of "
      "its own. Absent: one piece per layer and shard. With overlap none and schedule fifo, absent means whole "
      "messages (as before)."));
  return fields;
}

std::vector<Scheme> build_registry() {
  using scenario::optional;
  using scenario::required;
  using scenario::scalar;
  std::vector<Scheme> s;
  s.push_back({"sync",
               "Bulk synchronous (BSP): each shard waits for a gradient from every worker (all but the slowest "
               "`backup_workers`), averages, applies, and sends its new slice to every worker.",
               overlap_fields({optional("backup_workers", scalar(ValueType::Count, 0, kMaxWorkers), "0",
                                        "Gradients a round may go without: each round proceeds with the first N - "
                                        "b; later ones are dropped.")}),
               true, false, false, true, Layout::ServerShards, read_sync, create_sync});
  s.push_back({"async",
               "Asynchronous (ASP): each gradient is applied on arrival; the shard then sends its current slice back "
               "to that worker. Staleness = updates applied since the worker's copy.",
               overlap_fields({}),
               false, true, true, true, Layout::ServerShards, read_async, create_async});
  s.push_back({"ssp",
               "Stale synchronous: as sync, every shard applies one averaged update per clock, but a worker may start "
               "up to `staleness` clocks ahead of the slowest, on the newest parameters it has.",
               overlap_fields({required("staleness", scalar(ValueType::Count, 0, 1'000'000),
                                        "Bound s: a worker starts iteration c only when every worker has finished "
                                        "c - s. 0 is sync.")}),
               true, true, false, false, Layout::ServerShards, read_ssp, create_ssp});
  Scheme local{"local-sgd",
               "Local SGD / FedAvg (McMahan et al. 2017; Lin et al. 2020): each worker takes `local_steps` optimizer "
               "steps on its own data (training.optimizer's rule, its state kept per worker across rounds), starting "
               "from the parameters it holds, then pushes the change of its parameters; each shard averages the "
               "changes of every worker, adds the mean to its slice (a server rate of 1) and sends the new slice to "
               "every worker. An iteration computes local_steps batches; updates are rounds. Pair it with "
               "data.partition dirichlet for non-iid studies.",
               {required("local_steps", scalar(ValueType::Count, 1, 1'000'000),
                         "H: optimizer steps a worker takes between pushes (1: synchronous SGD with averaged "
                         "gradients, up to rounding).")},
               true, false, false, false, Layout::ServerShards, read_local_sgd, create_local_sgd};
  local.pushes_change = true;
  s.push_back(std::move(local));
  s.push_back({"allreduce",
               "Synchronous data parallelism without servers: every worker keeps a replica of the parameters; each "
               "iteration the workers' gradients are summed by an all-reduce over the network and every replica "
               "applies the same average (the optimizer state is replicated too). Uses no `cluster.servers`.",
               allreduce_fields(), true, false, false, false, Layout::AllReduced, read_allreduce,
               create_all_reduced});
  s.push_back({"hybrid",
               "Parameter servers for the embedding table, all-reduce for the rest (the layout used for "
               "recommendation and language models), synchronous: the embedding rows are split among the "
               "`cluster.servers` shards, and each worker pulls only the rows its batch reads and pushes only their "
               "gradients (row ids + values); every other parameter is replicated and all-reduced. Needs an "
               "lstm-lm.",
               collective_fields(), true, false, false, true, Layout::Hybrid, read_hybrid, create_all_reduced});
  return s;
}

// ---- layouts -------------------------------------------------------------------------------

std::vector<net::NodeId> place(const std::vector<training::Part>& shards, const LayoutInputs& in) {
  const bool colocated = in.placement == LayoutInputs::Placement::Colocated;
  const std::vector<net::NodeId>& hosts = colocated ? in.worker_hosts : in.server_hosts;
  const auto count = static_cast<std::int64_t>(hosts.size());
  if (count < 1) throw std::invalid_argument("the shards have no host to live on");
  const std::vector<std::int64_t> placement = in.placement == LayoutInputs::Placement::Balanced
                                                  ? ps::place_balanced(shards, count)
                                                  : ps::place_round_robin(shards.size(), count);
  std::vector<net::NodeId> out;
  for (std::int64_t h : placement) out.push_back(hosts[static_cast<std::size_t>(h)]);
  return out;
}

ps::AllReducedPart all_reduced(training::Part part, const protocol::ProtocolConfig& p, const LayoutInputs& in) {
  return {std::move(part), p.algorithm, in.racks, p.chunk_bytes};
}

}  // namespace

const std::vector<Scheme>& all() {
  static const std::vector<Scheme> schemes = build_registry();
  return schemes;
}

const Scheme& find(const std::string& name) {
  std::string names;
  for (const auto& s : all()) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument(fmt::format("unknown protocol mode '{}' (known: {})", name, names));
}

scenario::SchemaPtr protocol_schema() {
  std::vector<scenario::Alternative> alternatives;
  for (const auto& s : all()) alternatives.push_back({s.name, s.doc, s.fields});
  // Dynamics keys, shared by every scheme.
  std::vector<scenario::Field> shared = {
      scenario::optional("failure_timeout", scenario::scalar(ValueType::Duration, 0, 1e6), "0s",
                         "Failure detection delay: barriers (sync, SSP) and the all-reduce ring keep waiting for a "
                         "crashed worker this long before they go on without it (0: at once)."),
      scenario::optional("abandon_stale", scenario::scalar(ValueType::Bool), "false",
                         "sync: a straggler abandons a computation whose round has already closed (every shard "
                         "moved on without it) and starts on the new parameters. With backup workers and "
                         "shifted-exponential noise of shift 0, a round then takes FLOP time x mean x (H_N - "
                         "H_(N-K)) on average, K = N - backup_workers.")};
  return scenario::variant("mode", "The training scheme: how workers exchange gradients and parameters.", "sync",
                           alternatives, shared);
}

std::unique_ptr<protocol::TrainingProtocol> build(const Scheme& scheme, BuildContext context) {
  context.config.has_rounds = scheme.has_rounds;
  return scheme.create(std::move(context));
}

ps::PsLayout make_layout(const Scheme& scheme, const protocol::ProtocolConfig& protocol, const LayoutInputs& in) {
  ps::PsLayout out;
  out.worker_hosts = in.worker_hosts;
  switch (scheme.layout) {
    case Layout::ServerShards: {
      if (in.shards > in.params)
        throw std::invalid_argument(
            fmt::format("{} shards for {} parameters: some shards would be empty", in.shards, in.params));
      if (in.partition_by_layer && in.shards > static_cast<std::int64_t>(in.tensor_params.size()))
        throw std::invalid_argument(fmt::format("{} shards but the model has {} tensors: with partition: layer some "
                                                "shards would be empty (use fewer shards or partition: bytes)",
                                                in.shards, in.tensor_params.size()));
      out.shards = in.partition_by_layer ? ps::partition_by_layer(in.tensor_params, in.shards)
                                         : ps::partition_by_bytes(in.params, in.shards);
      out.shard_hosts = place(out.shards, in);
      break;
    }
    case Layout::AllReduced:
      out.all_reduced = all_reduced({{{0, in.params}}, in.params}, protocol, in);
      break;
    case Layout::Hybrid: {
      if (!in.embedding) throw std::invalid_argument("protocol hybrid needs a model with an embedding table");
      const training::EmbeddingTable& t = *in.embedding;
      if (in.shards > t.rows)
        throw std::invalid_argument(fmt::format("{} shards for an embedding table of {} rows: some shards would be "
                                                "empty",
                                                in.shards, t.rows));
      for (const auto& rows : ps::partition_by_bytes(t.rows, in.shards)) {  // rows, near-equal counts
        const training::Range r{t.offset + rows.ranges[0].begin * t.width, t.offset + rows.ranges[0].end * t.width};
        out.shards.push_back({{r}, r.size()});
      }
      out.shard_hosts = place(out.shards, in);
      training::Part rest;
      const std::int64_t table_end = t.offset + t.rows * t.width;
      if (t.offset > 0) rest.ranges.push_back({0, t.offset});
      if (table_end < in.params) rest.ranges.push_back({table_end, in.params});
      rest.params = in.params - t.rows * t.width;
      if (rest.params < 1) throw std::invalid_argument("protocol hybrid: the model has nothing besides its embedding");
      out.all_reduced = all_reduced(std::move(rest), protocol, in);
      break;
    }
  }
  return out;
}

}  // namespace pssim::schemes
