// BatchBalancer: adaptive batch sizes (cluster.workers.batch: adaptive), the load balancing
// of the PyTorch parameter-server tutorial's adaptive workers.
//
// Each worker's batch b_w is proportional to its measured throughput, so that in a sync
// round every worker computes for about the same time while the global batch
// G = workers x batch_size stays the same:
//   throughput_w = samples / seconds of its last `window` finished computations;
//   x_w = G x throughput_w / sum throughput, clamped to [min, max] x batch_size (a clamped
//         worker's surplus or deficit goes to the others in proportion to their throughput);
//   b_w = x_w rounded to whole samples by largest remainder (ties: lower worker first), so
//         sum b_w = G exactly, every b_w within the bounds and at least 1.
// Until every worker has `window` measurements, every batch is batch_size (equal shares).
// With no clamp, every worker's compute time is then G x FLOPs per sample / sum of the
// throughputs (up to rounding and noise): the round of the slowest becomes the round of
// the pool.
//
// Allocations are made per iteration: the first worker to start iteration k (in
// simulation order) makes the allocation for k from what has been measured by then, and
// every worker starting an iteration <= k uses it. In sync, every computation of round
// k-1 has ended before round k starts, so a round's batches sum to G; in async and SSP
// workers take the freshest allocation. Deterministic: a pure function of the measured
// durations, which are simulated times.
//
// Complexity: record O(1); an allocation O(N^2) at worst (one pass per clamped worker), once
// per iteration index.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace pssim::compute {

struct AdaptiveBatchSpec {
  std::int64_t batch_size = 1;  ///< the configured batch (data.batch_size): the mean share
  std::int64_t window = 10;     ///< finished computations per worker a throughput is measured over
  double min = 0.25, max = 4.0;  ///< bounds on a batch, as fractions of batch_size (min <= 1 <= max)
};

class BatchBalancer {
 public:
  /// Throws std::invalid_argument for workers < 1, batch_size < 1, window < 1 or bounds
  /// that exclude batch_size.
  BatchBalancer(std::size_t workers, const AdaptiveBatchSpec& spec);

  /// Worker w finished a computation of `samples` samples that took `seconds` (> 0).
  void record(std::size_t worker, std::int64_t samples, double seconds);
  /// The batch of worker w's computation `iteration` (see the allocation rule above).
  std::int64_t batch(std::size_t worker, std::int64_t iteration);

  /// Smallest and largest batch a worker may get, in samples.
  std::int64_t lower() const { return lower_; }
  std::int64_t upper() const { return upper_; }
  /// The current allocation (batch_size each until measured).
  const std::vector<std::int64_t>& batches() const { return batches_; }

  /// The allocation for throughputs `rates` (> 0 each): sizes in [lower, upper] summing to
  /// `total`. Exposed for tests.
  static std::vector<std::int64_t> allocate(const std::vector<double>& rates, std::int64_t total, std::int64_t lower,
                                            std::int64_t upper);

 private:
  struct Sample {
    std::int64_t samples;
    double seconds;
  };
  AdaptiveBatchSpec spec_;
  std::int64_t lower_ = 1, upper_ = 1;
  std::vector<std::deque<Sample>> windows_;  // per worker: its last `window` computations
  std::vector<std::int64_t> batches_;
  std::int64_t allocated_for_ = -1;  // the iteration the current allocation was made for
};

}  // namespace pssim::compute
