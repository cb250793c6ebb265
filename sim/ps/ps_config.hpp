// What a PsProtocol is built from: its timing and limits (PsConfig), where its parts live
// (PsLayout, with the all-reduced part if any) and its math (PsMath). The semantics of
// each field are stated in ps_protocol.hpp; this header is what the scheme registry and
// the experiment fill in, without the engine's own declarations.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/collective/algorithm.hpp"
#include "sim/compute/batch_balancer.hpp"
#include "sim/compute/layer_timeline.hpp"
#include "sim/core/time.hpp"
#include "sim/net/topology.hpp"
#include "sim/protocol/protocol_config.hpp"
#include "sim/protocol/training_protocol.hpp"
#include "sim/training/gradient_source.hpp"
#include "sim/training/parameter_store.hpp"
#include "sim/training/parts.hpp"

namespace pssim::ps {

struct PsConfig {
  double flops_per_iteration = 0;          ///< batch x FLOPs per sample
  std::optional<double> apply_bandwidth;   ///< bytes/s of slice a shard updates; none: free
  protocol::StopLimits stop;
  /// Bytes of each shard's push and pull messages when the math does not give them (no
  /// math, or the direction is uncompressed); empty: 4 bytes per parameter. Version 0
  /// always goes out whole.
  std::vector<double> push_bytes, pull_bytes;
  /// Compression cost in seconds per element encoded or decoded, per direction (0: free or
  /// uncompressed). A worker's iteration takes (push + pull) x all parameters longer (it
  /// encodes its pushes and decodes its pulls); a shard's update (push x gradients + pull
  /// x messages it sends) x its parameters.
  double push_codec_seconds = 0, pull_codec_seconds = 0;
  bool has_rounds = true;  ///< reported by has_rounds() (the scheme registry's flag)
  // Dynamics.
  TimeNs failure_timeout = 0;              ///< from a worker's crash until barriers stop waiting for it
  std::optional<TimeNs> checkpoint_every;  ///< none: no checkpoints (a crash restarts from version 0)
  double checkpoint_bandwidth = 0;         ///< bytes/s of writing and reading a checkpoint; 0: instant
  bool abandon_stale = false;  ///< sync: a worker whose every part moved on abandons its computation
  /// Overlap of communication with computation and the scheduling of pieces (see
  /// ps_protocol.hpp); the defaults send whole messages after the whole computation.
  protocol::Overlap overlap = protocol::Overlap::None;
  protocol::Schedule schedule = protocol::Schedule::Fifo;
  std::optional<double> partition_bytes;
  /// The model's layers in forward order, with pieces: their parameter ranges and FLOPs
  /// (only the shares of the FLOPs matter). Empty: one layer holding everything.
  struct Layer {
    training::Range params;
    compute::LayerFlops flops;
  };
  std::vector<Layer> layers;
  /// All-reduced part with overlap: gradient buckets of at least this many bytes, filled
  /// with whole layers from the last (PyTorch DDP's bucket_cap_mb, 25 MiB by default).
  double bucket_bytes = 25.0 * 1024 * 1024;
  bool pieced() const {
    return overlap != protocol::Overlap::None || schedule != protocol::Schedule::Fifo || partition_bytes.has_value();
  }
  /// cluster.workers.batch: adaptive. Each computation's batch comes from a BatchBalancer
  /// (flops_per_iteration is then that of adaptive_batch->batch_size samples and scales
  /// with the batch); none: every batch is the configured one.
  std::optional<compute::AdaptiveBatchSpec> adaptive_batch;
};

/// The part all workers replicate and all-reduce (allreduce and hybrid).
struct AllReducedPart {
  training::Part part;
  collective::AlgorithmKind algorithm = collective::AlgorithmKind::Ring;
  std::size_t racks = 1;                ///< hierarchical: racks of equal size, in worker order
  std::optional<double> chunk_bytes;    ///< none: whole messages
};

struct PsLayout {
  std::vector<net::NodeId> worker_hosts;  ///< one per worker
  std::vector<training::Part> shards;     ///< parts kept by servers
  std::vector<net::NodeId> shard_hosts;   ///< one per shard
  std::optional<AllReducedPart> all_reduced;  ///< the last part, when present
};

/// The training math, or none for timing only (both or neither).
struct PsMath {
  training::GradientSource* gradients = nullptr;
  training::ParameterStore* store = nullptr;
};

}  // namespace pssim::ps
