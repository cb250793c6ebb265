#include "sim/experiment/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "models/core/seed.hpp"
#include "models/nets/build_network.hpp"

#include <fmt/format.h>

#include "sim/experiment/build_topology.hpp"
#include "sim/experiment/memory_estimate.hpp"

namespace pssim::experiment {
namespace {

using scenario::ServersConfig;
using scenario::SpeedConfig;

compute::ComputeSpec compute_spec(const scenario::WorkersConfig& w) {
  compute::ComputeSpec c;
  const auto& s = w.speed;
  switch (s.dist) {
    case SpeedConfig::Dist::Constant: c.speed = compute::ComputeSpec::Speed::Constant; break;
    case SpeedConfig::Dist::List: c.speed = compute::ComputeSpec::Speed::List; break;
    case SpeedConfig::Dist::Uniform: c.speed = compute::ComputeSpec::Speed::Uniform; break;
    case SpeedConfig::Dist::Lognormal: c.speed = compute::ComputeSpec::Speed::Lognormal; break;
    case SpeedConfig::Dist::Stragglers: c.speed = compute::ComputeSpec::Speed::Stragglers; break;
    case SpeedConfig::Dist::TransientStragglers: c.speed = compute::ComputeSpec::Speed::TransientStragglers; break;
    case SpeedConfig::Dist::Markov: c.speed = compute::ComputeSpec::Speed::Constant; break;  // the timeline slows them
  }
  c.factor = s.factor;
  c.factors = s.factors;
  c.min = s.min;
  c.max = s.max;
  c.sigma = s.sigma;
  c.fraction = s.fraction;
  c.slowdown = s.slowdown;
  c.probability = s.probability;
  c.noise_sigma = w.noise_sigma;
  if (w.noise.dist == scenario::NoiseConfig::Dist::ShiftedExponential) {
    c.noise = compute::ComputeSpec::Noise::ShiftedExponential;
    c.noise_shift = w.noise.shift;
    c.noise_mean = w.noise.mean;
  }
  c.throughput = w.throughput_flops;
  return c;
}

ps::PsConfig protocol_config(const scenario::Scenario& s, double flops_per_sample, std::int64_t batches) {
  ps::PsConfig c;
  c.flops_per_iteration = static_cast<double>(s.data.batch_size()) * flops_per_sample;
  if (batches > 1) c.flops_per_iteration *= static_cast<double>(batches);
  c.apply_bandwidth = s.cluster.servers.apply_bandwidth;
  c.stop.updates = s.training.stop.updates;
  c.failure_timeout = s.dynamics.failure_timeout;
  c.abandon_stale = s.dynamics.abandon_stale;
  if (const auto& a = s.cluster.workers.adaptive_batch)
    c.adaptive_batch = compute::AdaptiveBatchSpec{s.data.batch_size(), a->window, a->min, a->max};
  if (const auto& cp = s.cluster.servers.checkpoint) {
    c.checkpoint_every = cp->every;
    c.checkpoint_bandwidth = cp->bandwidth.value_or(0.0);
  }
  c.overlap = s.protocol.overlap;
  c.schedule = s.protocol.schedule;
  c.partition_bytes = s.protocol.partition_bytes;
  if (s.protocol.bucket_bytes) c.bucket_bytes = *s.protocol.bucket_bytes;
  return c;
}

training::DirectionCompression direction(const scenario::CompressionDirection& d) {
  return {d.spec, d.error_feedback, d.momentum_correction, d.cost_per_element_s};
}

training::LearningRatePolicy learning_rate_policy(const scenario::Scenario& s) {
  training::LearningRatePolicy p;
  const auto& lr = s.training.lr;
  p.staleness = lr.staleness == scenario::LearningRateRules::Staleness::Inverse
                    ? training::LearningRatePolicy::Staleness::Inverse
                : lr.staleness == scenario::LearningRateRules::Staleness::InversePlusOne
                    ? training::LearningRatePolicy::Staleness::InversePlusOne
                    : training::LearningRatePolicy::Staleness::None;
  p.staleness_coefficient = lr.staleness_coefficient;
  if (lr.linear_scaling)
    p.scale = static_cast<double>(s.cluster.workers.count * s.data.batch_size()) / static_cast<double>(lr.base_batch);
  p.warmup_updates = lr.warmup_updates;
  p.delay_compensation = lr.delay_compensation;
  p.schedule = lr.schedule;
  return p;
}

// Message sizes for runs without math, and the codec costs.
void configure_compression(const training::CompressionConfig& c, const std::vector<training::Part>& shards,
                           ps::PsConfig& config) {
  for (const auto& shard : shards) {
    // Threshold's size needs the values: it requires math, which gives every size.
    config.push_bytes.push_back(training::fixed_message_bytes(c.push, shard.params).value_or(shard.bytes()));
    config.pull_bytes.push_back(training::fixed_message_bytes(c.pull, shard.params).value_or(shard.bytes()));
  }
  config.push_codec_seconds = c.push.enabled() ? c.push.seconds_per_element : 0;
  config.pull_codec_seconds = c.pull.enabled() ? c.pull.seconds_per_element : 0;
}

// Error feedback needs a contractive compressor; QSGD is one only while s^2 >= n (its
// error is up to sqrt(n)/s times the norm). Shard sizes are known only now.
void check_feedback(const training::DirectionCompression& d, const char* where,
                    const std::vector<training::Part>& shards) {
  if (!d.error_feedback || d.spec.kind != models::CompressorKind::qsgd) return;
  std::int64_t largest = 0;
  for (const auto& shard : shards) largest = std::max(largest, shard.params);
  const double s = static_cast<double>(d.spec.levels);
  if (s * s < static_cast<double>(largest))
    throw std::invalid_argument(fmt::format(
        "{}.error_feedback with qsgd at {} levels on slices of up to {} parameters: QSGD's error reaches sqrt(n)/s = "
        "{:.3g} times the norm, so the residual grows without bound; use at least {} levels, or qsgd without error "
        "feedback",
        where, d.spec.levels, largest, std::sqrt(static_cast<double>(largest)) / s,
        static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(largest))))));
}

