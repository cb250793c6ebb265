// MaxPool2d (nn.MaxPool2d(kernel, stride), no padding, floor mode):
//   x [B, C, H, W] -> y [B, C, Ho, Wo], Ho = (H - k) / s + 1.
// Ties: the first maximum in row-major window order wins (as PyTorch's CPU kernel), and
// only it receives the gradient. Scratch: the argmax (index in the H*W plane) per output.
// No parameters; no multiply-adds.
#pragma once

#include "models/layers/layer.hpp"

namespace pssim::models {

template <typename Real>
class MaxPool2d final : public Layer<Real> {
 public:
  /// stride 0 means stride = kernel (PyTorch's default).
  MaxPool2d(Shape3 in, std::int64_t kernel, std::int64_t stride = 0);

  std::string kind() const override { return "max_pool2d"; }
  std::size_t index_scratch_size(std::int64_t batch) const override {
    return std::size_t(batch * this->out_shape().numel());
  }
  void forward(const LayerIo<Real>& io) const override;
  void backward(const LayerIo<Real>& io) const override;

  std::int64_t kernel() const { return kernel_; }
  std::int64_t stride() const { return stride_; }

 private:
  std::int64_t kernel_, stride_;
};

}  // namespace pssim::models
