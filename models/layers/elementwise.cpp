#include "models/core/instantiated_real.hpp"
#include "models/layers/elementwise.hpp"

#include <algorithm>
#include <stdexcept>

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/seed_seq.hpp>
#include <fmt/format.h>

#include "models/core/eigen_types.hpp"
#include "models/core/seed.hpp"

namespace pssim::models {

template <typename Real>
void Relu<Real>::forward(const LayerIo<Real>& io) const {
  const auto n = io.batch * this->in_shape().numel();
  MapArray<Real>(io.y, n) = CMapArray<Real>(io.x, n).max(Real(0));
}

template <typename Real>
void Relu<Real>::backward(const LayerIo<Real>& io) const {
  if (!io.dx) return;
  const auto n = io.batch * this->in_shape().numel();
  CMapArray<Real> y(io.y, n), dy(io.dy, n);
  MapArray<Real>(io.dx, n) = (y > Real(0)).select(dy, Real(0));
}

template <typename Real>
Dropout<Real>::Dropout(Shape3 in, double p, std::uint64_t layer_index, bool whole_channels)
    : Layer<Real>("", in, in), p_(p), layer_index_(layer_index), whole_channels_(whole_channels) {
  if (!(p >= 0.0 && p < 1.0)) {
    throw std::invalid_argument(
        fmt::format("{}: probability {} is outside [0, 1); use e.g. 0.25 or 0.5", kind(), p));
  }
}

template <typename Real>
void Dropout<Real>::forward(const LayerIo<Real>& io) const {
  const auto n = io.batch * this->in_shape().numel();
  if (!io.training || p_ == 0.0) {
    std::copy(io.x, io.x + n, io.y);
    std::fill(io.scratch, io.scratch + n, Real(1));
    return;
  }
  // The 32-bit Mersenne Twister: one draw per unit, and a 32-bit draw costs 2.5x less than
  // mt19937_64's (measured: 2.4 vs 6.0 ms for mnist-net's 598k units per step). Seeded
  // with both halves of the derived 64-bit seed through Boost's (specified) seed_seq.
  const std::uint64_t s = derive_seed(io.seed, kind(), layer_index_);
  boost::random::seed_seq seq{std::uint32_t(s), std::uint32_t(s >> 32)};
  boost::random::mt19937 engine(seq);
  boost::random::bernoulli_distribution<double> keep(1.0 - p_);
  const Real scale = Real(1.0 / (1.0 - p_));
  // A draw per element, or per channel filling its H x W plane.
  const std::int64_t run = whole_channels_ ? this->in_shape().h * this->in_shape().w : 1;
  for (std::int64_t i = 0; i < n; i += run) std::fill(io.scratch + i, io.scratch + i + run, keep(engine) ? scale : Real(0));
  MapArray<Real>(io.y, n) = CMapArray<Real>(io.x, n) * CMapArray<Real>(io.scratch, n);
}

template <typename Real>
void Dropout<Real>::backward(const LayerIo<Real>& io) const {
  if (!io.dx) return;
  const auto n = io.batch * this->in_shape().numel();
  MapArray<Real>(io.dx, n) = CMapArray<Real>(io.dy, n) * CMapArray<Real>(io.scratch, n);
}

template <typename Real>
void Flatten<Real>::forward(const LayerIo<Real>& io) const {
  std::copy(io.x, io.x + io.batch * this->in_shape().numel(), io.y);
}

template <typename Real>
void Flatten<Real>::backward(const LayerIo<Real>& io) const {
  if (io.dx) std::copy(io.dy, io.dy + io.batch * this->in_shape().numel(), io.dx);
}

template class Relu<InstantiatedReal>;
template class Dropout<InstantiatedReal>;
template class Flatten<InstantiatedReal>;

}  // namespace pssim::models
