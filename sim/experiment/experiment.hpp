// Experiment: one scenario turned into a runnable simulation, and its run.
//
// build: hosts "worker-<i>" and "server-<j>", the topology the scenario asks for with its
// NIC overrides, where the parameters live (the scheme's layout: shards and their
// placement, all-reduced parts), the compute model, the training math and the protocol
// (from the scheme registry). run: until the first stop condition (simulated time, every
// part's update count, epochs, target accuracy), then the network's counters are closed.
// Everything is owned here; one Experiment is independent of any other, so several can
// run on several threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/data/training_data.hpp"
#include "models/nets/network.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/core/simulator.hpp"
#include "sim/dynamics/dynamics.hpp"
#include "sim/experiment/external_math.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/topology.hpp"
#include "sim/parallel/job_pool.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/experiment/collapse_watch.hpp"
#include "sim/protocol/training_protocol.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/schemes/registry.hpp"
#include "sim/training/model_gradients.hpp"
#include "sim/training/model_parameters.hpp"

namespace pssim::experiment {

/// Why a run ended.
enum class StopReason { SimTime, Updates, Epochs, Target, Diverged, Collapsed, NoLiveWorkers, NoProgress };
const char* to_string(StopReason r);

/// What evaluations found (real models with math).
struct TrainingOutcome {
  std::int64_t evaluations = 0;
  protocol::EvalRecord final_eval;
  double best_accuracy = 0;
  std::optional<TimeNs> time_to_target;
  /// The model update at which training diverged (a NaN or infinite loss) or collapsed.
  std::optional<std::int64_t> diverged_at_update;
  /// Why it collapsed, in words (training.collapse; see collapse_watch.hpp).
  std::optional<std::string> collapse;
};

/// A run stopped by its caller (RunControl::interrupt) before a stop condition.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
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
  /// on it). `external` (may be null; must outlive this object) provides the network and
  /// data of model.kind torch and data.kind torch; without it they are an error.
  explicit Experiment(const scenario::Scenario& scenario, unsigned threads = 1,
                      const ExternalMath* external = nullptr);
  ~Experiment();

  /// Runs to the stop condition. `observer` (may be null) sees updates, rounds and worker
  /// states as they happen; `progress` (may be empty) is called about ten times a second
  /// of wall time (checked every 64 events). Throws std::runtime_error if the simulation
  /// runs out of events before a stop condition holds, and Interrupted as soon as an
  /// event ends with `*interrupt` set (may be null; set from another thread or a signal
  /// handler).
  RunStats run(protocol::Observer* observer, const std::function<void(const Experiment&)>& progress = {},
               const std::atomic<bool>* interrupt = nullptr);

  /// How far the run is toward its nearest stop condition, 0 to 1.
  double progress_fraction() const;

  const scenario::Scenario& scenario() const { return scenario_; }
  const net::Topology& topology() const { return topology_; }
  const net::FlowNetwork& network() const { return *network_; }
  const protocol::TrainingProtocol& protocol() const { return *protocol_; }
  const schemes::Scheme& scheme() const { return scheme_; }
  const compute::ComputeModel& compute() const { return *compute_; }
  /// The event timeline (null for a scenario without events or Markov stragglers).
  const dynamics::Dynamics* dynamics() const { return dynamics_.get(); }
  const std::vector<net::NodeId>& worker_hosts() const { return layout_.worker_hosts; }
  const Simulator& simulator() const { return sim_; }
  /// The real network (null for a synthetic model).
  const models::Network* model_network() const { return network_model_.get(); }
  bool has_math() const { return gradients_ != nullptr; }
  /// The model's parameters (floats) and its FLOPs per training sample (forward and
  /// backward; per sequence for a language model): given, or counted from the layer
  /// shapes (a torch module's by the Python package).
  std::int64_t model_parameters() const { return params_; }
  double flops_per_sample() const { return flops_per_sample_; }
  /// Batches one computation reads (the scheme's worker rule: local SGD's H ...).
  std::int64_t batches_per_computation() const { return batches_per_computation_; }
  /// Reports (link direction, active flows, simulated time) whenever flows start or end.
  void watch_flow_counts(std::function<void(net::ResourceId, std::size_t, TimeNs)> listener);
  /// The link directions whose utilization is recorded over time.
  const std::vector<net::ResourceId>& recorded_links() const { return network_->recorded_resources(); }

