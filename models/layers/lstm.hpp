// One LSTM layer (one layer of nn.LSTM, batch_first = False semantics internally),
// unrolled over `steps` time steps with backpropagation through time.
//
// PyTorch's equations, gate order i, f, g, o in the rows of the weights:
//   a_t = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh        a_t [4H]
//   i = sigmoid(a[0:H]), f = sigmoid(a[H:2H]), g = tanh(a[2H:3H]), o = sigmoid(a[3H:4H])
//   c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t),   h_{-1} = c_{-1} = 0.
// Tensors (layer k): "<prefix>.weight_ih_l<k>" [4H, I], "<prefix>.weight_hh_l<k>" [4H, H],
// "<prefix>.bias_ih_l<k>" [4H], "<prefix>.bias_hh_l<k>" [4H] — nn.LSTM's names and
// layout, so weights interoperate with PyTorch.
//
// Layout: time-major rows, row t*B + b is step t of sequence b: x [S*B, I], h [S*B, H].
// Method: the input projection of all steps is one GEMM [S*B, I] x [I, 4H]; only the
// recurrent [B, H] x [H, 4H] product is per step. Backward mirrors it: per step only
// dh_{t-1} = da_t W_hh; dW_ih, dW_hh and dx are single GEMMs over all steps.
// Cost per sequence sample: forward S*4H*(I+H) multiply-adds; backward the same for the
// weight gradients plus S*4H*(I+H) for dx and dh_{t-1} (or S*4H*H without dx).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "models/core/eigen_types.hpp"
#include "models/core/param_layout.hpp"

namespace pssim::models {

/// Per-call buffers of one LSTM layer, owned by a workspace and reused across calls.
template <typename Real>
struct LstmBuffers {
  AlignedVector<Real> gates;    ///< [S*B, 4H] activated i, f, g, o
  AlignedVector<Real> cell;     ///< [S*B, H]  c_t
  AlignedVector<Real> tanh_c;   ///< [S*B, H]  tanh(c_t)
  AlignedVector<Real> h;        ///< [S*B, H]  h_t, the layer's output
  AlignedVector<Real> dgates;   ///< [S*B, 4H] d loss / d a_t
  AlignedVector<Real> dh_next;  ///< [B, H]
  AlignedVector<Real> dc_next;  ///< [B, H]
  void ensure(std::int64_t rows, std::int64_t batch, std::int64_t hidden);
};

template <typename Real>
class LstmLayer {
 public:
  LstmLayer(std::string prefix, std::int64_t layer_index, std::int64_t input_size,
            std::int64_t hidden_size);

  void declare_params(ParamLayout& layout);
  /// U(-1/sqrt(H), 1/sqrt(H)) for every tensor (nn.LSTM's default).
  void init_params(std::span<Real> params, std::uint64_t seed) const;

  /// x [S*B, I] -> buf.h [S*B, H]; fills buf's gates, cell, tanh_c.
  void forward(const Real* params, const Real* x, std::int64_t steps, std::int64_t batch,
               LstmBuffers<Real>& buf) const;
  /// dh [S*B, H] = d loss / d h_t from above (not including the recurrent path). Writes
  /// this layer's gradients into `grads` (overwriting) and dx [S*B, I] when not null.
  void backward(const Real* params, const Real* x, const Real* dh, std::int64_t steps,
                std::int64_t batch, LstmBuffers<Real>& buf, Real* grads, Real* dx) const;

  double forward_macs_per_step() const { return 4.0 * h_ * double(in_ + h_); }
  double backward_macs_per_step(bool input_grad) const {
    return 4.0 * h_ * double(in_ + h_) + 4.0 * h_ * double((input_grad ? in_ : 0) + h_);
  }
  std::int64_t input_size() const { return in_; }
  std::int64_t hidden_size() const { return h_; }

 private:
  std::string prefix_;
  std::int64_t index_, in_, h_;
  std::size_t w_ih_ = 0, w_hh_ = 0, b_ih_ = 0, b_hh_ = 0;
};

}  // namespace pssim::models
