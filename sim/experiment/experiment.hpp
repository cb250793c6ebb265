// Experiment: one scenario turned into a runnable simulation, and its run.
//
// build: hosts "worker-<i>" and "server-<j>", the topology the scenario asks for with its
// NIC overrides, the shards and their placement, the compute model and the protocol.
// run: until the first stop condition (simulated time, or every shard's update count),
// then the network's counters are closed. Everything is owned here; one Experiment is
// independent of any other, so several can run on several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/topology.hpp"
#include "sim/ps/compute_model.hpp"
#include "models/data/training_data.hpp"
#include "models/nets/network.hpp"
#include "sim/ps/ps_engine.hpp"
#include "sim/ps/training_math.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::experiment {

/// Why a run ended.
enum class StopReason { SimTime, Updates, Epochs, Target, Diverged };
const char* to_string(StopReason r);

/// What evaluations found (real models with math).
struct TrainingOutcome {
  std::int64_t evaluations = 0;
  ps::EvalRecord final_eval;
  double best_accuracy = 0;
  std::optional<TimeNs> time_to_target;
  std::optional<std::int64_t> diverged_at_update;
};

struct RunStats {
  StopReason stopped_by = StopReason::SimTime;
  TimeNs sim_time = 0;
  double wall_seconds = 0;
  std::uint64_t events = 0;
  TrainingOutcome training;
};

class Experiment {
 public:
  /// Builds everything; throws std::runtime_error / std::invalid_argument for a scenario
  /// that cannot be built (e.g. an explicit topology whose hosts are not connected, or
  /// missing data files). `threads` runs gradient math in parallel (outputs do not depend
  /// on it).
  explicit Experiment(const scenario::Scenario& scenario, unsigned threads = 1);
  ~Experiment();

  /// Runs to the stop condition. `observer` (may be null) sees updates, rounds and worker
  /// states as they happen; `progress` (may be empty) is called every few thousand
  /// events. Throws std::runtime_error if the simulation runs out of events before a stop
  /// condition holds.
  RunStats run(ps::PsObserver* observer, const std::function<void(const Experiment&)>& progress = {});

  /// How far the run is toward its nearest stop condition, 0 to 1.
  double progress_fraction() const;

  const scenario::Scenario& scenario() const { return scenario_; }
  const net::Topology& topology() const { return topology_; }
  const net::FlowNetwork& network() const { return *network_; }
  const ps::PsEngine& engine() const { return *engine_; }
  const ps::ComputeModel& compute() const { return *compute_; }
  const ps::PsLayout& layout() const { return layout_; }
  const Simulator& simulator() const { return sim_; }
  /// The real network (null for a synthetic model).
  const models::Network* model_network() const { return network_model_.get(); }
  bool has_math() const { return math_ != nullptr; }
  /// Reports (link direction, active flows, simulated time) whenever flows start or end.
  void watch_flow_counts(std::function<void(net::ResourceId, std::size_t, TimeNs)> listener);
  /// The link directions whose utilization is recorded over time.
  const std::vector<net::ResourceId>& recorded_links() const { return network_->recorded_resources(); }

  /// The servers' current parameters as one flat vector (real models with math).
  std::vector<float> parameters() const;

 private:
  void check_connected() const;
  void build_model();
  void evaluate_now();

  scenario::Scenario scenario_;
  unsigned threads_;
  Simulator sim_;
  net::Topology topology_;
  ps::PsLayout layout_;
  // The model side (declared before the engine: messages hold its slices and gradients).
  std::unique_ptr<models::TrainingData> data_;
  std::unique_ptr<models::Network> network_model_;
  std::unique_ptr<ps::TrainingMath> math_;
  std::int64_t params_ = 0;
  std::vector<std::int64_t> layer_params_;
  double flops_per_sample_ = 0;
  std::unique_ptr<net::FlowNetwork> network_;
  std::unique_ptr<ps::ComputeModel> compute_;
  std::unique_ptr<ps::PsEngine> engine_;
  ps::PsConfig config_;
  TrainingOutcome outcome_;
  bool target_reached_ = false;
  std::shared_ptr<void> evaluator_;  // the periodic evaluation's state
  // Observers are attached per run; the engine forwards to this one.
  struct Forwarder : ps::PsObserver {
    ps::PsObserver* target = nullptr;
    void on_update(const ps::UpdateRecord& u) override { if (target) target->on_update(u); }
    void on_round(const ps::RoundRecord& r) override { if (target) target->on_round(r); }
    void on_gradient(const ps::GradientRecord& g) override { if (target) target->on_gradient(g); }
    void on_eval(const ps::EvalRecord& e) override { if (target) target->on_eval(e); }
    void on_apply(std::int64_t s, TimeNs a, TimeNs b) override { if (target) target->on_apply(s, a, b); }
    void on_compute_start(std::int64_t w, std::int64_t i) override { if (target) target->on_compute_start(w, i); }
    void on_worker_state(std::int64_t w, ps::WorkerState s, TimeNs a, TimeNs b) override {
      if (target) target->on_worker_state(w, s, a, b);
    }
  } forward_;
};

}  // namespace pssim::experiment
