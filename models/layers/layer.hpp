// Layer: one stage of a sequential (CNN / MLP) network, as a forward/backward pair over a
// batch. A layer owns no parameters and no buffers: parameters and their gradients are
// slices of the network's flat vectors, and per-call memory (im2col columns, pooling
// argmax, dropout masks) is scratch that the caller's workspace provides. Layers are
// therefore immutable after construction and safe to call from several threads at once.
//
// Layout: activations are batch-major, one sample after the other, each sample in C order
// [channels, height, width] (NCHW, as PyTorch); a flat feature vector is shape [f, 1, 1].
// Layers are templated on the scalar type: float in production, double for the
// finite-difference gradient checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "models/core/param_layout.hpp"

namespace pssim::models {

/// Shape of one sample's activation: [c, h, w]; flat features are [n, 1, 1].
struct Shape3 {
  std::int64_t c = 0, h = 1, w = 1;
  std::int64_t numel() const { return c * h * w; }
  bool operator==(const Shape3&) const = default;
};
std::string to_string(const Shape3& s);

/// Everything a layer call reads and writes. Pointers index batch-major buffers.
template <typename Real>
struct LayerIo {
  std::int64_t batch = 0;              ///< B
  const Real* params = nullptr;        ///< the network's flat parameter vector
  Real* grads = nullptr;               ///< the network's flat gradient vector (backward)
  const Real* x = nullptr;             ///< input  [B, in_shape]
  Real* y = nullptr;                   ///< output [B, out_shape] (forward writes it)
  const Real* dy = nullptr;            ///< d loss / d y [B, out_shape] (backward)
  Real* dx = nullptr;                  ///< d loss / d x [B, in_shape]; null: not needed
  Real* scratch = nullptr;             ///< scratch_size(B) elements, kept forward->backward
  std::int32_t* index_scratch = nullptr;  ///< index_scratch_size(B) elements
  std::uint64_t seed = 0;              ///< per-call randomness (dropout)
  bool training = true;                ///< false: dropout is the identity
};

template <typename Real>
class Layer {
 public:
  virtual ~Layer() = default;

  /// Short kind name ("conv2d", "linear", ...), for messages and the model manifest.
  virtual std::string kind() const = 0;
  /// The PyTorch module name ("conv1", "fc2"); empty for layers without parameters.
  const std::string& name() const { return name_; }
  const Shape3& in_shape() const { return in_; }
  const Shape3& out_shape() const { return out_; }

  /// Appends this layer's tensors to `layout` and remembers their offsets.
  virtual void declare_params(ParamLayout& /*layout*/) {}
  /// PyTorch's default initialization of this layer's tensors in `params` (the whole flat
  /// vector), drawn from engines seeded by derive_seed(seed, tensor name).
  virtual void init_params(std::span<Real> /*params*/, std::uint64_t /*seed*/) const {}

  /// Scratch (Real elements, int32 elements) a call with batch B needs; forward and the
  /// matching backward must get the same scratch.
  virtual std::size_t scratch_size(std::int64_t /*batch*/) const { return 0; }
  virtual std::size_t index_scratch_size(std::int64_t /*batch*/) const { return 0; }

  /// y = f(x). Reads x, params; writes y and scratch.
  virtual void forward(const LayerIo<Real>& io) const = 0;
  /// Given dy, writes the gradients of this layer's tensors into io.grads (overwriting:
  /// each tensor is used once per network) and, when io.dx is not null, dx. May read x, y
  /// and the scratch written by forward.
  virtual void backward(const LayerIo<Real>& io) const = 0;

  /// Multiply-adds per sample of forward, and of backward (weight gradients, plus input
  /// gradients when `input_grad`). Element-wise work (activations, pooling, masks) is not
  /// counted: it is memory-bound and below 2% of the multiply-adds of every preset that
  /// matters for timing (see docs/models.md).
  virtual double forward_macs() const { return 0.0; }
  virtual double backward_macs(bool /*input_grad*/) const { return 0.0; }

 protected:
  Layer(std::string name, Shape3 in, Shape3 out)
      : name_(std::move(name)), in_(in), out_(out) {}

 private:
  std::string name_;
  Shape3 in_, out_;
};

}  // namespace pssim::models
