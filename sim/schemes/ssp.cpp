// ssp: stale synchronous parameter servers: updates by clock, workers up to s clocks ahead.
#include "sim/ps/clocked_policies.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/schemes/ps_schemes.hpp"

namespace pssim::schemes {
namespace {

struct SspSettings {
  std::int64_t staleness = 0;  ///< bound s
};

// A worker starts on the slices it holds once the bound allows: layer l's forward step
// cannot wait for pieces of a version the bound may not ask for.
constexpr std::string_view kNoFullOverlap = "starts a forward pass before the staleness bound is known to allow it";

void read(const scenario::ConfigNode& node, const ScenarioFacts&, protocol::ProtocolConfig& out) {
  read_overlap(node, out, kNoFullOverlap);
  out.settings = SspSettings{scenario::as_count(node.at("staleness"))};
}

std::unique_ptr<protocol::TrainingProtocol> create(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SspPolicy>(settings_as<SspSettings>(c.protocol).staleness));
}

}  // namespace

Scheme ssp_scheme() {
  return {
      .name = "ssp",
      .label = "SSP",
      .summary = "SSP (staleness {staleness}) PS",
      .doc = "Stale synchronous: as sync, every shard applies one averaged update per clock, but a worker may start "
             "up to `staleness` clocks ahead of the slowest, on the newest parameters it has.",
      .fields = overlap_fields({scenario::required("staleness", scenario::scalar(scenario::ValueType::Count, 0, 1'000'000),
                                                   "Bound s: a worker starts iteration c only when every worker has "
                                                   "finished c - s. 0 is sync.")},
                               kNoFullOverlap),
      .layout = Layout::ServerShards,
      .capabilities = {.has_rounds = true, .stale_gradients = true,
                       .no_server_crashes = "a restored shard's clock would fall behind the workers' clocks"},
      .read = read,
      .create = create,
  };
}

}  // namespace pssim::schemes
