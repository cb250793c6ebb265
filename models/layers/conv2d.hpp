// Conv2d (nn.Conv2d, square kernel, groups = 1, dilation = 1): cross-correlation of a
// [B, C, H, W] input with Co filters of size [C, k, k], stride s, zero padding p.
//   Ho = (H + 2p - k) / s + 1, Wo likewise; y [B, Co, Ho, Wo].
// Tensors: "<name>.weight" [Co, C, k, k], "<name>.bias" [Co].
//
// Method: im2col + GEMM per sample. cols [K = C*k*k, P = Ho*Wo] holds every receptive
// field as a column, so y_s [Co, P] = W [Co, K] * cols, dW += dy_s * cols^T and
// dcols = W^T * dy_s, scattered back by col2im. Why per sample: y_s and dy_s are then
// the NCHW output itself (no gather/scatter copies), cols stays cache-resident, and the
// GEMMs (Co x K x P) are large enough for Eigen's kernels on the presets' shapes.
// Backward recomputes cols instead of keeping B of them (42 MB for mnist-net's conv2):
// rebuilding from a cache-resident input is cheaper than streaming them from memory.
// Cost per sample: forward Co*K*P multiply-adds; backward Co*K*P for dW, as many for dx.
#pragma once

#include "models/layers/layer.hpp"

namespace pssim::models {

struct Conv2dGeometry {
  std::int64_t in_channels = 1, out_channels = 1, kernel = 3, stride = 1, padding = 0;
};

template <typename Real>
class Conv2d final : public Layer<Real> {
 public:
  /// Throws std::invalid_argument when the kernel does not fit the (padded) input.
  Conv2d(std::string name, Shape3 in, std::int64_t out_channels, std::int64_t kernel,
         std::int64_t stride = 1, std::int64_t padding = 0);

  std::string kind() const override { return "conv2d"; }
  void declare_params(ParamLayout& layout) override;
  void init_params(std::span<Real> params, std::uint64_t seed) const override;
  std::size_t scratch_size(std::int64_t batch) const override;
  void forward(const LayerIo<Real>& io) const override;
  void backward(const LayerIo<Real>& io) const override;
  double forward_macs() const override { return double(co_) * double(k_) * double(p_); }
  double backward_macs(bool input_grad) const override {
    return forward_macs() * (input_grad ? 2 : 1);
  }

  std::int64_t kernel() const { return kernel_; }
  std::int64_t stride() const { return stride_; }
  std::int64_t padding() const { return padding_; }

 private:
  void im2col(const Real* x, Real* cols) const;         // x [C, H, W] -> cols [K, P]
  void col2im(const Real* dcols, Real* dx) const;       // dcols [K, P] -> dx [C, H, W]

  std::int64_t kernel_, stride_, padding_;
  std::int64_t co_, k_, p_;  // out channels, K = C*k*k, P = Ho*Wo
  std::size_t w_off_ = 0, b_off_ = 0;
};

}  // namespace pssim::models
