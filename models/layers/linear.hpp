// Linear (nn.Linear): y = x W^T + b.
//   x [B, in] (any input shape, read flat), W [out, in], b [out], y [B, out].
// Tensors: "<name>.weight" [out, in], "<name>.bias" [out].
// Cost per sample: forward in*out multiply-adds; backward in*out for dW, in*out for dx.
#pragma once

#include "models/layers/layer.hpp"

namespace pssim::models {

template <typename Real>
class Linear final : public Layer<Real> {
 public:
  Linear(std::string name, Shape3 in, std::int64_t out_features);

  std::string kind() const override { return "linear"; }
  void declare_params(ParamLayout& layout) override;
  void init_params(std::span<Real> params, std::uint64_t seed) const override;
  void forward(const LayerIo<Real>& io) const override;
  void backward(const LayerIo<Real>& io) const override;
  double forward_macs() const override { return double(in_) * double(out_); }
  double backward_macs(bool input_grad) const override {
    return double(in_) * double(out_) * (input_grad ? 2 : 1);
  }

  std::int64_t in_features() const { return in_; }
  std::int64_t out_features() const { return out_; }
  std::size_t weight_offset() const { return w_off_; }
  std::size_t bias_offset() const { return b_off_; }

 private:
  std::int64_t in_, out_;
  std::size_t w_off_ = 0, b_off_ = 0;
};

}  // namespace pssim::models
