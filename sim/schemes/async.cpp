// async: asynchronous parameter servers (ASP): each gradient is applied on arrival.
#include "sim/ps/async_policy.hpp"
#include "sim/schemes/ps_schemes.hpp"

namespace pssim::schemes {
namespace {

void read(const scenario::ConfigNode& node, const ScenarioFacts&, protocol::ProtocolConfig& out) {
  read_overlap(node, out);
}

std::unique_ptr<protocol::TrainingProtocol> create(BuildContext c) {
  return make_ps(c, std::make_unique<ps::AsyncPolicy>());
}

}  // namespace

Scheme async_scheme() {
  return {
      .name = "async",
      .label = "async",
      .summary = "async PS",
      .doc = "Asynchronous (ASP): each gradient is applied on arrival; the shard then sends its current slice back "
             "to that worker. Staleness = updates applied since the worker's copy.",
      .fields = overlap_fields({}),
      .layout = Layout::ServerShards,
      .capabilities = {.has_rounds = false, .stale_gradients = true, .applies_each_gradient = true,
                       .sparse_pulls = true},
      .read = read,
      .create = create,
  };
}

}  // namespace pssim::schemes
