// SequentialNet: a CNN / MLP classifier as a chain of layers followed by LogSoftmax + NLL
// (the convnet-small, mnist-net, mlp and logreg presets, or a custom layer list).
//
// Forward keeps every layer's output in the workspace (backward needs them); backward
// runs the chain in reverse through two ping-pong gradient buffers and never computes the
// first layer's input gradient. Workspace memory: sum of activations + 2 x the largest
// activation + per-layer scratch, all for the largest batch seen.
#pragma once

#include <memory>
#include <vector>

#include "models/layers/layer.hpp"
#include "models/nets/network.hpp"
#include "models/nets/network_spec.hpp"

namespace pssim::models {

template <typename Real>
class SequentialNet final : public NetworkT<Real> {
 public:
  /// Builds the layers from `layers` for images of shape `input`; the last layer must be
  /// a linear layer with `num_classes` outputs. `label` names the net in describe().
  SequentialNet(const std::vector<LayerSpec>& layers, Shape3 input, std::int64_t num_classes,
                std::string label);

  TaskKind task() const override { return TaskKind::classification; }
  std::unique_ptr<Workspace> make_workspace() const override;
  Real loss_and_gradient(std::span<const Real> params, const BatchView& batch,
                         std::span<Real> grad, Workspace& workspace,
                         std::uint64_t dropout_seed) const override;
  BatchEval evaluate_batch(std::span<const Real> params, const BatchView& batch,
                           Workspace& workspace) const override;
  double flops_per_sample(std::int64_t seq_len = 0) const override;
  /// Every layer from the first with parameters on that has parameters or FLOPs.
  std::vector<LayerCost> layer_costs(std::int64_t seq_len = 0) const override;
  std::string describe() const override;
  std::string manifest_json() const override;
  std::vector<std::pair<std::string, std::span<const Real>>> dropout_masks(
      const Workspace& workspace, std::int64_t batch) const override;

  const std::vector<std::unique_ptr<Layer<Real>>>& layers() const { return layers_; }
  Shape3 input_shape() const { return input_; }
  std::int64_t num_classes() const { return num_classes_; }

 protected:
  void init_tensors(std::span<Real> params, std::uint64_t seed) const override;

 private:
  struct Ws;
  Ws& workspace_of(Workspace& workspace) const;
  /// Runs the layers; returns a pointer to the logits [B, classes].
  const Real* forward(std::span<const Real> params, const BatchView& batch, Ws& ws,
                      std::uint64_t seed, bool training) const;
  void check_batch(const BatchView& batch, const char* where) const;

  std::vector<std::unique_ptr<Layer<Real>>> layers_;
  Shape3 input_;
  std::int64_t num_classes_;
  std::string label_;
  std::size_t first_param_layer_ = 0;  // layers below it get no backward pass
  std::vector<std::pair<std::int64_t, std::int64_t>> param_ranges_;  // per layer: [begin, end) of its parameters
};

}  // namespace pssim::models
