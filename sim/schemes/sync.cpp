// sync: bulk synchronous parameter servers (BSP), with backup workers.
#include <fmt/format.h>

#include "sim/ps/clocked_policies.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/schemes/ps_schemes.hpp"

namespace pssim::schemes {
namespace {

struct SyncSettings {
  std::int64_t backup_workers = 0;  ///< each round proceeds with the first N - b gradients
};

void read(const scenario::ConfigNode& node, const ScenarioFacts& facts, protocol::ProtocolConfig& out) {
  read_overlap(node, out);
  SyncSettings s;
  s.backup_workers = scenario::as_count(node.at("backup_workers"));
  if (s.backup_workers >= facts.workers)
    throw scenario::ScenarioError(node.at("backup_workers").location(),
                                  fmt::format("{} backup workers out of {}: a round needs at least one gradient",
                                              s.backup_workers, facts.workers));
  out.settings = s;
}

std::unique_ptr<protocol::TrainingProtocol> create(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SyncPolicy>(settings_as<SyncSettings>(c.protocol).backup_workers));
}

}  // namespace

Scheme sync_scheme() {
  return {
      .name = "sync",
      .label = "sync",
      .summary = "sync PS",
      .doc = "Bulk synchronous (BSP): each shard waits for a gradient from every worker (all but the slowest "
             "`backup_workers`), averages, applies, and sends its new slice to every worker.",
      .fields = overlap_fields({scenario::optional("backup_workers", scenario::scalar(scenario::ValueType::Count, 0,
                                                                                      kMaxWorkers),
                                                   "0",
                                                   "Gradients a round may go without: each round proceeds with the "
                                                   "first N - b; later ones are dropped.")}),
      .layout = Layout::ServerShards,
      .capabilities = {.has_rounds = true, .sparse_pulls = true, .abandons_stale = true, .bulk_synchronous = true},
      .read = read,
      .create = create,
      .gradients_per_update = [](const protocol::ProtocolConfig& p, std::int64_t workers) {
        return workers - settings_as<SyncSettings>(p).backup_workers;
      },
  };
}

}  // namespace pssim::schemes
