// local-sgd: local SGD / FedAvg: H local steps per computation, the servers add the mean
// change.
#include "sim/ps/clocked_policies.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/schemes/ps_schemes.hpp"
#include "sim/training/local_steps_rule.hpp"
#include "sim/training/mean_change_rule.hpp"

namespace pssim::schemes {
namespace {

struct LocalSgdSettings {
  std::int64_t local_steps = 1;  ///< H: optimizer steps a worker takes before it pushes
};

void read(const scenario::ConfigNode& node, const ScenarioFacts&, protocol::ProtocolConfig& out) {
  out.settings = LocalSgdSettings{scenario::as_count(node.at("local_steps"))};
}

// Synchronous PS whose pushes are parameter changes: the policy is sync's (every worker's
// change, averaged).
std::unique_ptr<protocol::TrainingProtocol> create(BuildContext c) {
  return make_ps(c, std::make_unique<ps::SyncPolicy>(0));
}

std::unique_ptr<training::WorkerRule> worker_rule(const protocol::ProtocolConfig& p, const RuleInputs& in) {
  return std::make_unique<training::LocalStepsRule>(settings_as<LocalSgdSettings>(p).local_steps, in.optimizer, in.lr,
                                                    in.workers);
}

std::unique_ptr<training::ServerRule> server_rule(const protocol::ProtocolConfig&, const RuleInputs&) {
  return std::make_unique<training::MeanChangeRule>();
}

}  // namespace

Scheme local_sgd_scheme() {
  return {
      .name = "local-sgd",
      .label = "local SGD",
      .summary = "local SGD ({local_steps|step})",
      .doc = "Local SGD / FedAvg (McMahan et al. 2017; Lin et al. 2020): each worker takes `local_steps` optimizer "
             "steps on its own data (training.optimizer's rule, its state kept per worker across rounds), starting "
             "from the parameters it holds, then pushes the change of its parameters; each shard averages the "
             "changes of every worker, adds the mean to its slice (a server rate of 1) and sends the new slice to "
             "every worker. An iteration computes local_steps batches; updates are rounds. Pair it with "
             "data.partition dirichlet for non-iid studies.",
      .fields = {scenario::required("local_steps", scenario::scalar(scenario::ValueType::Count, 1, 1'000'000),
                                    "H: optimizer steps a worker takes between pushes (1: synchronous SGD with "
                                    "averaged gradients, up to rounding).")},
      .layout = Layout::ServerShards,
      .capabilities = {.has_rounds = true, .no_adaptive_batches = "local steps read several batches per computation"},
      .read = read,
      .create = create,
      .worker_rule = worker_rule,
      .server_rule = server_rule,
  };
}

}  // namespace pssim::schemes
