// TrainingMath: PsMath with real networks, data and optimizers (models/).
//
// Shards: each owns its ranges of the flat parameter vector as one contiguous slice, a
// SliceOptimizer per range (its state sliced the same way), and per-clock gradient sums.
// Every update writes a new slice (copy, then update), so a slice handed to workers never
// changes; slices and gradient parts come from per-shard pools (buffer_pool.hpp).
// Workers: each has its items (iid or Dirichlet partition) and a batch sampler, both
// seeded per worker; a gradient is computed on the held slices, assembled into one vector
// (no copy for a single contiguous shard), by a JobPool job, and cut into one part per
// shard (written in place for a single contiguous shard).
//
// Determinism: a gradient depends only on (slices, batch, dropout seed); an averaged update
// sums its gradients in worker order (whatever order they arrived in); evaluation sums
// batch results in batch order. Outputs are identical for any number of threads, and
// sharding or placement change the timing but not the parameters.
//
// Compression (compression.hpp): a worker's gradient job also compresses each shard's
// slice (its residuals are touched by its own jobs only, one at a time); a shard's pulls
// to several workers are encoded in parallel, each against that worker's copy.
//
// Learning rate of an update: optimizer lr x linear scaling (workers x batch / base batch,
// ramped over warmup updates) x staleness factor (1, 1/max(tau,1) or 1/(1+c tau)); the
// optimizer's own warm-up applies on top. Delay compensation (DC-ASGD) adds
// lambda g*g*(w_now - w_then) to an async gradient.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/data/partition.hpp"
#include "models/data/training_data.hpp"
#include "models/nets/network.hpp"
#include "models/optim/optimizer.hpp"
#include "sim/ps/buffer_pool.hpp"
#include "sim/ps/compression.hpp"
#include "sim/ps/job_pool.hpp"
#include "sim/ps/partition.hpp"
#include "sim/ps/ps_math.hpp"

namespace pssim::ps {

struct LearningRatePolicy {
  enum class Staleness { None, Inverse, InversePlusOne } staleness = Staleness::None;
  double staleness_coefficient = 1.0;  ///< c of InversePlusOne: 1 / (1 + c tau)
  double scale = 1.0;               ///< linear scaling factor (1: none)
  std::int64_t warmup_updates = 0;  ///< ramp from 1 to scale over this many updates of a shard
  std::optional<double> delay_compensation;  ///< DC-ASGD lambda
};

struct TrainingMathConfig {
  models::OptimizerSpec optimizer;
  LearningRatePolicy lr;
  std::int64_t workers = 1;
  std::int64_t batch_size = 64;
  std::uint64_t seed = 1;
  unsigned threads = 1;
  CompressionConfig compression;
};

class TrainingMath : public PsMath {
 public:
  /// `network` and `data` must outlive this object.
  TrainingMath(const models::Network& network, const models::TrainingData& data, std::vector<Shard> shards,
               const TrainingMathConfig& config);
  ~TrainingMath() override;

  SliceRef initial_slice(std::size_t shard) override;
  std::uint64_t start_gradient(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held) override;
  std::vector<GradientRef> gradient(std::uint64_t ticket) override;
  void accumulate(std::size_t shard, std::int64_t clock, std::size_t worker, const GradientRef& g,
                  std::int64_t tau) override;
  SliceRef apply_average(std::size_t shard, std::int64_t clock, std::int64_t count) override;
  SliceRef apply_one(std::size_t shard, const GradientRef& g, std::int64_t tau, const SliceRef& computed_on) override;
  std::vector<PullMessage> pull_messages(std::size_t shard, const SliceRef& current,
                                         const std::vector<std::size_t>& workers) override;
  bool needs_computed_on() const override { return config_.lr.delay_compensation.has_value(); }

  /// Test loss and accuracy (or perplexity) of the parameters made of `slices` (one per
  /// shard), evaluated in parallel on the job pool.
  models::EvalResult evaluate(const std::vector<SliceRef>& slices);
  /// The full parameter vector made of `slices`.
  std::vector<float> assemble(const std::vector<SliceRef>& slices) const;

  std::int64_t train_items() const { return data_.num_train_items(); }

 private:
  struct ShardMath {
    std::vector<Range> ranges;
    std::size_t length = 0;
    std::vector<models::SliceOptimizer> optimizers;  // one per range
    struct Contribution {
      std::size_t worker;
      GradientRef gradient;
      std::int64_t tau;
    };
    std::unordered_map<std::int64_t, std::vector<Contribution>> pending;  // per clock
    std::vector<float> scratch;  // the gradient slice of an async update
    std::int64_t updates = 0;
    std::unique_ptr<BufferPool<std::vector<float>>> slices;  // [length] each
    std::unique_ptr<BufferPool<GradientData>> gradients;     // values [length] each
  };
  struct ThreadState {
    std::unique_ptr<models::Workspace> workspace;
    std::vector<float> params;
    models::Batch batch;
    std::vector<float> gradient;  // [parameters], when shards need their parts cut out of it
    std::vector<float> slice;     // pull compression: a delta
  };
  struct Pending {
    std::shared_ptr<JobPool::Ticket> ticket;
    // Set by the job when it runs: a queued job holds no gradient buffer (memory: in async,
    // most workers have a computation queued or a gradient in flight, rarely both).
    std::shared_ptr<std::vector<GradientRef>> result;
  };

  std::span<const float> params_view(const std::vector<SliceRef>& slices, std::vector<float>& buffer) const;
  std::shared_ptr<std::vector<float>> new_slice(std::size_t shard);
  void compute_gradient(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held,
                        const std::vector<std::int64_t>& batch, std::uint64_t dropout, unsigned thread,
                        std::vector<GradientRef>& parts);
  double learning_rate(const ShardMath& s, std::int64_t tau) const;
  double staleness_factor(std::int64_t tau) const;
  SliceRef apply(std::size_t shard, std::vector<float>& grad_slice, double lr, const SliceRef& computed_on);

  const models::Network& network_;
  const models::TrainingData& data_;
  TrainingMathConfig config_;
  std::vector<ShardMath> shards_;
  std::vector<SliceRef> current_;
  std::vector<models::BatchSampler> samplers_;
  std::vector<std::uint64_t> dropout_seeds_;
  std::vector<PushCompressor> push_;        // per worker (push compression only)
  std::vector<std::uint64_t> push_seeds_;   // per worker
  std::vector<PullCompressor> pull_;        // per shard (pull compression only)
  std::vector<std::uint64_t> pull_seeds_;   // per shard
  std::vector<std::uint64_t> pulls_sent_;   // per shard: compressed messages so far
  std::vector<ThreadState> threads_;
  std::unordered_map<std::uint64_t, Pending> pending_;
  std::uint64_t next_ticket_ = 1;
  JobPool pool_;  // last: destroyed first, so no job runs on a half-destroyed object
};

}  // namespace pssim::ps
