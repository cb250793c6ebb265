// allreduce: data parallelism without servers: every worker keeps a replica, gradients are
// summed by an all-reduce (sim/collective), optionally in buckets overlapped with the
// backward pass (PyTorch DDP).
#include "sim/ps/clocked_policies.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/schemes/collective_keys.hpp"
#include "sim/schemes/ps_schemes.hpp"

namespace pssim::schemes {
namespace {

using scenario::ConfigNode;

bool given(const ConfigNode* node) { return node && node->location().line > 0; }

std::vector<scenario::Field> fields() {
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
  fields.push_back(omittable("bucket_bytes", scenario::scalar_above(scenario::ValueType::Bytes, 0, 1e15),
                             "With overlap: a bucket closes once it holds at least this many bytes of gradients "
                             "(whole layers). Absent: 25MiB (DDP's bucket_cap_mb)."));
  return fields;
}

void read(const ConfigNode& node, const ScenarioFacts& facts, protocol::ProtocolConfig& out) {
  const auto fail = [](const ConfigNode& at, std::string message) {
    throw scenario::ScenarioError(at.location(), std::move(message));
  };
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
  out.settings = read_collective(node, facts);
}

// All-reduced parts are synchronous: a worker starts when it holds the last round's
// result of every part.
std::unique_ptr<protocol::TrainingProtocol> create(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SyncPolicy>(0));
}

}  // namespace

Scheme allreduce_scheme() {
  return {
      .name = "allreduce",
      .label = "all-reduce",
      .summary = "{algorithm} all-reduce",
      .doc = "Synchronous data parallelism without servers: every worker keeps a replica of the parameters; each "
             "iteration the workers' gradients are summed by an all-reduce over the network and every replica "
             "applies the same average (the optimizer state is replicated too). Uses no `cluster.servers`.",
      .fields = fields(),
      .layout = Layout::AllReduced,
      .capabilities = {.has_rounds = true, .bulk_synchronous = true},
      .read = read,
      .create = create,
  };
}

}  // namespace pssim::schemes
