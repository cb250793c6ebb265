// PsMath: what the protocols need from the gradient math, in the protocols' own terms.
//
// A shard's parameters at a version are an immutable, shared slice (SliceRef): a pull
// hands the worker a reference, not a copy, so workers holding the same version share it.
// A worker's gradient is computed on exactly the slices it holds, from its own data; the
// shards apply updates to their slices. PsEngine drives these calls in simulation order;
// TrainingMath implements them with models/, tests with fakes. A run without math passes
// no PsMath and the engine only times things.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace pssim::ps {

/// A shard's parameters at one version: its ranges of the flat vector, concatenated.
using SliceRef = std::shared_ptr<const std::vector<float>>;

/// One shard's part of a worker's gradient: the gradient on the shard's ranges,
/// concatenated in the layout of its slice. Each shard's part is its own object, so it is
/// freed as soon as that shard has applied it.
struct GradientData {
  std::vector<float> values;  ///< [shard length]; with push compression, what the shard decodes
  double loss = 0;            ///< mean training loss of the whole batch
  std::int64_t samples = 0;   ///< batch size
  std::optional<double> wire_bytes;  ///< push compression: the message's size; none: uncompressed
};
using GradientRef = std::shared_ptr<const GradientData>;

class PsMath {
 public:
  virtual ~PsMath() = default;

  /// Shard s's slice at version 0.
  virtual SliceRef initial_slice(std::size_t shard) = 0;

  /// Starts the gradient of worker w's iteration `iteration` on `held` (one slice per
  /// shard); returns a ticket for gradient(). May run in the background.
  virtual std::uint64_t start_gradient(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held) = 0;
  /// The result of a started gradient, one part per shard (waits for it). Each ticket is
  /// redeemed once.
  virtual std::vector<GradientRef> gradient(std::uint64_t ticket) = 0;

  /// Sync and SSP: adds worker w's gradient part g (staleness tau) to shard s's update for
  /// `clock`. The update sums its gradients in worker order, not arrival order, so the
  /// math does not depend on timing (sharding or placement change time, not results).
  virtual void accumulate(std::size_t shard, std::int64_t clock, std::size_t worker, const GradientRef& g,
                          std::int64_t tau) = 0;
  /// Sync and SSP: applies the average of the `count` gradients given for `clock` and
  /// returns the shard's new slice.
  virtual SliceRef apply_average(std::size_t shard, std::int64_t clock, std::int64_t count) = 0;
  /// Async: applies one gradient part of staleness tau, computed on `computed_on` (null unless
  /// needs_computed_on()), and returns the shard's new slice.
  virtual SliceRef apply_one(std::size_t shard, const GradientRef& g, std::int64_t tau, const SliceRef& computed_on) = 0;
  /// A shard's answer to a pull: what the worker will hold, and the message's size
  /// (nullopt: the uncompressed slice).
  struct PullMessage {
    SliceRef held;
    std::optional<double> bytes;
  };
  /// The messages shard s sends now, at its current version `current`, to each of
  /// `workers` (never version 0, which goes out uncompressed). Default: the slice itself.
  virtual std::vector<PullMessage> pull_messages(std::size_t /*shard*/, const SliceRef& current,
                                                 const std::vector<std::size_t>& workers) {
    return std::vector<PullMessage>(workers.size(), PullMessage{current, std::nullopt});
  }

  /// True when apply_one needs the slice a gradient was computed on (delay compensation).
  virtual bool needs_computed_on() const { return false; }
};

}  // namespace pssim::ps