// Link directions whose utilization is recorded over time: all of them in small
// networks; in large ones, all but the workers' own NIC links (those are summarized by
// links.csv), which keeps the series small while showing servers and switch uplinks.
std::vector<net::ResourceId> recorded_resources(const net::Topology& t, const std::vector<net::NodeId>& workers) {
  std::vector<net::ResourceId> out;
  if (t.resource_count() <= 512) {
    for (net::ResourceId r = 0; r < t.resource_count(); ++r) out.push_back(r);
    return out;
  }
  std::vector<bool> worker_link(t.link_count(), false);
  for (net::NodeId w : workers) worker_link[t.access_link(w)] = true;
  for (net::ResourceId r = 0; r < t.resource_count(); ++r)
    if (!worker_link[r / 2]) out.push_back(r);
  return out;
}

}  // namespace

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::SimTime: return "sim_time";
    case StopReason::Updates: return "updates";
    case StopReason::Epochs: return "epochs";
    case StopReason::Target: return "target_accuracy";
    case StopReason::Diverged: return "diverged";
    case StopReason::Collapsed: return "collapsed";
    case StopReason::NoLiveWorkers: return "no_live_workers";
    case StopReason::NoProgress: return "no_progress";
  }
  return "?";
}

// Sizes of the model: from the scenario for a synthetic one; for a real network, from the
// network built for the data (which also sets its input shape, classes or vocabulary).
void Experiment::build_model() {
  const auto& model = scenario_.model;
  if (model.kind == scenario::ModelConfig::Kind::Synthetic) {
    params_ = model.synthetic.params;
    layer_params_ = model.synthetic.layer_params;
    flops_per_sample_ = model.synthetic.flops_per_sample;
    // Layer FLOPs: as given (shares), else in proportion to the parameters; forward a
    // third, backward two thirds (the weight and the input gradients).
    std::int64_t begin = 0;
    for (std::size_t l = 0; l < layer_params_.size(); ++l) {
      const double flops = model.synthetic.layer_flops.empty() ? static_cast<double>(layer_params_[l])
                                                               : model.synthetic.layer_flops[l];
      layers_.push_back({{begin, begin + layer_params_[l]}, {flops / 3, flops - flops / 3}});
      begin += layer_params_[l];
    }
    return;
  }
  const bool external_data = scenario_.data.spec.kind == "torch";
  if (uses_external_math(scenario_) && !external_)
    throw std::invalid_argument("model.kind torch runs a PyTorch module: run this scenario from Python (pssim.run, "
                                "or /usr/bin/python3 -m pssim run SCENARIO)");
  data_ = std::make_unique<models::TrainingData>(external_data ? external_->load_data(scenario_)
                                                               : models::TrainingData::load(scenario_.data.spec,
                                                                                            scenario_.seed));
  const bool lm = data_->task() == models::TaskKind::language_model;
  if (model.torch) {
    network_model_ = external_->build_network(scenario_, *data_);
  } else {
    models::NetworkSpec spec = model.network;
    data_->adapt(spec);
    network_model_ = models::build_network<float>(spec);
  }
  params_ = static_cast<std::int64_t>(network_model_->num_params());
  for (const auto& t : network_model_->layout().tensors()) layer_params_.push_back(static_cast<std::int64_t>(t.size));
  const auto given = model.torch ? model.torch->flops_per_sample : std::nullopt;
  flops_per_sample_ = given ? *given : network_model_->flops_per_sample(lm ? scenario_.data.spec.seq_len : 0);
  for (const auto& l : network_model_->layer_costs(lm ? scenario_.data.spec.seq_len : 0))
    layers_.push_back({{l.begin, l.end}, {l.forward_flops, l.backward_flops}});
}

