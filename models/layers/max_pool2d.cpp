#include "models/core/instantiated_real.hpp"
#include "models/layers/max_pool2d.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::models {
namespace {

Shape3 pool_out_shape(Shape3 in, std::int64_t k, std::int64_t s) {
  if (k < 1 || s < 1) {
    throw std::invalid_argument(
        fmt::format("max_pool2d: kernel {} and stride {} must be >= 1", k, s));
  }
  if (in.h < k || in.w < k) {
    throw std::invalid_argument(fmt::format(
        "max_pool2d: kernel {} is larger than its input {}; use a smaller kernel or move the "
        "pooling before the layer that shrinks the image",
        k, to_string(in)));
  }
  return Shape3{in.c, (in.h - k) / s + 1, (in.w - k) / s + 1};
}

}  // namespace

template <typename Real>
MaxPool2d<Real>::MaxPool2d(Shape3 in, std::int64_t kernel, std::int64_t stride)
    : Layer<Real>("", in, pool_out_shape(in, kernel, stride == 0 ? kernel : stride)),
      kernel_(kernel),
      stride_(stride == 0 ? kernel : stride) {}

template <typename Real>
void MaxPool2d<Real>::forward(const LayerIo<Real>& io) const {
  const auto in = this->in_shape();
  const auto out = this->out_shape();
  const std::int64_t planes = io.batch * in.c;
  for (std::int64_t pl = 0; pl < planes; ++pl) {
    const Real* x = io.x + pl * in.h * in.w;
    Real* y = io.y + pl * out.h * out.w;
    std::int32_t* arg = io.index_scratch + pl * out.h * out.w;
    for (std::int64_t oh = 0; oh < out.h; ++oh) {
      for (std::int64_t ow = 0; ow < out.w; ++ow) {
        const std::int64_t h0 = oh * stride_, w0 = ow * stride_;
        std::int64_t best = h0 * in.w + w0;
        Real best_v = x[best];
        for (std::int64_t i = 0; i < kernel_; ++i) {
          for (std::int64_t j = 0; j < kernel_; ++j) {
            const std::int64_t idx = (h0 + i) * in.w + (w0 + j);
            if (x[idx] > best_v) best_v = x[idx], best = idx;
          }
        }
        y[oh * out.w + ow] = best_v;
        arg[oh * out.w + ow] = static_cast<std::int32_t>(best);
      }
    }
  }
}

template <typename Real>
void MaxPool2d<Real>::backward(const LayerIo<Real>& io) const {
  if (!io.dx) return;
  const auto in = this->in_shape();
  const auto out = this->out_shape();
  const std::int64_t planes = io.batch * in.c;
  std::fill(io.dx, io.dx + planes * in.h * in.w, Real(0));
  for (std::int64_t pl = 0; pl < planes; ++pl) {
    Real* dx = io.dx + pl * in.h * in.w;
    const Real* dy = io.dy + pl * out.h * out.w;
    const std::int32_t* arg = io.index_scratch + pl * out.h * out.w;
    for (std::int64_t o = 0; o < out.h * out.w; ++o) dx[arg[o]] += dy[o];
  }
}

template class MaxPool2d<InstantiatedReal>;

}  // namespace pssim::models
