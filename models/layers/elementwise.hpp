// Parameter-free element-wise layers: ReLU, Dropout (and Dropout2d), Flatten. Shapes are unchanged except
// Flatten's [C, H, W] -> [C*H*W, 1, 1], which moves no data (NCHW is already flat).
#pragma once

#include "models/layers/layer.hpp"

namespace pssim::models {

/// ReLU: y = max(x, 0); dx = dy where y > 0, else 0 (PyTorch's subgradient 0 at x = 0).
template <typename Real>
class Relu final : public Layer<Real> {
 public:
  explicit Relu(Shape3 in) : Layer<Real>("", in, in) {}
  std::string kind() const override { return "relu"; }
  void forward(const LayerIo<Real>& io) const override;
  void backward(const LayerIo<Real>& io) const override;
};

/// Dropout (inverted, as nn.Dropout): in training each element is kept with probability
/// 1 - p and scaled by 1 / (1 - p); evaluation is the identity. With `whole_channels`
/// (kind "dropout2d", as nn.Dropout2d) each channel of each sample is kept or zeroed
/// whole instead. One Bernoulli draw per element (per (sample, channel) for dropout2d), in
/// order, with Boost's bernoulli_distribution from a Boost mt19937 seeded (via boost
/// seed_seq) by derive_seed(io.seed, kind(), layer_index), so a gradient is a pure
/// function of (params, batch, seed).
/// Scratch: the scaled mask per element [B, numel] (for dropout2d a channel's value
/// repeated over its H x W), read by backward and exported for the PyTorch cross-check.
template <typename Real>
class Dropout final : public Layer<Real> {
 public:
  /// Throws std::invalid_argument unless 0 <= p < 1.
  Dropout(Shape3 in, double p, std::uint64_t layer_index, bool whole_channels = false);
  std::string kind() const override { return whole_channels_ ? "dropout2d" : "dropout"; }
  std::size_t scratch_size(std::int64_t batch) const override {
    return std::size_t(batch * this->in_shape().numel());
  }
  void forward(const LayerIo<Real>& io) const override;
  void backward(const LayerIo<Real>& io) const override;
  double p() const { return p_; }

 private:
  double p_;
  std::uint64_t layer_index_;
  bool whole_channels_;
};

/// Flatten (nn.Flatten): a copy, kept as a layer so layer lists read like PyTorch's.
template <typename Real>
class Flatten final : public Layer<Real> {
 public:
  explicit Flatten(Shape3 in) : Layer<Real>("", in, Shape3{in.numel(), 1, 1}) {}
  std::string kind() const override { return "flatten"; }
  void forward(const LayerIo<Real>& io) const override;
  void backward(const LayerIo<Real>& io) const override;
};

}  // namespace pssim::models