Experiment::~Experiment() = default;

Experiment::Experiment(const scenario::Scenario& s, unsigned threads, const ExternalMath* external)
    : scenario_(s), scheme_(schemes::find(s.protocol.scheme)), threads_(threads), external_(external), sim_(s.seed) {
  build_model();
  check_memory(s, scheme_, params_);  // before what grows with the cluster is built
  BuiltTopology built = build_topology(s, scheme_.layout != schemes::Layout::AllReduced);
  topology_ = std::move(built.topology);

  const auto& servers = s.cluster.servers;
  schemes::LayoutInputs in;
  in.params = params_;
  in.tensor_params = layer_params_;
  if (network_model_ && data_->task() == models::TaskKind::language_model) {
    const auto& table = network_model_->layout().find("embedding.weight");
    in.embedding = training::EmbeddingTable{static_cast<std::int64_t>(table.offset), table.shape[0], table.shape[1]};
  }
  in.shards = servers.shards;
  in.partition_by_layer = servers.partition == ServersConfig::Partition::Layer;
  in.placement = servers.placement == ServersConfig::Placement::Balanced    ? schemes::LayoutInputs::Placement::Balanced
                 : servers.placement == ServersConfig::Placement::Colocated ? schemes::LayoutInputs::Placement::Colocated
                                                                            : schemes::LayoutInputs::Placement::RoundRobin;
  in.worker_hosts = built.worker_hosts;
  in.server_hosts = built.server_hosts;
  in.racks = s.network.topology == scenario::NetworkConfig::Topology::TwoTier ? static_cast<std::size_t>(s.network.racks)
                                                                              : 1;
  layout_ = schemes::make_layout(scheme_, s.protocol, in);
  check_connected();

  net::NetworkModel network_model = s.network.model;
  network_model.priorities = s.protocol.schedule == protocol::Schedule::Priority;  // classes = layers
  network_ = std::make_unique<net::FlowNetwork>(sim_, topology_, network_model);
  network_->record_utilization(s.output.utilization_interval, recorded_resources(topology_, layout_.worker_hosts),
                               s.output.utilization_max_values ? static_cast<std::size_t>(*s.output.utilization_max_values)
                                                               : net::UtilizationSeries::kDefaultMaxValues);
  compute_ = std::make_unique<compute::ComputeModel>(compute_spec(s.cluster.workers),
                                                     static_cast<std::size_t>(s.cluster.workers.count), sim_.random());
  // The scheme's math; its worker rule also says how many batches a computation reads,
  // which times it with or without math.
  const schemes::RuleInputs rules{s.training.optimizer, learning_rate_policy(s), s.cluster.workers.count};
  std::unique_ptr<training::WorkerRule> worker_rule = scheme_.worker_rule(s.protocol, rules);
  batches_per_computation_ = worker_rule->batches_per_computation();
  ps::PsConfig config = protocol_config(s, flops_per_sample_, batches_per_computation_);
  const training::CompressionConfig compression{direction(s.compression.push), direction(s.compression.pull)};
  check_feedback(compression.push, "compression.push", layout_.shards);
  check_feedback(compression.pull, "compression.pull", layout_.shards);
  configure_compression(compression, layout_.shards, config);
  if (network_model_ && s.model.math) build_math(std::move(worker_rule), rules);
  config.stop.samples = stop_samples_;
  if (config.pieced()) config.layers = layers_;
  protocol_ = schemes::build(scheme_, {sim_, *network_, *compute_, &forward_, s.protocol, std::move(config), layout_,
                                       {gradients_.get(), store_.get()}});
  if (scenario::has_dynamics(s))
    dynamics_ = std::make_unique<dynamics::Dynamics>(sim_, *network_, topology_, *protocol_, scenario_,
                                                     layout_.worker_hosts, built.server_hosts, &forward_);
}

