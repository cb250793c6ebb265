// GradientSource: the worker side of training math, in the protocols' terms.
//
// A worker's gradient is computed on exactly the parameters it holds (one slice per part,
// possibly of different versions), on its own next batch. Protocols call start() when a
// worker starts an iteration and get() when the simulated computation ends, in simulation
// order; ModelGradients implements it with models/, tests with fakes. A run without math
// passes no GradientSource and the protocol only times things.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/training/slices.hpp"

namespace pssim::training {

class GradientSource {
 public:
  virtual ~GradientSource() = default;

  /// Starts the gradient of worker w's iteration `iteration` on `held` (one slice per
  /// part); returns a ticket for get() or cancel(). May run in the background.
  virtual std::uint64_t start(std::size_t worker, std::int64_t iteration, const std::vector<SliceRef>& held) = 0;
  /// The result of a started gradient, one GradientData per part (waits for it). Each
  /// ticket is redeemed once, or cancelled.
  virtual std::vector<GradientRef> get(std::uint64_t ticket) = 0;
  /// Gives up a started gradient whose result will never be asked for.
  virtual void cancel(std::uint64_t ticket) = 0;
  /// Adaptive batches (compute/batch_balancer.hpp): worker w's next computation reads
  /// `samples` items instead of the configured batch size. Called just before start().
  virtual void set_batch(std::size_t /*worker*/, std::int64_t /*samples*/) {}

  /// Bytes of the message that brings worker w part `part` for its next iteration when
  /// they depend on that iteration's batch (sparse embedding rows: only the rows the batch
  /// reads); nullopt: the part's usual size.
  virtual std::optional<double> pull_bytes(std::size_t /*worker*/, std::size_t /*part*/) { return std::nullopt; }
};

}  // namespace pssim::training
