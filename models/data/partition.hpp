// Deterministic per-worker partitions of a training set, and the per-worker batch sampler.
//
// A partition is a list of item indices per worker (items: images, or token windows of a
// language-model corpus). Every function is a pure function of its arguments: the same
// seed gives the same partition on any machine (Boost.Random engines and distributions).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace pssim::models {

using Partition = std::vector<std::vector<std::int64_t>>;

enum class PartitionKind { iid, dirichlet };
/// Scenario keys (suggested): data.partition (iid | dirichlet), data.alpha.
struct PartitionSpec {
  PartitionKind kind = PartitionKind::iid;
  double alpha = 0.5;  ///< Dirichlet concentration: small = strong label skew
};
PartitionKind parse_partition_kind(std::string_view name);  ///< "iid" | "dirichlet"

/// Shuffles [0, n) and deals it into `workers` contiguous parts whose sizes differ by at
/// most one. Throws std::invalid_argument if workers < 1 or n < workers.
Partition partition_iid(std::int64_t n, std::int64_t workers, std::uint64_t seed);

/// Non-iid label skew: for each class c, proportions q_c ~ Dirichlet(alpha, ..., alpha)
/// over workers (drawn as normalized Gamma(alpha, 1) variates, Boost's gamma_distribution)
/// and the class's shuffled items are cut in those proportions (cumulative rounding).
/// A worker left with no item receives one from the largest part, so every worker can
/// train. Each worker's list is sorted. Throws if alpha <= 0, workers < 1 or
/// n < workers, or a label is outside [0, num_classes).
Partition partition_dirichlet(std::span<const std::int32_t> labels, std::int64_t num_classes,
                              std::int64_t workers, double alpha, std::uint64_t seed);

/// Cycles through a worker's items in batches, reshuffling at the start of each epoch
/// with an engine seeded by derive_seed(seed, "epoch", epoch). The last batch of an
/// epoch may be smaller (PyTorch's DataLoader default, drop_last = False).
class BatchSampler {
 public:
  /// Throws std::invalid_argument for an empty item list or batch_size < 1.
  BatchSampler(std::vector<std::int64_t> items, std::int64_t batch_size, std::uint64_t seed);

  /// The next batch of item indices (valid until the next call).
  std::span<const std::int64_t> next() { return next(batch_size_); }
  /// The next `count` (>= 1) item indices, or fewer at the end of an epoch (adaptive
  /// batches: the size may change from one call to the next; the order of items does not).
  std::span<const std::int64_t> next(std::int64_t count);
  std::int64_t epoch() const { return epoch_; }  ///< epoch of the last batch returned
  std::int64_t batches_per_epoch() const;
  std::int64_t batch_size() const { return batch_size_; }
  std::int64_t items() const { return std::int64_t(order_.size()); }

 private:
  void shuffle_epoch(std::int64_t epoch);

  std::vector<std::int64_t> base_, order_;
  std::int64_t batch_size_;
  std::uint64_t seed_;
  std::int64_t epoch_ = -1;
  std::size_t pos_ = 0;
};

}  // namespace pssim::models