// The gradient source and the parameter store over the layout's parts (shards first,
// then the all-reduced part).
void Experiment::build_math(std::unique_ptr<training::WorkerRule> worker_rule, const schemes::RuleInputs& rules) {
  const auto& s = scenario_;
  std::vector<training::Part> parts = layout_.shards;
  if (layout_.all_reduced) parts.push_back(layout_.all_reduced->part);
  pool_ = std::make_unique<parallel::JobPool>(threads_);

  training::ModelGradientsConfig g;
  g.workers = s.cluster.workers.count;
  g.batch_size = s.data.batch_size();
  g.seed = s.seed;
  g.push = direction(s.compression.push);
  if (scheme_.layout == schemes::Layout::Hybrid || s.cluster.servers.sparse_embeddings) {
    const auto& table = network_model_->layout().find("embedding.weight");
    g.sparse_embedding = training::EmbeddingTable{static_cast<std::int64_t>(table.offset), table.shape[0], table.shape[1]};
  }
  g.clip_norm = s.training.clip_norm;
  gradients_ = std::make_unique<training::ModelGradients>(*network_model_, *data_, parts, g, std::move(worker_rule),
                                                          *pool_);

  training::ModelParametersConfig m;
  m.optimizer = s.training.optimizer;
  m.lr = rules.lr;
  m.weight_by_samples = s.cluster.workers.adaptive_batch.has_value();
  m.workers = s.cluster.workers.count;
  m.seed = s.seed;
  m.pull = direction(s.compression.pull);
  store_ = std::make_unique<training::ModelParameters>(network_model_->init_params(models::derive_seed(s.seed, "init")),
                                                       std::move(parts), m, scheme_.server_rule(s.protocol, rules), *pool_);
  if (s.training.stop.epochs)
    stop_samples_ =
        static_cast<std::int64_t>(std::ceil(*s.training.stop.epochs * static_cast<double>(gradients_->train_items())));
  const bool classifier = data_->task() == models::TaskKind::classification;
  collapse_.emplace(s.training.collapse, classifier ? data_->train_images()->num_classes : 0);
  forward_.collapse = &*collapse_;
}

