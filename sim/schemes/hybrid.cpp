// hybrid: parameter servers for the embedding table's rows, all-reduce for the rest.
#include "sim/ps/clocked_policies.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/schemes/collective_keys.hpp"
#include "sim/schemes/ps_schemes.hpp"

namespace pssim::schemes {
namespace {

using scenario::ConfigNode;

void read(const ConfigNode& node, const ScenarioFacts& facts, protocol::ProtocolConfig& out) {
  if (!facts.language_model || !facts.math) {
    const bool written = facts.model && facts.model->location().line > 0;
    throw scenario::ScenarioError((written ? *facts.model : node.at("mode")).location(),
                                  "protocol hybrid keeps the embedding table on the servers and moves only the rows "
                                  "each batch reads: it needs model.kind lstm-lm with model.math true");
  }
  out.settings = read_collective(node, facts);
}

// Synchronous, like the all-reduced part: the shards' sync policy.
std::unique_ptr<protocol::TrainingProtocol> create(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SyncPolicy>(0));
}

}  // namespace

Scheme hybrid_scheme() {
  return {
      .name = "hybrid",
      .label = "hybrid",
      .summary = "hybrid: PS + {algorithm} all-reduce",
      .doc = "Parameter servers for the embedding table, all-reduce for the rest (the layout used for "
             "recommendation and language models), synchronous: the embedding rows are split among the "
             "`cluster.servers` shards, and each worker pulls only the rows its batch reads and pushes only their "
             "gradients (row ids + values); every other parameter is replicated and all-reduced. Needs an "
             "lstm-lm.",
      .fields = collective_fields(),
      .layout = Layout::Hybrid,
      .capabilities = {.has_rounds = true, .sparse_pulls = true,
                       .no_server_crashes = "a restored shard would take the embedding rows back to its checkpoint "
                                            "while the all-reduced part goes on, one model at two versions",
                       .no_worker_crashes = "the all-reduced part's ring is not rebuilt around the shards' rows"},
      .read = read,
      .create = create,
  };
}

}  // namespace pssim::schemes
