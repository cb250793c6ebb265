// Network: computes the loss and its gradient for a GIVEN parameter vector.
//
// A network owns no parameters: it is a pure function (params, batch, dropout seed) ->
// (loss, gradient), plus the ParamLayout that names the slices of the flat vector. The
// simulator keeps as many parameter snapshots as it likes and asks any of them for a
// gradient. All methods are const and thread-safe provided each thread uses its own
// Workspace (created by make_workspace() of the same network): every computation is
// single-threaded (Eigen never spawns threads here) and deterministic, so the same
// (params, batch, seed) gives bit-identical results on any number of concurrent threads.
//
// Templated on the scalar: `Network` (float32) is the production type; NetworkT<double>
// exists for the finite-difference gradient checks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/core/param_layout.hpp"

namespace pssim::models {

enum class TaskKind {
  classification,  ///< images -> one of num_classes labels; metric: accuracy
  language_model,  ///< token sequences -> next token; metric: perplexity
};

/// A batch, as views of the caller's memory (nothing is copied or kept).
struct BatchView {
  std::int64_t size = 0;                  ///< B: images, or token sequences
  std::span<const float> inputs;          ///< classification: [B, C*H*W] (NCHW per image)
  std::span<const std::int32_t> labels;   ///< classification: [B] class ids
  /// language_model: [B, S+1] token ids, row-major; sequence b is read from column 0 to
  /// S-1 and predicts columns 1 to S. S is the sequence length (tokens.size()/B - 1).
  std::span<const std::int32_t> tokens;
};

/// Sums over one batch in evaluation mode (dropout off).
struct BatchEval {
  double loss_sum = 0.0;     ///< summed NLL over `count` predictions
  std::int64_t correct = 0;  ///< predictions whose arg-max is the target
  std::int64_t count = 0;    ///< predictions: B (classification) or B*S (language model)
};

/// Per-thread buffers of one network. Opaque; reused across calls, growing only when a
/// batch larger than any before arrives, so steady-state calls allocate nothing.
class Workspace {
 public:
  virtual ~Workspace() = default;
  /// Bytes currently held (for memory reports).
  virtual std::size_t bytes() const = 0;
};

/// One step of the compute profile (overlap of communication with computation): a layer,
/// the parameters it owns (a contiguous range [begin, end) of the flat vector; empty for a
/// layer without parameters) and its FLOPs per sample, forward and backward, counted as
/// flops_per_sample() counts them (the layers' sums are flops_per_sample()).
struct LayerCost {
  std::string name;
  std::int64_t begin = 0, end = 0;
  double forward_flops = 0, backward_flops = 0;
};

template <typename Real>
class NetworkT {
 public:
  virtual ~NetworkT() = default;

  virtual TaskKind task() const = 0;
  /// The named tensors, in PyTorch state_dict order.
  const ParamLayout& layout() const { return layout_; }
  std::size_t num_params() const { return layout_.size(); }

  /// A fresh parameter vector with PyTorch's default initialization of every tensor,
  /// drawn with Boost.Random from `seed` (each tensor from its own derived stream).
  std::vector<Real> init_params(std::uint64_t seed) const;

  virtual std::unique_ptr<Workspace> make_workspace() const = 0;

  /// Mean loss over the batch (per image, or per predicted token) at `params`, in training
  /// mode (dropout on, masks drawn from `dropout_seed`). Writes the gradient of that mean
  /// into `grad` (same layout, every element overwritten). Throws std::invalid_argument
  /// when a size does not match the layout or the batch, std::out_of_range for a label or
  /// token outside its range. Cost: flops_per_sample() * B floating-point operations.
  virtual Real loss_and_gradient(std::span<const Real> params, const BatchView& batch,
                                 std::span<Real> grad, Workspace& workspace,
                                 std::uint64_t dropout_seed) const = 0;

  /// Forward only, evaluation mode: summed loss and arg-max hits.
  virtual BatchEval evaluate_batch(std::span<const Real> params, const BatchView& batch,
                                   Workspace& workspace) const = 0;

  /// Floating-point operations of forward + backward for one sample (an image, or one
  /// sequence of `seq_len` tokens for a language model), counted from the shapes: a
  /// multiply-add is 2 FLOPs; forward counts every Linear / Conv2d / LSTM / decoder
  /// product; backward counts the weight-gradient products and the input-gradient
  /// products of every layer except the first (whose input is data and needs none).
  /// Element-wise work is not counted. See docs/models.md.
  virtual double flops_per_sample(std::int64_t seq_len = 0) const = 0;
  /// The layers in forward order with their parameters and FLOPs (see LayerCost). The
  /// default, for networks that do not count per layer: one layer holding every parameter,
  /// a third of the FLOPs forward and two thirds backward (weight and input gradients).
  virtual std::vector<LayerCost> layer_costs(std::int64_t seq_len = 0) const;

  /// One line: preset or layers and the parameter count.
  virtual std::string describe() const = 0;
  /// A JSON object describing the architecture, read by analysis/check_against_torch.py.
  virtual std::string manifest_json() const = 0;
  /// The dropout masks of the last loss_and_gradient call on `workspace` (scaled keep
  /// masks, [B, features] each, named by layer position), for exporting a reproducible
  /// case to PyTorch. Empty for networks without dropout.
  virtual std::vector<std::pair<std::string, std::span<const Real>>> dropout_masks(
      const Workspace& workspace, std::int64_t batch) const;

 protected:
  virtual void init_tensors(std::span<Real> params, std::uint64_t seed) const = 0;
  /// Checks params/grad sizes; throws std::invalid_argument naming `where`.
  void check_sizes(std::span<const Real> params, std::span<Real> grad, const char* where) const;

  ParamLayout layout_;
};

using Network = NetworkT<float>;

}  // namespace pssim::models
