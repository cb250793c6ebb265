#include "models/core/instantiated_real.hpp"
#include "models/layers/conv2d.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "models/core/eigen_types.hpp"
#include "models/layers/init.hpp"

namespace pssim::models {
namespace {

Shape3 conv_out_shape(const std::string& name, Shape3 in, std::int64_t co, std::int64_t k,
                      std::int64_t s, std::int64_t p) {
  if (co < 1 || k < 1 || s < 1 || p < 0) {
    throw std::invalid_argument(fmt::format(
        "conv2d '{}': out_channels {}, kernel {}, stride {}, padding {}: need out_channels, "
        "kernel, stride >= 1 and padding >= 0",
        name, co, k, s, p));
  }
  if (in.h + 2 * p < k || in.w + 2 * p < k) {
    throw std::invalid_argument(fmt::format(
        "conv2d '{}': kernel {} does not fit the input {} with padding {}; use a smaller "
        "kernel, more padding, or remove a preceding pooling layer",
        name, k, to_string(in), p));
  }
  return Shape3{co, (in.h + 2 * p - k) / s + 1, (in.w + 2 * p - k) / s + 1};
}

}  // namespace

template <typename Real>
Conv2d<Real>::Conv2d(std::string name, Shape3 in, std::int64_t out_channels,
                     std::int64_t kernel, std::int64_t stride, std::int64_t padding)
    : Layer<Real>(name, in, conv_out_shape(name, in, out_channels, kernel, stride, padding)),
      kernel_(kernel),
      stride_(stride),
      padding_(padding),
      co_(out_channels),
      k_(in.c * kernel * kernel),
      p_(this->out_shape().h * this->out_shape().w) {}

template <typename Real>
void Conv2d<Real>::declare_params(ParamLayout& layout) {
  const auto c = this->in_shape().c;
  w_off_ = layout.tensor(layout.add(this->name() + ".weight", {co_, c, kernel_, kernel_})).offset;
  b_off_ = layout.tensor(layout.add(this->name() + ".bias", {co_})).offset;
}

template <typename Real>
void Conv2d<Real>::init_params(std::span<Real> params, std::uint64_t seed) const {
  const double bound = 1.0 / std::sqrt(double(k_));  // fan_in = C * k * k
  init_uniform(params.subspan(w_off_, co_ * k_), bound, seed, this->name() + ".weight");
  init_uniform(params.subspan(b_off_, co_), bound, seed, this->name() + ".bias");
}

template <typename Real>
std::size_t Conv2d<Real>::scratch_size(std::int64_t /*batch*/) const {
  return std::size_t(2 * k_ * p_);  // cols [K, P] and dcols [K, P]
}

template <typename Real>
void Conv2d<Real>::im2col(const Real* x, Real* cols) const {
  const auto in = this->in_shape();
  const auto out = this->out_shape();
  const std::int64_t kk = kernel_, s = stride_, pad = padding_;
  for (std::int64_t c = 0; c < in.c; ++c) {
    for (std::int64_t ki = 0; ki < kk; ++ki) {
      for (std::int64_t kj = 0; kj < kk; ++kj) {
        Real* row = cols + ((c * kk + ki) * kk + kj) * p_;
        for (std::int64_t oh = 0; oh < out.h; ++oh) {
          Real* dst = row + oh * out.w;
          const std::int64_t ih = oh * s - pad + ki;
          if (ih < 0 || ih >= in.h) {
            std::fill(dst, dst + out.w, Real(0));
            continue;
          }
          const Real* src = x + (c * in.h + ih) * in.w;
          if (s == 1 && pad == 0) {  // the presets' case: one contiguous run
            std::memcpy(dst, src + kj, sizeof(Real) * out.w);
            continue;
          }
          for (std::int64_t ow = 0; ow < out.w; ++ow) {
            const std::int64_t iw = ow * s - pad + kj;
            dst[ow] = (iw >= 0 && iw < in.w) ? src[iw] : Real(0);
          }
        }
      }
    }
  }
}

template <typename Real>
void Conv2d<Real>::col2im(const Real* dcols, Real* dx) const {
  const auto in = this->in_shape();
  const auto out = this->out_shape();
  const std::int64_t kk = kernel_, s = stride_, pad = padding_;
  std::fill(dx, dx + in.numel(), Real(0));
  for (std::int64_t c = 0; c < in.c; ++c) {
    for (std::int64_t ki = 0; ki < kk; ++ki) {
      for (std::int64_t kj = 0; kj < kk; ++kj) {
        const Real* row = dcols + ((c * kk + ki) * kk + kj) * p_;
        for (std::int64_t oh = 0; oh < out.h; ++oh) {
          const std::int64_t ih = oh * s - pad + ki;
          if (ih < 0 || ih >= in.h) continue;
          const Real* src = row + oh * out.w;
          Real* dst = dx + (c * in.h + ih) * in.w;
          if (s == 1 && pad == 0) {
            Real* d = dst + kj;
            for (std::int64_t ow = 0; ow < out.w; ++ow) d[ow] += src[ow];
            continue;
          }
          for (std::int64_t ow = 0; ow < out.w; ++ow) {
            const std::int64_t iw = ow * s - pad + kj;
            if (iw >= 0 && iw < in.w) dst[iw] += src[ow];
          }
        }
      }
    }
  }
}

template <typename Real>
void Conv2d<Real>::forward(const LayerIo<Real>& io) const {
  using ColVec = Eigen::Map<const Eigen::Matrix<Real, Eigen::Dynamic, 1>>;
  const auto in_n = this->in_shape().numel();
  CMapR<Real> w(io.params + w_off_, co_, k_);  // [Co, K]
  ColVec b(io.params + b_off_, co_);           // [Co]
  MapR<Real> cols(io.scratch, k_, p_);         // [K, P]
  for (std::int64_t s = 0; s < io.batch; ++s) {
    im2col(io.x + s * in_n, io.scratch);
    MapR<Real> y(io.y + s * co_ * p_, co_, p_);  // [Co, P] = sample s of [B, Co, Ho, Wo]
    y.noalias() = w * cols;
    y.colwise() += b;
  }
}

template <typename Real>
void Conv2d<Real>::backward(const LayerIo<Real>& io) const {
  const auto in_n = this->in_shape().numel();
  CMapR<Real> w(io.params + w_off_, co_, k_);   // [Co, K]
  MapR<Real> dw(io.grads + w_off_, co_, k_);    // [Co, K]
  Eigen::Map<Eigen::Matrix<Real, Eigen::Dynamic, 1>> db(io.grads + b_off_, co_);  // [Co]
  MapR<Real> cols(io.scratch, k_, p_);          // [K, P]
  MapR<Real> dcols(io.scratch + k_ * p_, k_, p_);  // [K, P]
  dw.setZero();
  db.setZero();
  for (std::int64_t s = 0; s < io.batch; ++s) {
    CMapR<Real> dy(io.dy + s * co_ * p_, co_, p_);  // [Co, P]
    im2col(io.x + s * in_n, io.scratch);
    dw.noalias() += dy * cols.transpose();
    db += dy.rowwise().sum();
    if (io.dx) {
      dcols.noalias() = w.transpose() * dy;
      col2im(dcols.data(), io.dx + s * in_n);
    }
  }
}

template class Conv2d<InstantiatedReal>;

}  // namespace pssim::models
