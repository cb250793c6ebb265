// Worker rules: what one computation makes of the held parameters, against the network's
// own gradient and a hand-run optimizer on a small MLP.
#include <memory>
#include <optional>
#include <vector>

#include <catch2/catch.hpp>

#include "models/data/training_data.hpp"
#include "models/nets/build_network.hpp"
#include "models/optim/optimizer.hpp"
#include "sim/training/local_steps_rule.hpp"
#include "sim/training/worker_rule.hpp"

using namespace pssim;
using namespace pssim::training;

namespace {

struct Model {
  models::TrainingData data;
  std::unique_ptr<models::Network> net;
  std::unique_ptr<models::Workspace> workspace;
  std::vector<float> params;
  models::Batch batch;
  std::vector<float> scratch;

  Model() : data(load()) {
    models::NetworkSpec spec;
    spec.preset = "mlp";
    spec.hidden = {8};
    data.adapt(spec);
    net = models::build_network<float>(spec);
    workspace = net->make_workspace();
    params = net->init_params(7);
  }
  static models::TrainingData load() {
    models::DataSpec spec;
    spec.kind = "synthetic";
    spec.batch_size = 4;
    spec.synthetic_train = 32, spec.synthetic_test = 8;
    return models::TrainingData::load(spec, 3);
  }
  StepTools tools() { return {*net, data, *workspace, batch, scratch, std::nullopt}; }
  // The gradient of items at w, as the network computes it.
  std::vector<float> gradient(const std::vector<float>& w, const std::vector<std::int64_t>& items, std::uint64_t seed) {
    std::vector<float> g(w.size());
    models::Batch b;
    data.fill_batch(items, b);
    net->loss_and_gradient(w, b.view(), g, *workspace, seed);
    return g;
  }
};

const Work kTwoBatches{{{0, 1, 2, 3}, {4, 5, 6, 7}}, {11, 12}, {0.5, 0.25}};

// Hands back where the steps ended (a replica), as a scheme's own rule may.
class EndRule final : public LocalStepsRule {
 public:
  using LocalStepsRule::LocalStepsRule;

 private:
  void hand_back(std::span<const float>, std::span<const float> end, std::span<float> out) const override {
    std::copy(end.begin(), end.end(), out.begin());
  }
};

}  // namespace

TEST_CASE("the gradient rule hands back the gradient of its one batch", "[training][rules]") {
  Model m;
  GradientRule rule;
  CHECK(rule.batches_per_computation() == 1);
  std::vector<float> out(m.params.size());
  auto tools = m.tools();
  rule.run(0, m.params, Work{{{0, 1, 2, 3}}, {11}, {0}}, tools, out);
  CHECK(out == m.gradient(m.params, {0, 1, 2, 3}, 11));
  CHECK(m.batch.size == 4);
}

TEST_CASE("local steps hand back the change of H optimizer steps at the rates given", "[training][rules]") {
  Model m;
  models::OptimizerSpec sgd;
  sgd.lr = 0.5;
  LearningRatePolicy rates;
  rates.schedule.kind = models::LrScheduleSpec::Kind::step;
  rates.schedule.step_size = 1;
  rates.schedule.gamma = 0.5;
  LocalStepsRule rule(2, sgd, rates, 3);
  CHECK(rule.batches_per_computation() == 2);
  CHECK(rule.step_rate(0) == 0.5);
  CHECK(rule.step_rate(1) == 0.25);  // the schedule of the worker's steps

  // By hand: two SGD steps at the rates of the work.
  std::vector<float> w = m.params;
  for (std::size_t k = 0; k < 2; ++k) {
    const auto g = m.gradient(w, kTwoBatches.batches[k], kTwoBatches.dropout[k]);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] -= static_cast<float>(kTwoBatches.lr[k]) * g[i];
  }
  std::vector<float> out(m.params.size());
  auto tools = m.tools();
  rule.run(1, m.params, kTwoBatches, tools, out);
  for (std::size_t i = 0; i < w.size(); ++i) REQUIRE(out[i] == Approx(w[i] - m.params[i]).margin(1e-7));

  EndRule end(2, sgd, rates, 3);
  end.run(1, m.params, kTwoBatches, tools, out);
  for (std::size_t i = 0; i < w.size(); ++i) REQUIRE(out[i] == Approx(w[i]).margin(1e-7));
}