// Every worker must reach every shard's host and back, and the workers of an all-reduce
// one another (links are full duplex: reaching worker 0 and back is enough); better said
// now than mid-run.
void Experiment::check_connected() const {
  std::vector<net::NodeId> servers = layout_.shard_hosts;
  std::sort(servers.begin(), servers.end());
  servers.erase(std::unique(servers.begin(), servers.end()), servers.end());
  if (layout_.all_reduced) servers.push_back(layout_.worker_hosts.front());
  net::ResourceId buffer[net::kMaxRouteLength];
  TimeNs latency;
  try {
    for (net::NodeId w : layout_.worker_hosts)
      for (net::NodeId s : servers) {
        topology_.route_into(w, s, buffer, latency);
        topology_.route_into(s, w, buffer, latency);
      }
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

double Experiment::progress_fraction() const {
  const auto& stop = scenario_.training.stop;
  double f = 0;
  if (stop.sim_time) f = std::max(f, static_cast<double>(sim_.now()) / static_cast<double>(*stop.sim_time));
  if (stop.updates)
    f = std::max(f, static_cast<double>(protocol_->least_updates()) / static_cast<double>(*stop.updates));
  return std::min(f, 1.0);
}

void Experiment::watch_flow_counts(std::function<void(net::ResourceId, std::size_t, TimeNs)> listener) {
  network_->set_flow_count_listener(
      [this, listener = std::move(listener)](net::ResourceId r, std::size_t n) { listener(r, n, sim_.now()); });
}

std::vector<float> Experiment::parameters() const {
  if (!gradients_) throw std::logic_error("parameters() needs a real model with math");
  return gradients_->assemble(protocol_->current_parameters());
}

void Experiment::evaluate_now() {
  const models::EvalResult r = gradients_->evaluate(protocol_->current_parameters());
  protocol::EvalRecord e;
  e.time = sim_.now();
  e.updates = protocol_->totals().updates;
  e.steps = protocol_->least_updates();
  e.epochs = static_cast<double>(protocol_->totals().samples) / static_cast<double>(gradients_->train_items());
  e.test_loss = r.loss;
  e.test_accuracy = r.accuracy;
  e.language_model = data_->task() == models::TaskKind::language_model;
  e.perplexity = r.perplexity;
  e.bytes_sent = network_->bytes_moved();
  e.push_bytes = network_->bytes_moved(net::ByteAccount::Push);
  outcome_.final_eval = e;
  ++outcome_.evaluations;
  store_->observe_evaluation(r.loss);  // a plateau schedule's evidence
  gradients_->observe_evaluation(r.loss);
  outcome_.best_accuracy = std::max(outcome_.best_accuracy, e.test_accuracy);
  if (auto why = collapse_->check(e.test_loss, e.test_accuracy); why && !outcome_.collapse) {
    outcome_.collapse = std::move(why);
    outcome_.diverged_at_update = e.steps;
    protocol_->stop();
  }
  const auto& target = scenario_.training.target_accuracy;
  if (target && !outcome_.time_to_target && e.test_accuracy >= *target) {
    outcome_.time_to_target = e.time;
    if (scenario_.training.stop_at_target) {
      target_reached_ = true;
      protocol_->stop();
    }
  }
  forward_.on_eval(e);
}

RunStats Experiment::run(protocol::Observer* observer, const std::function<void(const Experiment&)>& progress,
                         const std::atomic<bool>* interrupt) {
  if (sim_.events_executed() > 0) throw std::logic_error("an experiment runs once");
  forward_.attach(observer);
  const auto start = std::chrono::steady_clock::now();
  protocol_->start();
  if (dynamics_) dynamics_->start();
  const auto& stop = scenario_.training.stop;
  if (stop.sim_time) sim_.schedule_at(*stop.sim_time, [this] { sim_.stop(); });
  if (gradients_) {
    evaluate_now();  // the initial parameters
    if (const auto every = scenario_.training.eval_every) {
      // Evaluation takes no simulated time: a periodic event reads the shards' slices.
      struct Evaluator {
        Experiment* e;
        TimeNs every;
        void tick() {
          e->evaluate_now();
          e->sim_.schedule_after(every, [this] { tick(); });
        }
      };
      evaluator_ = std::make_unique<Evaluator>(Evaluator{this, *every});
      auto* ev = static_cast<Evaluator*>(evaluator_.get());
      sim_.schedule_after(*every, [ev] { ev->tick(); });
    }
  }
  // Progress by wall time: an event may take microseconds (timing only) or a second
  // (a large model's gradient), so counting events alone would report too often or too
  // rarely.
  auto next_report = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  bool stuck = false;
  sim_.run_until_condition([&] {
    if (interrupt && interrupt->load(std::memory_order_relaxed)) throw Interrupted();
    if (progress && sim_.events_executed() % 64 == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= next_report) {
        next_report = now + std::chrono::milliseconds(100);
        progress(*this);
      }
    }
    if (dynamics_ && !stop.sim_time) {  // without a time limit, timers alone would run the clock for ever
      const std::size_t timers = (evaluator_ ? 1 : 0) + protocol_->timers_pending();
      if (dynamics_->stuck(sim_.pending(), timers)) return stuck = true;
    }
    return protocol_->finished() || (dynamics_ && dynamics_->stalled());
  });
  RunStats stats;
  if (dynamics_ && dynamics_->stalled() && !protocol_->finished()) {
    stats.stopped_by = StopReason::NoLiveWorkers;
  } else if (protocol_->diverged_at()) {
    stats.stopped_by = StopReason::Diverged;
    outcome_.diverged_at_update = protocol_->diverged_at();
  } else if (outcome_.collapse) {
    stats.stopped_by = StopReason::Collapsed;
  } else if (target_reached_) {
    stats.stopped_by = StopReason::Target;
  } else if (protocol_->finished()) {
    stats.stopped_by = stop_samples_ && protocol_->totals().samples >= *stop_samples_ ? StopReason::Epochs
                                                                                      : StopReason::Updates;
  } else if (stop.sim_time && sim_.now() == *stop.sim_time) {
    stats.stopped_by = StopReason::SimTime;
  } else if (dynamics_ && (stuck || sim_.pending() == 0) && !dynamics_->report_no_progress().empty()) {
    stats.stopped_by = StopReason::NoProgress;  // the timeline broke what progress needs, for good
  } else {
    throw std::runtime_error(fmt::format("the simulation ran out of events at {} s before reaching a stop condition "
                                         "(a protocol deadlock: please report it with the scenario)",
                                         to_seconds(sim_.now())));
  }
  if (gradients_ && stats.stopped_by != StopReason::Diverged && stats.stopped_by != StopReason::Collapsed &&
      (outcome_.evaluations == 0 || outcome_.final_eval.time != sim_.now() ||
       outcome_.final_eval.updates != protocol_->totals().updates))
    evaluate_now();  // the final parameters
  network_->finish();
  protocol_->finish();
  forward_.attach(nullptr);
  stats.sim_time = sim_.now();
  stats.events = sim_.events_executed();
  stats.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats.training = outcome_;
  return stats;
}

}  // namespace pssim::experiment
