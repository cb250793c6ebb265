// easgd: Elastic Averaging SGD (Zhang, Choromanska and LeCun 2015), asynchronous.
//
// Each worker keeps a replica x of the parameters and computes `tau` local steps on it
// (training.optimizer's rule, its state kept per worker, as local SGD's), then sends x to
// the servers; their shards hold the center variable c. The exchange is one update of the
// shard, applied on arrival (the async policy: one model up, one model down), where it is
// atomic:
//     c  <- (1 - alpha) c + alpha x      the center moves toward the replica,
//     x  <- (1 - alpha) x + alpha c      the replica toward the moved center,
// and the shard answers the worker with its new replica (its own, not the center). So a
// worker's replica lives in the slices it holds: a worker that comes back from a crash
// holds nothing, and every shard sends it the center as it is then.
//
// The order of the two moves is a choice: the paper's symmetric exchange moves both by
// alpha (x - c) of the c before the exchange, which at alpha = 1 swaps the two; here the
// replica moves toward the center it just moved, so that alpha = 1 makes both the replica
// (one worker: sequential SGD) and the two differ by alpha^2 (x - c) in the replica only.
// Evaluation reads the center.
#include <fmt/format.h>

#include "sim/ps/async_policy.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/schemes/ps_schemes.hpp"
#include "sim/training/local_steps_rule.hpp"

namespace pssim::schemes {
namespace {

using scenario::ConfigNode;

struct EasgdSettings {
  std::int64_t tau = 1;  ///< local steps between exchanges
  double alpha = 0.5;    ///< moving rate of the elastic exchange, in (0, 1]
};

void read(const ConfigNode& node, const ScenarioFacts& facts, protocol::ProtocolConfig& out) {
  if (facts.compression)
    throw scenario::ScenarioError(facts.compression->location(),
                                  "compression applies to gradients: protocol easgd exchanges whole replicas with the "
                                  "center; remove the compression section");
  out.settings = EasgdSettings{scenario::as_count(node.at("tau")), scenario::as_real(node.at("alpha"))};
}

std::unique_ptr<protocol::TrainingProtocol> create(BuildContext c) {
  return make_ps(c, std::make_unique<ps::AsyncPolicy>());
}

// tau local steps; the worker hands back where they took it: its replica.
class ReplicaRule final : public training::LocalStepsRule {
 public:
  using LocalStepsRule::LocalStepsRule;

 private:
  void hand_back(std::span<const float>, std::span<const float> end, std::span<float> out) const override {
    std::copy(end.begin(), end.end(), out.begin());
  }
};

// The elastic exchange at a shard, and the replica it prepared for the worker.
class ElasticRule final : public training::ServerRule {
 public:
  explicit ElasticRule(double alpha) : alpha_(static_cast<float>(alpha)) {}

  void add_part(const std::vector<training::Range>&) override { answers_.emplace_back(); }
  // The async policy applies replicas one at a time: nothing is averaged.
  void apply_mean(const training::PartUpdate&, std::vector<float>&) override {
    throw std::logic_error("easgd exchanges one replica at a time: no averaged update");
  }
  void apply_one(const training::PartUpdate& u, std::size_t worker, std::vector<float>& x,
                 const training::SliceRef&) override {
    const float keep = 1.0f - alpha_;  // convex combinations: alpha 1 moves exactly onto the other
    for (std::size_t i = 0; i < x.size(); ++i) u.next[i] = keep * u.now[i] + alpha_ * x[i];
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = keep * x[i] + alpha_ * u.next[i];
    answers_[u.part] = {worker, std::make_shared<const std::vector<float>>(x)};
  }
  training::SliceRef take_answer(std::size_t part, std::size_t worker) override {
    Answer& a = answers_[part];
    if (!a.replica || a.worker != worker) return nullptr;  // a slice it is sent whole: the center
    return std::move(a.replica);
  }
  void restored(std::size_t part) override { answers_[part] = {}; }

 private:
  struct Answer {
    std::size_t worker = 0;
    training::SliceRef replica;  // the worker's replica after its last exchange, until sent
  };
  float alpha_;
  std::vector<Answer> answers_;  // per part
};

std::unique_ptr<training::WorkerRule> worker_rule(const protocol::ProtocolConfig& p, const RuleInputs& in) {
  return std::make_unique<ReplicaRule>(settings_as<EasgdSettings>(p).tau, in.optimizer, in.lr, in.workers);
}

std::unique_ptr<training::ServerRule> server_rule(const protocol::ProtocolConfig& p, const RuleInputs&) {
  return std::make_unique<ElasticRule>(settings_as<EasgdSettings>(p).alpha);
}

}  // namespace

Scheme easgd_scheme() {
  using scenario::ValueType;
  return {
      .name = "easgd",
      .label = "EASGD",
      .summary = "EASGD (tau {tau}, alpha {alpha}) PS",
      .doc = "Elastic Averaging SGD (Zhang, Choromanska and LeCun 2015), asynchronous: each worker keeps a replica "
             "of the parameters, takes `tau` local steps on it (training.optimizer's rule, its state kept per "
             "worker) and exchanges it with the center variable held by the shards, which apply the exchange on "
             "arrival: the center moves by alpha toward the replica, then the replica by alpha toward the moved "
             "center, and the shard sends the worker its new replica (one model each way per exchange). alpha 1 "
             "with one worker and tau 1 is sequential SGD. A worker back from a crash starts from the center. The "
             "test accuracy is the center's; updates count exchanges.",
      .fields = {scenario::required("tau", scenario::scalar(ValueType::Count, 1, 1'000'000),
                                    "Local steps a worker takes between exchanges (the paper's communication "
                                    "period)."),
                 scenario::required("alpha", scenario::scalar_above(ValueType::Real, 0, 1),
                                    "Moving rate of the elastic exchange, in (0, 1] (the paper's alpha = beta / "
                                    "workers; 0.9 / workers is its usual choice).")},
      .layout = Layout::ServerShards,
      .capabilities = {.has_rounds = false, .no_adaptive_batches = "local steps read several batches per computation"},
      .read = read,
      .create = create,
      .worker_rule = worker_rule,
      .server_rule = server_rule,
  };
}

}  // namespace pssim::schemes
