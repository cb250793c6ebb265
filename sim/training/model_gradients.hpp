// ModelGradients: GradientSource with a real network and real data (models/).
//
// Workers: each has its items (iid or Dirichlet partition) and a batch sampler, both
// seeded per worker. A gradient is computed on the held slices, assembled into one vector
// (no copy when there is a single contiguous part), by a JobPool job, and cut into one
// GradientData per part (written in place for a single contiguous part).
//
// Push compression (compression.hpp): a worker's gradient job also compresses each part
// (its residuals are touched by its own jobs only, one at a time).
//
// Sparse embedding rows: when the network has an embedding table and `sparse_embedding`
// is set, a part's message carries only the table rows the batch reads (row ids and
// values, models/compress/sparse_rows.hpp) plus the part's other parameters whole. The
// values are unchanged (the gradient of a row the batch does not read is zero, and a
// worker computes only with the rows it reads), so sparse transfer changes message
// sizes, never the math (sync results are identical; async ones change only through the
// timing). Pulls are sized for the rows of the worker's next batch, which is
// drawn when first needed (pull or start) from the worker's own sampler: the sequence of
// batches is the same either way.
//
// Clipping (clip_norm): the worker clips its whole gradient by its global L2 norm
// (models/optim/clip_norm.hpp) before cutting it into parts, so sharding never changes
// what is clipped.
//
// What a computation makes of the held slices is the scheme's worker rule
// (worker_rule.hpp): the gradient of a batch, H local steps and their change (local SGD),
// or a scheme's own. A computation reads batches_per_computation() consecutive batches of
// the worker's data; step k of computation i has the dropout seed and (a rule with steps of
// its own) the rate of the worker's step t = i x batches + k, both taken when the
// computation starts, in simulation order. What the rule hands back is cut into the parts
// like a gradient; loss: the mean over its batches; samples: batches x batch.
//
// Adaptive batches (set_batch): a worker's next batch takes that many items from its
// sampler (same item order, different cuts); the gradient is the mean over its batch and
// `samples` says how many, for a sample-weighted average at the servers.
//
// Determinism: a gradient depends only on (slices, batch, dropout seed), so outputs are
// identical for any number of threads. Evaluation sums batch results in batch order.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "models/data/partition.hpp"
#include "models/data/training_data.hpp"
#include "models/nets/network.hpp"
#include "sim/parallel/job_pool.hpp"
#include "sim/training/buffer_pool.hpp"
#include "sim/training/compression.hpp"
#include "sim/training/gradient_source.hpp"
#include "sim/training/parts.hpp"
#include "sim/training/worker_rule.hpp"

namespace pssim::training {

/// An embedding table inside the flat parameter vector: `rows` x `width`, row-major,
/// starting at parameter `offset`.
struct EmbeddingTable {
  std::int64_t offset = 0;
  std::int64_t rows = 0;
  std::int64_t width = 0;
};

struct ModelGradientsConfig {
  std::int64_t workers = 1;
  std::int64_t batch_size = 64;
  std::uint64_t seed = 1;
  DirectionCompression push;                      ///< kind none: pushes uncompressed
  std::optional<EmbeddingTable> sparse_embedding;  ///< send only the rows a batch reads
  std::optional<double> clip_norm;                ///< clip each gradient to this global L2 norm
};

class ModelGradients : public GradientSource {
 public:
  /// `network`, `data` and `pool` must outlive this object; `rule` says what a computation
  /// makes of the held parameters.
  ModelGradients(const models::Network& network, const models::TrainingData& data, std::vector<Part> parts,
                 const ModelGradientsConfig& config, std::unique_ptr<WorkerRule> rule, parallel::JobPool& pool);
  ~ModelGradients() override;

  std::uint64_t start(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held) override;
  std::vector<GradientRef> get(std::uint64_t ticket) override;
  void cancel(std::uint64_t ticket) override;
  /// Throws std::logic_error with sparse embedding rows or a rule that reads several
  /// batches per computation (their batches are drawn ahead of, or several per, computation).
  void set_batch(std::size_t worker, std::int64_t samples) override;
  std::optional<double> pull_bytes(std::size_t worker, std::size_t part) override;

  /// Test loss and accuracy (or perplexity) of the parameters made of `slices` (one per
  /// part), evaluated in parallel on the job pool.
  models::EvalResult evaluate(const std::vector<SliceRef>& slices);
  /// The full parameter vector made of `slices`.
  std::vector<float> assemble(const std::vector<SliceRef>& slices) const;

  std::int64_t train_items() const { return data_.num_train_items(); }
  /// An evaluation's held-out loss, for a plateau schedule of the rule's steps.
  void observe_evaluation(double test_loss) { rule_->observe_evaluation(test_loss); }

 private:
  struct ThreadState {
    std::unique_ptr<models::Workspace> workspace;
    std::vector<float> params;
    models::Batch batch;
    std::vector<float> gradient;  // [parameters], when parts need their values cut out of it
    std::vector<std::int32_t> rows;  // sparse embedding: the distinct rows of a batch
    std::vector<float> local;        // rules with steps: the worker's parameters during them
  };
  struct Pending {
    std::shared_ptr<parallel::JobPool::Ticket> ticket;
    // Set by the job when it runs: a queued job holds no gradient buffer (memory: in async,
    // most workers have a computation queued or a gradient in flight, rarely both).
    std::shared_ptr<std::vector<GradientRef>> result;
  };
  /// A worker's next batch, drawn ahead of its computation (sparse pulls need its rows).
  struct NextBatch {
    std::vector<std::int64_t> items;
    std::vector<std::int32_t> rows;  // sparse embedding: distinct rows read, increasing
  };
  /// A part's share of the embedding table, for sparse message sizes.
  struct PartRows {
    std::int64_t begin = 0, end = 0;  // table elements [begin, end) the part holds
    std::int64_t other = 0;           // parameters of the part outside the table
  };

  std::span<const float> params_view(const std::vector<SliceRef>& slices, std::vector<float>& buffer) const;
  NextBatch& next_batch(std::size_t worker);
  void compute_gradient(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held,
                        const Work& work, unsigned thread, std::vector<GradientRef>& parts);
  void read_rows(const models::Batch& batch, std::vector<std::int32_t>& rows) const;
  double sparse_bytes(std::size_t part, std::span<const std::int32_t> rows) const;

  const models::Network& network_;
  const models::TrainingData& data_;
  ModelGradientsConfig config_;
  std::unique_ptr<WorkerRule> rule_;
  parallel::JobPool& pool_;
  std::vector<Part> parts_;
  std::vector<std::unique_ptr<BufferPool<GradientData>>> buffers_;  // per part: values [part length]
  std::vector<models::BatchSampler> samplers_;
  std::vector<std::int64_t> batch_;             // per worker: items of its next batch
  std::vector<std::optional<NextBatch>> next_;  // per worker
  std::vector<std::uint64_t> dropout_seeds_;
  std::vector<PushCompressor> push_;        // per worker (push compression only)
  std::vector<std::uint64_t> push_seeds_;   // per worker
  std::vector<PartRows> part_rows_;         // per part (sparse embedding only)
  std::vector<ThreadState> threads_;
  std::unordered_map<std::uint64_t, Pending> pending_;
  std::vector<std::shared_ptr<parallel::JobPool::Ticket>> cancelled_;  // run out before destruction
  std::uint64_t next_ticket_ = 1;
};

}  // namespace pssim::training
