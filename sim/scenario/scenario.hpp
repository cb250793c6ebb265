// Scenario: the typed, validated content of a scenario file.
//
// Plain data, produced by translate() from a resolved ConfigNode and consumed by the
// experiment builder. Every field has a unit in its name or comment; every value has
// already been checked (ranges, cross-field rules), so consumers need not re-check.
// The meaning of each key is documented once, in the schema (scenario_schema.cpp), and
// rendered into docs/scenario-reference.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/compress/compressor.hpp"
#include "models/data/training_data.hpp"
#include "models/nets/network_spec.hpp"
#include "models/optim/lr_schedule.hpp"
#include "models/optim/optimizer.hpp"
#include "sim/core/time.hpp"
#include "sim/net/network_model.hpp"
#include "sim/protocol/protocol_config.hpp"
#include "sim/scenario/scenario_error.hpp"
#include "sim/scenario/timeline.hpp"

namespace pssim::scenario {

struct SyntheticModel {
  std::int64_t params = 0;                 ///< float32 parameters
  double flops_per_sample = 0;             ///< forward + backward
  std::vector<std::int64_t> layer_params;  ///< sizes of the layers (tensors), in order; sums to params
  std::vector<double> layer_flops;         ///< FLOPs of each layer (shares); empty: in proportion to layer_params
};

/// model.kind torch: a PyTorch module, whose network the Python package builds
/// (experiment/external_math.hpp); the scenario only names it.
struct TorchModel {
  std::string module;                      ///< "file.py:function"; empty: an object given from Python
  std::optional<double> flops_per_sample;  ///< forward + backward; none: counted from the layer shapes
};

struct ModelConfig {
  /// Synthetic: sizes only. Network: a real network, of models/ (cnn, mlp, logreg, lstm-lm)
  /// or a PyTorch module (`torch` set).
  enum class Kind { Synthetic, Network } kind = Kind::Synthetic;
  SyntheticModel synthetic;
  models::NetworkSpec network;  ///< Network of models/ (data-dependent fields set from the data)
  std::optional<TorchModel> torch;
  bool math = true;             ///< Network: compute real gradients (false: sizes and FLOPs only)
};

struct DataConfig {
  bool present = false;    ///< false: no data (synthetic models)
  /// spec.batch_size: samples per worker per iteration. spec.kind "torch": PyTorch datasets,
  /// loaded by the Python package; spec.path is then their "file.py:function" (empty: objects
  /// given from Python).
  models::DataSpec spec;
  std::int64_t batch_size() const { return spec.batch_size; }
};

struct StopConfig {
  std::optional<TimeNs> sim_time;        ///< stop when simulated time reaches this
  std::optional<std::int64_t> updates;  ///< stop when every shard has applied this many updates
  std::optional<double> epochs;          ///< stop after this many passes over the training data
};

/// How the learning rate of an update adapts to staleness and scale.
struct LearningRateRules {
  enum class Staleness { None, Inverse, InversePlusOne } staleness = Staleness::None;
  double staleness_coefficient = 1;  ///< c of InversePlusOne: lr / (1 + c tau)
  bool linear_scaling = false;     ///< Goyal et al.: lr x global batch / base_batch
  std::int64_t base_batch = 64;
  std::int64_t warmup_updates = 0;  ///< ramp from lr to the scaled lr over this many updates
  std::optional<double> delay_compensation;  ///< DC-ASGD lambda
  models::LrScheduleSpec schedule;           ///< kind none: constant
};

/// training.collapse: when a run whose loss stayed finite counts as failed.
struct CollapseConfig {
  double loss_factor = 10;             ///< training loss above this x the initial loss (0: off)
  std::int64_t chance_evaluations = 5;  ///< evaluations in a row back at chance (0: off)
};

struct TrainingConfig {
  models::OptimizerSpec optimizer;
  StopConfig stop;
  std::optional<TimeNs> eval_every;            ///< run: simulated time between evaluations
  std::int64_t eval_every_steps = 0;           ///< train: optimizer steps between evaluations
  std::optional<double> target_accuracy;       ///< time_to_target_s is reported for it
  bool stop_at_target = false;
  LearningRateRules lr;
  std::optional<double> clip_norm;             ///< global L2 norm each worker clips its gradient to
  CollapseConfig collapse;
};

struct SpeedConfig {
  enum class Dist { Constant, List, Uniform, Lognormal, Stragglers, TransientStragglers, Markov } dist = Dist::Constant;
  double factor = 1.0;          ///< Constant
  std::vector<double> factors;  ///< List: one per worker
  double min = 1.0, max = 1.0;  ///< Uniform
  double sigma = 0.0;           ///< Lognormal: factor = exp(N(0, sigma^2)), median 1
  double fraction = 0.0;        ///< Stragglers: share of workers that are slow
  double slowdown = 1.0;        ///< Stragglers / TransientStragglers: a slow worker takes slowdown x longer
  double probability = 0.0;     ///< TransientStragglers: chance per worker per iteration
  TimeNs mean_slow = 0, mean_normal = 0;  ///< Markov: mean sojourns (exponential) in each state
};

/// Per-iteration noise on a worker's compute time.
struct NoiseConfig {
  enum class Dist { Lognormal, ShiftedExponential } dist = Dist::Lognormal;
  double sigma = 0.0;             ///< Lognormal: speed x exp(N(0, sigma^2))
  double shift = 1.0, mean = 0.0;  ///< ShiftedExponential: time x (shift + Exp(mean))
};

/// cluster.workers.batch: adaptive, with cluster.workers.adaptive_batch.
struct AdaptiveBatchConfig {
  std::int64_t window = 10;      ///< computations per worker its throughput is measured over
  double min = 0.25, max = 4.0;  ///< bounds on a worker's batch, as fractions of data.batch_size
};

struct WorkersConfig {
  std::int64_t count = 1;
  std::optional<AdaptiveBatchConfig> adaptive_batch;  ///< none: batch fixed (data.batch_size each)
  double throughput_flops = 1e13;  ///< FLOP/s at speed factor 1
  SpeedConfig speed;
  double noise_sigma = 0.0;  ///< per-iteration lognormal noise on the speed, median 1
  NoiseConfig noise;
};

/// cluster.servers.checkpoint: each shard writes its slice every `every`.
struct CheckpointConfig {
  TimeNs every = 0;
  std::optional<double> bandwidth;  ///< bytes/s of writing (and reading back); none: instant
};

struct ServersConfig {
  enum class Placement { RoundRobin, Balanced, Colocated } placement = Placement::RoundRobin;
  enum class Partition { Bytes, Layer } partition = Partition::Bytes;
  std::int64_t count = 1;   ///< server hosts (unused when colocated)
  std::int64_t shards = 1;  ///< parameter shards
  std::optional<double> apply_bandwidth;  ///< bytes of its slice a shard applies per second; none = free
  bool sparse_embeddings = false;  ///< embedding rows travel sparse (only those a batch reads)
  std::optional<CheckpointConfig> checkpoint;
};

struct ClusterConfig {
  WorkersConfig workers;
  ServersConfig servers;
};

/// One host's network interface: full duplex, separate up (sending) and down (receiving)
/// capacity, in bytes per second, and the latency of its link.
struct NicConfig {
  double up = 1.25e9;
  double down = 1.25e9;
  TimeNs latency = 20 * kMicrosecond;
};

struct NicOverride {
  std::string host;  ///< "worker-3", "server-0"
  std::optional<double> up, down;
  std::optional<TimeNs> latency;
};

struct ExplicitLink {
  std::string from, to;
  double forward = 0;  ///< bytes/s from -> to
  double reverse = 0;  ///< bytes/s to -> from
  TimeNs latency = 0;
};

struct NetworkConfig {
  net::NetworkModel model;  ///< maxmin, or tcp with its factors (network_model.hpp)
  enum class Topology { Star, TwoTier, Explicit } topology = Topology::Star;
  NicConfig worker_nic, server_nic;
  std::vector<NicOverride> nic_overrides;
  // two-tier
  std::int64_t racks = 1;
  double oversubscription = 1.0;
  TimeNs uplink_latency = kMicrosecond;
  enum class ServerRacks { OwnRack, Spread } server_racks = ServerRacks::OwnRack;
  // explicit
  std::vector<std::string> switches;
  std::vector<ExplicitLink> links;
  std::vector<std::string> worker_hosts, server_hosts;
};

/// The scheme and its settings (sim/protocol/protocol_config.hpp; schemes are listed in
/// sim/schemes/registry.cpp).
using ProtocolConfig = protocol::ProtocolConfig;

/// Compression of one direction's messages (see the schema's compression section).
struct CompressionDirection {
  models::CompressorSpec spec;                ///< kind none: uncompressed
  bool error_feedback = false;
  std::optional<double> momentum_correction;  ///< push only: DGC momentum
  double cost_per_element_s = 0;              ///< seconds to encode or decode one element
};

struct CompressionConfig {
  CompressionDirection push, pull;
};

struct OutputConfig {
  TimeNs utilization_interval = 10 * kMillisecond;  ///< bin width of link_utilization.csv
  std::optional<std::int64_t> utilization_max_values;  ///< bins x links kept (then bins merge); none: default
  bool trace = false;                                ///< write trace.json
};

/// Protocol semantics under failures.
struct DynamicsConfig {
  /// `events:` then `events_file:`, in that order; shared by the copies of a scenario (a
  /// trace may hold millions of lines). Null: none.
  std::shared_ptr<const Timeline> timeline;
  TimeNs failure_timeout = 0;     ///< protocol.failure_timeout
  bool abandon_stale = false;     ///< protocol.abandon_stale
  bool any() const { return timeline && !timeline->empty(); }
};

struct Scenario;
/// The run plays a timeline (events, or Markov stragglers): it reports what failures cost.
bool has_dynamics(const Scenario& s);

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  ModelConfig model;
  DataConfig data;
  TrainingConfig training;
  ClusterConfig cluster;
  NetworkConfig network;
  ProtocolConfig protocol;
  CompressionConfig compression;
  OutputConfig output;
  DynamicsConfig dynamics;
};

inline bool has_dynamics(const Scenario& s) {
  return s.dynamics.any() || s.cluster.workers.speed.dist == SpeedConfig::Dist::Markov;
}

}  // namespace pssim::scenario
