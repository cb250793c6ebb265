#include "sim/scenario/translate.hpp"

#include <numeric>
#include <set>

#include <fmt/format.h>

#include "sim/scenario/events.hpp"
#include "sim/scenario/validate.hpp"
#include "sim/schemes/registry.hpp"

namespace pssim::scenario {
namespace {

bool given(const ConfigNode* node) { return node && node->location().line > 0; }

[[noreturn]] void fail(const ConfigNode& at, std::string message) { throw ScenarioError(at.location(), std::move(message)); }

// The file position to blame for a problem with `node`: its own if the user wrote it,
// else (a default) that of `fallback`.
const ConfigNode& written(const ConfigNode& node, const ConfigNode& fallback) { return given(&node) ? node : fallback; }

std::optional<double> optional_bandwidth(const ConfigNode& map, const char* key) {
  if (const ConfigNode* n = map.find(key)) return as_bandwidth(*n);
  return std::nullopt;
}

models::LayerSpec read_layer(const ConfigNode& node) {
  models::LayerSpec l;
  l.kind = as_text(node.at("kind"));
  if (const ConfigNode* n = node.find("out")) l.out = as_count(*n);
  if (const ConfigNode* n = node.find("kernel")) l.kernel = as_count(*n);
  if (const ConfigNode* n = node.find("stride")) l.stride = as_count(*n);
  if (const ConfigNode* n = node.find("padding")) l.padding = as_count(*n);
  if (const ConfigNode* n = node.find("p")) l.p = as_real(*n);
  if (const ConfigNode* n = node.find("name")) l.name = as_text(*n);
  return l;
}

ModelConfig read_model(const ConfigNode& node) {
  ModelConfig m;
  const std::string& kind = as_text(node.at("kind"));
  if (kind == "synthetic") {
    m.kind = ModelConfig::Kind::Synthetic;
    m.synthetic.params = as_count(node.at("params"));
    m.synthetic.flops_per_sample = as_flops(node.at("flops_per_sample"));
    if (const ConfigNode* layers = node.find("layer_params")) {
      for (const auto& item : layers->items()) m.synthetic.layer_params.push_back(as_count(item));
      const auto sum = std::accumulate(m.synthetic.layer_params.begin(), m.synthetic.layer_params.end(), std::int64_t{0});
      if (sum != m.synthetic.params)
        fail(*layers, fmt::format("model.layer_params sum to {}, but model.params is {}", sum, m.synthetic.params));
    } else {
      m.synthetic.layer_params = {m.synthetic.params};
    }
    if (const ConfigNode* flops = node.find("layer_flops")) {
      for (const auto& item : flops->items()) m.synthetic.layer_flops.push_back(as_flops(item));
      if (m.synthetic.layer_flops.size() != m.synthetic.layer_params.size())
        fail(*flops, fmt::format("model.layer_flops gives {} layers, but model.layer_params {}: one per layer",
                                 m.synthetic.layer_flops.size(),
                                 node.find("layer_params") ? std::to_string(m.synthetic.layer_params.size())
                                                           : std::string("is absent (one layer)")));
    }
    return m;
  }
  m.kind = ModelConfig::Kind::Network;
  m.math = as_bool(node.at("math"));
  auto& net = m.network;
  if (kind == "cnn") {
    const ConfigNode* preset = node.find("preset");
    const ConfigNode* layers = node.find("layers");
    if (!preset == !layers) fail(node, "model.kind cnn needs either preset (convnet-small, cnn, mnist-net) or layers");
    if (preset) net.preset = as_text(*preset);
    if (layers)
      for (const auto& l : layers->items()) net.layers.push_back(read_layer(l));
    if (const ConfigNode* d = node.find("dropout")) net.dropout = as_real(*d);
  } else if (kind == "mlp") {
    net.preset = "mlp";
    net.hidden.clear();
    for (const auto& h : node.at("hidden").items()) net.hidden.push_back(as_count(h));
  } else if (kind == "logreg") {
    net.preset = "logreg";
  } else if (kind == "torch") {
    TorchModel& t = m.torch.emplace();
    if (const ConfigNode* module = node.find("module")) t.module = as_text(*module);  // checked and resolved by validate
    if (const ConfigNode* f = node.find("flops_per_sample")) t.flops_per_sample = as_flops(*f);
  } else {
    net.preset = "lstm-lm";
    net.embed_dim = as_count(node.at("embed_dim"));
    net.hidden_size = as_count(node.at("hidden_size"));
    net.num_layers = as_count(node.at("num_layers"));
    if (const ConfigNode* d = node.find("dropout")) net.dropout = as_real(*d);
  }
  return m;
}

models::PartitionSpec read_partition(const ConfigNode& node) {
  models::PartitionSpec p;
  p.kind = models::parse_partition_kind(as_text(node.at("kind")));
  if (const ConfigNode* a = node.find("alpha")) p.alpha = as_real(*a);
  return p;
}

DataConfig read_data(const ConfigNode& node, const ModelConfig& model, const ConfigNode& model_node) {
  DataConfig d;
  auto& spec = d.spec;
  spec.batch_size = as_count(node.at("batch_size"));
  const std::string& kind = as_text(node.at("kind"));
  d.present = kind != "none";
  const bool language_data = kind == "text" || kind == "synthetic-text";
  if (model.kind == ModelConfig::Kind::Synthetic) {
    if (d.present) fail(node.at("kind"), "a synthetic model trains on no data: remove data.kind or use a real model");
    return d;
  }
  const bool language_model = model.network.preset == "lstm-lm";
  const bool torch = model.torch.has_value();
  if (!d.present)
    fail(written(node, model_node),
         fmt::format("model.kind {} needs data: set data.kind ({})", as_text(model_node.at("kind")),
                     torch            ? "fashion-mnist, mnist, synthetic, text, synthetic-text or torch"
                     : language_model ? "text or synthetic-text"
                                      : "fashion-mnist, mnist or synthetic"));
  if (kind == "torch" && !torch)
    fail(node.at("kind"), "data.kind torch holds PyTorch datasets: it needs model.kind torch");
  if (!torch && language_model != language_data)
    fail(node.at("kind"), language_model ? "an lstm-lm trains on text: data.kind text or synthetic-text"
                                         : "this model trains on images: data.kind fashion-mnist, mnist or synthetic");
  if (const ConfigNode* e = node.find("eval_max")) spec.eval_max = as_count(*e);
  if (kind == "torch") {
    spec.kind = kind;
    if (const ConfigNode* module = node.find("module")) spec.path = as_text(*module);  // checked and resolved by validate
    spec.partition = read_partition(node.at("partition"));
  } else if (kind == "fashion-mnist" || kind == "mnist" || kind == "synthetic") {
    spec.kind = kind;
    if (const ConfigNode* p = node.find("path")) spec.path = as_text(*p);
    spec.partition = read_partition(node.at("partition"));
    if (const ConfigNode* m = node.find("pixel_mean")) spec.pixels.mean = as_real(*m);
    if (const ConfigNode* sd = node.find("pixel_std")) spec.pixels.std = as_real(*sd);
    if (kind == "synthetic") {
      spec.synthetic_train = as_count(node.at("train_items"));
      spec.synthetic_test = as_count(node.at("test_items"));
      spec.synthetic_noise = as_real(node.at("noise"));
    }
  } else if (kind == "text") {
    spec.kind = "corpus";
    if (const ConfigNode* c = node.find("corpus")) spec.corpus.path = as_text(*c);
    spec.corpus.level = models::parse_token_level(as_text(node.at("level")));
    spec.corpus.vocab_cap = as_count(node.at("vocab_cap"));
    spec.corpus.heldout_fraction = as_real(node.at("heldout"));
    spec.seq_len = as_count(node.at("seq_len"));
  } else {
    spec.kind = "synthetic-text";
    spec.synthetic_vocab = as_count(node.at("vocab"));
    spec.synthetic_branching = as_count(node.at("branching"));
    spec.seq_len = as_count(node.at("seq_len"));
  }
  return d;
}

StopConfig read_stop(const ConfigNode& node, const ConfigNode& root, const DataConfig& data) {
  StopConfig s;
  if (const ConfigNode* t = node.find("sim_time")) s.sim_time = as_duration(*t);
  if (const ConfigNode* u = node.find("updates")) s.updates = as_count(*u);
  if (const ConfigNode* e = node.find("epochs")) {
    if (!data.present) fail(*e, "training.stop.epochs counts passes over training data, and there is none");
    s.epochs = as_real(*e);
  }
  if (!s.sim_time && !s.updates && !s.epochs)
    fail(written(node, root), "training.stop needs at least one condition: sim_time (e.g. 60s), updates (e.g. 100) "
                              "or epochs");
  return s;
}

models::LrScheduleSpec read_schedule(const ConfigNode& node, const TrainingConfig& t, const ConfigNode& eval) {
  models::LrScheduleSpec s;
  s.kind = models::parse_lr_schedule_kind(as_text(node.at("kind")));
  if (const ConfigNode* n = node.find("step_size")) s.step_size = as_count(*n);
  if (const ConfigNode* n = node.find("gamma")) s.gamma = as_real(*n);
  if (const ConfigNode* n = node.find("min_factor")) s.min_factor = as_real(*n);
  if (const ConfigNode* n = node.find("patience")) s.patience = as_count(*n);
  if (const ConfigNode* n = node.find("threshold")) s.threshold = as_real(*n);
  if (s.kind == models::LrScheduleSpec::Kind::cosine) {
    if (const ConfigNode* n = node.find("period")) s.period = as_count(*n);
    else if (t.stop.updates) s.period = *t.stop.updates;
    else
      fail(node.at("kind"), "training.lr_schedule cosine needs a period: set lr_schedule.period (steps), or stop "
                            "the run on training.stop.updates");
  }
  if (s.kind == models::LrScheduleSpec::Kind::plateau && !t.eval_every && t.eval_every_steps == 0)
    fail(node.at("kind"), fmt::format("training.lr_schedule plateau acts on evaluations: set training.eval.every "
                                      "(pssim run) or training.eval.every_steps (pssim train){}",
                                      given(&eval) ? "" : " in a training.eval section"));
  return s;
}

TrainingConfig read_training(const ConfigNode& node, const ConfigNode& root, const ModelConfig& model,
                             const DataConfig& data, const ConfigNode& protocol) {
  TrainingConfig t;
  const ConfigNode& opt = node.at("optimizer");
  auto& o = t.optimizer;
  o.kind = models::parse_optimizer_kind(as_text(opt.at("kind")));
  o.lr = as_real(opt.at("lr"));
  o.momentum = as_real(opt.at("momentum"));
  o.nesterov = as_bool(opt.at("nesterov"));
  o.weight_decay = as_real(opt.at("weight_decay"));
  o.warmup_steps = as_count(opt.at("warmup_steps"));
  o.beta1 = as_real(opt.at("beta1"));
  o.beta2 = as_real(opt.at("beta2"));
  o.eps = as_real(opt.at("eps"));
  try {
    models::validate(o);
  } catch (const std::invalid_argument& e) {
    fail(written(opt, root), e.what());
  }
  t.stop = read_stop(node.at("stop"), root, data);
  const bool math = model.kind == ModelConfig::Kind::Network && model.math;
  const ConfigNode& eval = node.at("eval");
  if (const ConfigNode* every = eval.find("every")) {
    if (!math) fail(*every, "training.eval.every evaluates a real model: it needs model.math true and data");
    t.eval_every = as_duration(*every);
  }
  t.eval_every_steps = as_count(eval.at("every_steps"));
  const ConfigNode& collapse = node.at("collapse");
  t.collapse.loss_factor = as_real(collapse.at("loss_factor"));
  t.collapse.chance_evaluations = as_count(collapse.at("chance_evaluations"));
  if (const ConfigNode* target = node.find("target_accuracy")) {
    if (!math || data.spec.kind == "corpus" || data.spec.kind == "synthetic-text")
      fail(*target, "training.target_accuracy needs a classifier with real math (test accuracy)");
    t.target_accuracy = as_real(*target);
  }
  t.stop_at_target = as_bool(node.at("stop_at_target"));
  if (t.stop_at_target && !t.target_accuracy)
    fail(node.at("stop_at_target"), "training.stop_at_target needs training.target_accuracy");
  const std::string& mode = as_text(protocol.at("mode"));
  const schemes::Scheme& scheme = schemes::find(mode);
  const std::string& staleness = as_text(node.at("staleness_lr"));
  if (staleness != "none" && !scheme.capabilities.stale_gradients)
    fail(node.at("staleness_lr"),
         fmt::format("training.staleness_lr applies to {}: {} gradients are never stale",
                     schemes::names_where([](const schemes::Scheme& x) { return x.capabilities.stale_gradients; }),
                     mode));
  t.lr.staleness = staleness == "inverse"            ? LearningRateRules::Staleness::Inverse
                   : staleness == "inverse-plus-one" ? LearningRateRules::Staleness::InversePlusOne
                                                     : LearningRateRules::Staleness::None;
  if (const ConfigNode* c = node.find("staleness_lr_coefficient")) {
    if (staleness != "inverse-plus-one")
      fail(*c, "training.staleness_lr_coefficient is the c of staleness_lr: inverse-plus-one (lr / (1 + c tau))");
    t.lr.staleness_coefficient = as_real(*c);
  }
  const ConfigNode& scaling = node.at("lr_scaling");
  t.lr.linear_scaling = as_text(scaling.at("rule")) == "linear";
  t.lr.base_batch = as_count(scaling.at("base_batch"));
  t.lr.warmup_updates = as_count(scaling.at("warmup_updates"));
  if (const ConfigNode* dc = node.find("delay_compensation")) {
    if (!scheme.capabilities.applies_each_gradient)
      fail(*dc, fmt::format("training.delay_compensation (DC-ASGD) applies to {} only",
                            schemes::names_where(
                                [](const schemes::Scheme& x) { return x.capabilities.applies_each_gradient; })));
    t.lr.delay_compensation = as_real(*dc);
  }
  if (const ConfigNode* clip = node.find("clip_norm")) {
    if (!math) fail(*clip, "training.clip_norm clips real gradients: it needs model.math true and data");
    t.clip_norm = as_real(*clip);
  }
  if (const ConfigNode* schedule = node.find("lr_schedule")) t.lr.schedule = read_schedule(*schedule, t, eval);
  return t;
}

SpeedConfig read_speed(const ConfigNode& node, std::int64_t workers) {
  SpeedConfig s;
  const std::string& dist = as_text(node.at("dist"));
  if (dist == "constant") {
    s.dist = SpeedConfig::Dist::Constant;
    s.factor = as_real(node.at("factor"));
  } else if (dist == "list") {
    s.dist = SpeedConfig::Dist::List;
    const ConfigNode& list = node.at("factors");
    for (const auto& item : list.items()) s.factors.push_back(as_real(item));
    if (static_cast<std::int64_t>(s.factors.size()) != workers)
      fail(list, fmt::format("cluster.workers.speed.factors has {} entries for {} workers", s.factors.size(), workers));
  } else if (dist == "uniform") {
    s.dist = SpeedConfig::Dist::Uniform;
    s.min = as_real(node.at("min"));
    s.max = as_real(node.at("max"));
    if (s.min > s.max) fail(node.at("max"), fmt::format("speed max {} is below min {}", s.max, s.min));
  } else if (dist == "lognormal") {
    s.dist = SpeedConfig::Dist::Lognormal;
    s.sigma = as_real(node.at("sigma"));
  } else if (dist == "stragglers") {
    s.dist = SpeedConfig::Dist::Stragglers;
    s.fraction = as_real(node.at("fraction"));
    s.slowdown = as_real(node.at("slowdown"));
  } else if (dist == "transient-stragglers") {
    s.dist = SpeedConfig::Dist::TransientStragglers;
    s.probability = as_real(node.at("probability"));
    s.slowdown = as_real(node.at("slowdown"));
  } else if (dist == "markov") {
    s.dist = SpeedConfig::Dist::Markov;
    s.slowdown = as_real(node.at("slowdown"));
    s.mean_slow = as_duration(node.at("mean_slow"));
    s.mean_normal = as_duration(node.at("mean_normal"));
  }
  return s;
}

// cluster.workers.batch and its window and bounds (adaptive_batch only with adaptive).
std::optional<AdaptiveBatchConfig> read_adaptive_batch(const ConfigNode& workers) {
  const ConfigNode* batch = workers.find("batch");
  const ConfigNode* bounds = workers.find("adaptive_batch");
  if (!batch || as_text(*batch) != "adaptive") {
    if (bounds) fail(*bounds, "cluster.workers.adaptive_batch applies to batch: adaptive");
    return std::nullopt;
  }
  AdaptiveBatchConfig a;
  if (!bounds) return a;
  a.window = as_count(bounds->at("window"));
  a.min = as_real(bounds->at("min"));
  a.max = as_real(bounds->at("max"));
  return a;
}

// The old form {sigma} is lognormal; `dist` chooses, and each takes only its own keys.
NoiseConfig read_noise(const ConfigNode& node) {
  NoiseConfig n;
  n.sigma = as_real(node.at("sigma"));
  const ConfigNode* dist = node.find("dist");
  const bool exponential = dist && as_text(*dist) == "shifted-exponential";
  for (const char* key : {"shift", "mean"})
    if (const ConfigNode* k = node.find(key); k && !exponential)
      fail(*k, fmt::format("cluster.workers.noise.{} applies to dist: shifted-exponential", key));
  if (!exponential) return n;
  n.dist = NoiseConfig::Dist::ShiftedExponential;
  if (given(node.find("sigma")) && n.sigma > 0)
    fail(node.at("sigma"), "cluster.workers.noise.sigma is lognormal noise: with dist shifted-exponential use "
                           "shift and mean");
  if (const ConfigNode* k = node.find("shift")) n.shift = as_real(*k);
  if (const ConfigNode* k = node.find("mean")) n.mean = as_real(*k);
  if (!(n.shift + n.mean > 0)) fail(*dist, "shifted-exponential noise with shift 0 and mean 0 would take no time");
  return n;
}

// The settings under which dynamics are not modelled. They cancel and re-time whole
// computations (compute::ComputeRunner) and whole messages under max-min sharing
// (FlowNetwork::cancel_*, set_capacity): overlap times per-layer steps (nothing of the
// dynamics applies); pieces, tcp and priority classes leave speed changes only.
std::string dynamics_excluded_by(const Scenario& s) {
  if (s.protocol.overlap == protocol::Overlap::Backward) return "protocol.overlap: backward";
  if (s.protocol.overlap == protocol::Overlap::Full) return "protocol.overlap: full";
  return {};
}
std::string failures_excluded_by(const Scenario& s) {
  if (s.protocol.schedule == protocol::Schedule::Priority) return "protocol.schedule: priority";
  if (s.protocol.partition_bytes) return "protocol.partition_bytes";
  if (s.network.model.general()) return "network.model: tcp";
  return {};
}

// Events and the protocol's keys for them, checked against the scenario they run in.
DynamicsConfig read_dynamics(const ConfigNode& root, const Scenario& s) {
  DynamicsConfig d;
  const ConfigNode& protocol = root.at("protocol");
  const std::string excluded_by = dynamics_excluded_by(s);
  const auto not_with = [&](const ConfigNode& at, const char* what) {
    if (!excluded_by.empty())
      fail(at, fmt::format("{} with {} is not modelled (it re-times whole computations, not per-layer steps)", what,
                           excluded_by));
  };
  if (const ConfigNode* t = protocol.find("failure_timeout")) d.failure_timeout = as_duration(*t);
  if (const ConfigNode* a = protocol.find("abandon_stale")) {
    d.abandon_stale = as_bool(*a);
    if (d.abandon_stale && !schemes::find(s.protocol.scheme).capabilities.abandons_stale)
      fail(*a, fmt::format("protocol.abandon_stale is for {} (a round that closed without a straggler), not {}",
                           schemes::names_where([](const schemes::Scheme& x) { return x.capabilities.abandons_stale; }),
                           s.protocol.scheme));
    if (d.abandon_stale) not_with(*a, "protocol.abandon_stale");
  }
  if (s.cluster.workers.speed.dist == SpeedConfig::Dist::Markov)
    not_with(root.at("cluster").at("workers").at("speed"), "speed: {dist: markov}");
  if (s.cluster.servers.checkpoint) not_with(root.at("cluster").at("servers").at("checkpoint"), "cluster.servers.checkpoint");
  const schemes::Scheme& scheme = schemes::find(s.protocol.scheme);
  EventFacts f;
  f.workers = s.cluster.workers.count;
  f.scheme = s.protocol.scheme;
  f.has_servers = scheme.layout != schemes::Layout::AllReduced;
  f.no_server_crashes = scheme.capabilities.no_server_crashes;
  f.server_crash_schemes = schemes::names_where(
      [](const schemes::Scheme& x) {
        return x.layout != schemes::Layout::AllReduced && x.capabilities.no_server_crashes.empty();
      },
      "or");
  f.no_worker_crashes = scheme.capabilities.no_worker_crashes;
  f.worker_crash_schemes =
      schemes::names_where([](const schemes::Scheme& x) { return x.capabilities.no_worker_crashes.empty(); }, "or");
  const bool colocated = s.cluster.servers.placement == ServersConfig::Placement::Colocated;
  f.servers = f.has_servers && !colocated ? s.cluster.servers.count : 0;
  f.pull_compression = s.compression.pull.spec.kind != models::CompressorKind::none;
  const auto& net = s.network;
  if (net.topology == NetworkConfig::Topology::Explicit) {
    f.switches = net.switches;
    f.hosts = net.worker_hosts;
    f.hosts.insert(f.hosts.end(), net.server_hosts.begin(), net.server_hosts.end());
    f.numbered_hosts = false;
  } else if (net.topology == NetworkConfig::Topology::Star) {
    f.switches.push_back("switch");
  } else {
    f.switches.push_back("core");
    // Servers in a rack of their own sit under one more switch (build_topology.cpp).
    const bool own_rack = net.server_racks == NetworkConfig::ServerRacks::OwnRack && f.servers > 0;
    for (std::int64_t k = 0; k < net.racks + (own_rack ? 1 : 0); ++k) f.switches.push_back(fmt::format("tor-{}", k));
  }
  f.all_excluded_by = excluded_by;
  f.network_excluded_by = failures_excluded_by(s);
  auto timeline = std::make_shared<Timeline>();
  if (const ConfigNode* list = root.find("events"))
    for (auto& e : read_events(*list, f)) timeline->add_listed(std::move(e));
  if (const ConfigNode* file = root.find("events_file")) read_events_file(as_text(*file), f, *timeline);
  check_timeline(*timeline);
  if (!timeline->empty()) d.timeline = std::move(timeline);
  return d;
}

ServersConfig read_servers(ConfigNode& node, std::int64_t workers, const ModelConfig& model) {
  ServersConfig s;
  const std::string& placement = as_text(node.at("placement"));
  s.placement = placement == "balanced"    ? ServersConfig::Placement::Balanced
                : placement == "colocated" ? ServersConfig::Placement::Colocated
                                           : ServersConfig::Placement::RoundRobin;
  s.partition = as_text(node.at("partition")) == "layer" ? ServersConfig::Partition::Layer : ServersConfig::Partition::Bytes;
  s.count = as_count(node.at("count"));
  const bool colocated = s.placement == ServersConfig::Placement::Colocated;
  if (colocated && given(node.find("count")))
    fail(node.at("count"), "cluster.servers.count does not apply with placement: colocated (servers run on the "
                           "worker hosts); remove it");
  if (colocated) s.count = workers;
  if (const ConfigNode* shards = node.find("shards")) {
    s.shards = as_count(*shards);
  } else {
    s.shards = s.count;
    const SourceLocation derived{"derived from cluster.servers.count", 0, 0};
    node.insert_after("count", "shards", derived, ConfigNode::scalar(std::to_string(s.shards), derived));
  }
  // Real networks are checked when built (their sizes come from the data).
  const ConfigNode& at_shards = *node.find("shards");
  const auto& layers = model.synthetic.layer_params;
  if (model.kind == ModelConfig::Kind::Synthetic) {
    if (s.partition == ServersConfig::Partition::Layer && s.shards > static_cast<std::int64_t>(layers.size()))
      fail(at_shards, fmt::format("{} shards but the model has {} layers: with partition: layer some shards would "
                                  "be empty (use fewer shards or partition: bytes)",
                                  s.shards, layers.size()));
    if (s.shards > model.synthetic.params)
      fail(at_shards, fmt::format("{} shards for {} parameters: some shards would be empty", s.shards,
                                  model.synthetic.params));
  }
  s.apply_bandwidth = optional_bandwidth(node, "apply_bandwidth");
  if (const ConfigNode* sparse = node.find("sparse_embeddings")) s.sparse_embeddings = as_bool(*sparse);
  if (const ConfigNode* c = node.find("checkpoint")) {
    CheckpointConfig& cp = s.checkpoint.emplace();
    cp.every = as_duration(c->at("every"));
    cp.bandwidth = optional_bandwidth(*c, "bandwidth");
  }
  return s;
}

NicConfig read_nic(const ConfigNode& node) {
  NicConfig nic;
  const double both = as_bandwidth(node.at("bandwidth"));
  nic.up = optional_bandwidth(node, "up").value_or(both);
  nic.down = optional_bandwidth(node, "down").value_or(both);
  nic.latency = as_duration(node.at("latency"));
  return nic;
}

void read_nic_overrides(const ConfigNode& list, const ClusterConfig& cluster, NetworkConfig& net) {
  std::set<std::string> seen;
  for (const auto& item : list.items()) {
    NicOverride o;
    const ConfigNode& host = item.at("host");
    o.host = as_text(host);
    int index = -1;
    std::int64_t limit = 0;
    if (o.host.rfind("worker-", 0) == 0) limit = cluster.workers.count, index = 7;
    else if (o.host.rfind("server-", 0) == 0) limit = cluster.servers.count, index = 7;
    bool valid = index > 0 && o.host.size() > 7 && o.host.find_first_not_of("0123456789", 7) == std::string::npos &&
                 o.host.size() < 15;
    if (valid) valid = std::stoll(o.host.substr(7)) < limit;
    if (!valid)
      fail(host, fmt::format("no host '{}': hosts are worker-0 .. worker-{} and server-0 .. server-{}", o.host,
                             cluster.workers.count - 1, cluster.servers.count - 1));
    if (!seen.insert(o.host).second) fail(host, fmt::format("host '{}' is overridden twice", o.host));
    const auto both = optional_bandwidth(item, "bandwidth");
    o.up = optional_bandwidth(item, "up");
    o.down = optional_bandwidth(item, "down");
    if (!o.up) o.up = both;
    if (!o.down) o.down = both;
    if (const ConfigNode* l = item.find("latency")) o.latency = as_duration(*l);
    if (!o.up && !o.down && !o.latency) fail(item, "a NIC override needs bandwidth, up, down or latency");
    net.nic_overrides.push_back(o);
  }
}

// network.framing: payload bytes per wire byte (net/network_model.hpp); 1 when absent.
double read_framing(const ConfigNode* node) {
  if (!node) return 1.0;
  if (as_text(node->at("kind")) == "factor") return as_real(node->at("efficiency"));
  const std::int64_t mtu = as_count(node->at("mtu"));
  const std::int64_t headers = as_count(node->at("header_bytes"));
  if (headers >= mtu)
    fail(node->at("header_bytes"),
         fmt::format("network.framing.header_bytes {} leaves no payload in a packet of mtu {} bytes: it must be "
                     "below mtu",
                     headers, mtu));
  return net::ethernet_framing(static_cast<double>(mtu), static_cast<double>(headers));
}

// network.model, network.tcp and network.framing (net/network_model.hpp).
net::NetworkModel read_network_model(const ConfigNode& node) {
  net::NetworkModel m;
  const ConfigNode* model = node.find("model");
  const ConfigNode* tcp = node.find("tcp");
  m.framing = read_framing(node.find("framing"));
  if (model && as_text(*model) == "tcp") m.kind = net::NetworkModel::Kind::Tcp;
  if (!tcp) return m;
  if (m.kind != net::NetworkModel::Kind::Tcp)
    fail(*tcp, "network.tcp sets the factors of the tcp model: add `model: tcp` to the network section, or remove "
               "network.tcp");
  m.tcp.latency_factor = as_real(tcp->at("latency_factor"));
  m.tcp.bandwidth_factor = as_real(tcp->at("bandwidth_factor"));
  m.tcp.crosstraffic = as_real(tcp->at("crosstraffic"));
  m.tcp.gamma = as_bytes(tcp->at("gamma"));
  m.tcp.weight_s = as_real(tcp->at("weight_s"));
  return m;
}

NetworkConfig read_network(const ConfigNode& node, const ClusterConfig& cluster) {
  NetworkConfig net;
  net.model = read_network_model(node);
  const std::string& topology = as_text(node.at("topology"));
  if (topology == "explicit") {
    net.topology = NetworkConfig::Topology::Explicit;
    for (const auto& s : node.at("switches").items()) net.switches.push_back(as_text(s));
    for (const auto& l : node.at("links").items()) {
      ExplicitLink link;
      link.from = as_text(l.at("from"));
      link.to = as_text(l.at("to"));
      link.forward = as_bandwidth(l.at("bandwidth"));
      link.reverse = optional_bandwidth(l, "reverse").value_or(link.forward);
      link.latency = as_duration(l.at("latency"));
      if (link.from == link.to) fail(l, fmt::format("link from '{}' to itself", link.from));
      net.links.push_back(link);
    }
    const ConfigNode& workers = node.at("workers");
    for (const auto& w : workers.items()) net.worker_hosts.push_back(as_text(w));
    if (static_cast<std::int64_t>(net.worker_hosts.size()) != cluster.workers.count)
      fail(workers, fmt::format("network.workers lists {} hosts for {} workers", net.worker_hosts.size(),
                                cluster.workers.count));
    const ConfigNode& servers = node.at("servers");
    for (const auto& s : servers.items()) net.server_hosts.push_back(as_text(s));
    if (cluster.servers.placement != ServersConfig::Placement::Colocated &&
        static_cast<std::int64_t>(net.server_hosts.size()) != cluster.servers.count)
      fail(servers, fmt::format("network.servers lists {} hosts for {} servers", net.server_hosts.size(),
                                cluster.servers.count));
    return net;
  }
  net.topology = topology == "two-tier" ? NetworkConfig::Topology::TwoTier : NetworkConfig::Topology::Star;
  net.worker_nic = read_nic(node.at("worker_nic"));
  net.server_nic = read_nic(node.at("server_nic"));
  read_nic_overrides(node.at("nic_overrides"), cluster, net);
  if (net.topology == NetworkConfig::Topology::TwoTier) {
    net.racks = as_count(node.at("racks"));
    if (net.racks > cluster.workers.count)
      fail(node.at("racks"), fmt::format("{} racks for {} workers: some racks would be empty", net.racks,
                                         cluster.workers.count));
    net.oversubscription = as_real(node.at("oversubscription"));
    net.uplink_latency = as_duration(node.at("uplink_latency"));
    net.server_racks = as_text(node.at("server_racks")) == "spread" ? NetworkConfig::ServerRacks::Spread
                                                                    : NetworkConfig::ServerRacks::OwnRack;
  }
  return net;
}

// The scheme's own keys and checks come from the registry; sparse embedding rows are
// checked here because they are a servers key that depends on the scheme.
ProtocolConfig read_protocol(const ConfigNode& node, const ConfigNode& root, const Scenario& s) {
  ProtocolConfig p;
  const ConfigNode& mode = node.at("mode");
  p.scheme = as_text(mode);
  const schemes::Scheme& scheme = schemes::find(p.scheme);
  schemes::ScenarioFacts facts;
  facts.workers = s.cluster.workers.count;
  facts.servers = root.at("cluster").find("servers");
  facts.two_tier = s.network.topology == NetworkConfig::Topology::TwoTier;
  facts.racks = s.network.racks;
  facts.topology = root.at("network").find("topology");
  facts.language_model = s.model.kind == ModelConfig::Kind::Network && s.model.network.preset == "lstm-lm";
  facts.math = s.model.kind == ModelConfig::Kind::Network && s.model.math;
  facts.model = &root.at("model");
  const ConfigNode& compression = root.at("compression");
  for (const char* direction : {"push", "pull"})
    if (as_text(compression.at(direction).at("kind")) != "none") facts.compression = &compression.at(direction);
  scheme.read(node, facts, p);

  if (s.cluster.servers.sparse_embeddings) {
    const ConfigNode& sparse = facts.servers->at("sparse_embeddings");
    if (!facts.language_model || !facts.math)
      fail(sparse, "cluster.servers.sparse_embeddings sends the embedding rows each batch reads: it needs model.kind "
                   "lstm-lm with model.math true");
    if (!scheme.capabilities.sparse_pulls)
      fail(sparse, fmt::format("cluster.servers.sparse_embeddings with protocol {}: a worker pulls the rows of its "
                               "next batch, and {} workers may compute on parameters pulled for an earlier one",
                               p.scheme, p.scheme));
    if (facts.compression)
      fail(sparse, "cluster.servers.sparse_embeddings and compression do not combine: choose one");
  }
  return p;
}

CompressionDirection read_direction(const ConfigNode& node, const std::string& where, const Scenario& s) {
  CompressionDirection d;
  const ConfigNode& kind = node.at("kind");
  auto& spec = d.spec;
  spec.kind = models::parse_compressor_kind(as_text(kind));
  if (const ConfigNode* r = node.find("ratio")) spec.ratio = as_real(*r);
  if (const ConfigNode* m = node.find("sample")) spec.dgc_sample = as_real(*m);
  if (const ConfigNode* l = node.find("levels")) spec.levels = as_count(*l);
  if (const ConfigNode* t = node.find("threshold")) spec.threshold = as_real(*t);
  try {
    models::validate(spec, where);
  } catch (const std::invalid_argument& e) {
    fail(node, e.what());
  }
  d.error_feedback = as_bool(node.at("error_feedback"));
  d.cost_per_element_s = as_seconds(node.at("cost_per_element"));
  const bool none = spec.kind == models::CompressorKind::none;
  if (none && d.error_feedback)
    fail(node.at("error_feedback"), fmt::format("{}.error_feedback needs a compressor: set {}.kind", where, where));
  if (none && d.cost_per_element_s > 0)
    fail(node.at("cost_per_element"), fmt::format("{}.cost_per_element needs a compressor: set {}.kind", where, where));
  if (d.error_feedback && spec.kind == models::CompressorKind::randomk)
    fail(node.at("error_feedback"),
         fmt::format("{}.error_feedback with randomk: its n/k scaling is not contractive, so the residual grows "
                     "without bound; use topk or dgc with error feedback, or randomk without",
                     where));
  const bool math = s.model.kind == ModelConfig::Kind::Network && s.model.math;
  if (spec.kind == models::CompressorKind::threshold && !math)
    fail(kind, fmt::format("{}.kind threshold sends as many values as exceed the threshold: the message size "
                           "needs real values (a real model with model.math true)",
                           where));
  if (const ConfigNode* m = node.find("momentum_correction")) {
    d.momentum_correction = as_real(*m);
    if (spec.kind != models::CompressorKind::topk && spec.kind != models::CompressorKind::dgc &&
        spec.kind != models::CompressorKind::threshold)
      fail(*m, fmt::format("{}.momentum_correction needs a sparsifying kind (topk, dgc or threshold), not {}", where,
                           as_text(kind)));
    if (given(node.find("error_feedback")) && d.error_feedback)
      fail(node.at("error_feedback"), fmt::format("{}.momentum_correction keeps its own residual: remove "
                                                  "{}.error_feedback",
                                                  where, where));
    const auto& opt = s.training.optimizer;
    if (opt.kind != models::OptimizerKind::sgd || opt.momentum != 0)
      fail(*m, fmt::format("{}.momentum_correction applies the momentum at the workers: the servers need plain SGD "
                           "(training.optimizer.kind sgd, momentum 0), or momentum is applied twice",
                           where));
  }
  return d;
}

CompressionConfig read_compression(const ConfigNode& node, const Scenario& s) {
  return {read_direction(node.at("push"), "compression.push", s), read_direction(node.at("pull"), "compression.pull", s)};
}

}  // namespace

Scenario translate(ConfigNode& resolved) {
  Scenario s;
  s.name = as_text(resolved.at("name"));
  if (const ConfigNode* d = resolved.find("description")) s.description = as_text(*d);
  s.seed = static_cast<std::uint64_t>(as_count(resolved.at("seed")));
  s.model = read_model(resolved.at("model"));
  s.data = read_data(resolved.at("data"), s.model, resolved.at("model"));
  s.training = read_training(resolved.at("training"), resolved, s.model, s.data, resolved.at("protocol"));

  ConfigNode& cluster = *resolved.find("cluster");
  const ConfigNode& workers = cluster.at("workers");
  s.cluster.workers.count = as_count(workers.at("count"));
  s.cluster.workers.throughput_flops = as_flop_rate(workers.at("throughput"));
  s.cluster.workers.speed = read_speed(workers.at("speed"), s.cluster.workers.count);
  s.cluster.workers.noise_sigma = as_real(workers.at("noise").at("sigma"));
  s.cluster.workers.noise = read_noise(workers.at("noise"));
  s.cluster.workers.adaptive_batch = read_adaptive_batch(workers);
  s.cluster.servers = read_servers(*cluster.find("servers"), s.cluster.workers.count, s.model);

  s.network = read_network(resolved.at("network"), s.cluster);
  s.protocol = read_protocol(resolved.at("protocol"), resolved, s);
  // A scheme without servers (the registry refused a written servers section): the
  // resolved scenario does not list the defaults it does not use.
  if (schemes::find(s.protocol.scheme).layout == schemes::Layout::AllReduced) {
    auto& entries = cluster.entries();
    std::erase_if(entries, [](const MapEntry& e) { return e.key == "servers"; });
  }
  s.compression = read_compression(resolved.at("compression"), s);
  s.output.utilization_interval = as_duration(resolved.at("output").at("utilization_interval"));
  s.output.trace = as_bool(resolved.at("output").at("trace"));
  if (const ConfigNode* max = resolved.at("output").find("utilization_max_values"))
    s.output.utilization_max_values = as_count(*max);
  s.dynamics = read_dynamics(resolved, s);
  if (s.cluster.workers.adaptive_batch) {
    const ConfigNode& batch = workers.at("batch");
    if (const auto why = schemes::find(s.protocol.scheme).capabilities.no_adaptive_batches; !why.empty())
      fail(batch, fmt::format("cluster.workers.batch: adaptive with protocol {}: {}; use batch: fixed",
                              s.protocol.scheme, why));
    if (s.cluster.servers.sparse_embeddings || schemes::find(s.protocol.scheme).layout == schemes::Layout::Hybrid)
      fail(batch, "cluster.workers.batch: adaptive and sparse embedding rows do not combine (a worker's rows are "
                  "pulled for a batch drawn before its size is known)");
    if (const std::string overlap = dynamics_excluded_by(s); !overlap.empty())
      fail(batch, fmt::format("cluster.workers.batch: adaptive with {} is not modelled: a computation's time "
                              "would include its waits for pieces, not only its speed",
                              overlap));
  }
  return s;
}

}  // namespace pssim::scenario