  /// The current parameters (shards' and replicas') as one flat vector (real models with math).
  std::vector<float> parameters() const;

 private:
  void check_connected() const;
  void build_model();
  void build_math(std::unique_ptr<training::WorkerRule> worker_rule, const schemes::RuleInputs& rules);
  void evaluate_now();

  scenario::Scenario scenario_;
  const schemes::Scheme& scheme_;
  unsigned threads_;
  const ExternalMath* external_;
  Simulator sim_;
  net::Topology topology_;
  ps::PsLayout layout_;
  // The model side (declared before the protocol: messages hold its slices and gradients).
  std::unique_ptr<models::TrainingData> data_;
  std::unique_ptr<models::Network> network_model_;
  std::unique_ptr<parallel::JobPool> pool_;  // before the math, which queues jobs on it
  std::unique_ptr<training::ModelGradients> gradients_;
  std::unique_ptr<training::ModelParameters> store_;
  std::int64_t params_ = 0;
  std::vector<std::int64_t> layer_params_;
  std::vector<ps::PsConfig::Layer> layers_;  // compute profile: layers, forward order (overlap)
  double flops_per_sample_ = 0;
  std::int64_t batches_per_computation_ = 1;
  std::unique_ptr<net::FlowNetwork> network_;
  std::unique_ptr<compute::ComputeModel> compute_;
  std::unique_ptr<protocol::TrainingProtocol> protocol_;
  std::unique_ptr<dynamics::Dynamics> dynamics_;
  std::optional<std::int64_t> stop_samples_;
  TrainingOutcome outcome_;
  std::optional<CollapseWatch> collapse_;  // real models with math
  bool target_reached_ = false;
  std::shared_ptr<void> evaluator_;  // the periodic evaluation's state
  // Observers are attached per run (attach()); the protocol forwards to this one.
  // The forwarder also hands part 0's training losses to the collapse watch.
  struct Forwarder : protocol::Observer {
    protocol::Observer* target = nullptr;
    protocol::Observer* span_target = nullptr;  // target, if it wants spans
    CollapseWatch* collapse = nullptr;
    void attach(protocol::Observer* t) {
      target = t;
      span_target = t && t->wants_spans() ? t : nullptr;
    }
    void on_update(const protocol::UpdateRecord& u) override {
      if (collapse && u.shard == 0) collapse->observe_update(u.train_loss);
      if (target) target->on_update(u);
    }
    void on_round(const protocol::RoundRecord& r) override { if (target) target->on_round(r); }
    void on_gradient(const protocol::GradientRecord& g) override { if (target) target->on_gradient(g); }
    void on_eval(const protocol::EvalRecord& e) override { if (target) target->on_eval(e); }
    void on_event(const protocol::EventRecord& e) override { if (target) target->on_event(e); }
    void on_apply(std::int64_t s, TimeNs a, TimeNs b) override { if (target) target->on_apply(s, a, b); }
    void on_compute_start(std::int64_t w, std::int64_t i) override { if (target) target->on_compute_start(w, i); }
    void on_worker_state(std::int64_t w, protocol::WorkerState s, TimeNs a, TimeNs b) override {
      if (span_target) span_target->on_worker_state(w, s, a, b);
    }
    void on_collective_step(std::int64_t w, std::int64_t r, std::int64_t k, protocol::CollectivePhase p, TimeNs a,
                            TimeNs b) override {
      if (span_target) span_target->on_collective_step(w, r, k, p, a, b);
    }
    bool wants_spans() const override { return span_target != nullptr; }
  } forward_;
};

}  // namespace pssim::experiment
