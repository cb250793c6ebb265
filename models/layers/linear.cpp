#include "models/core/instantiated_real.hpp"
#include "models/layers/linear.hpp"

#include <cmath>

#include "models/core/eigen_types.hpp"
#include "models/layers/init.hpp"

namespace pssim::models {

template <typename Real>
Linear<Real>::Linear(std::string name, Shape3 in, std::int64_t out_features)
    : Layer<Real>(std::move(name), in, Shape3{out_features, 1, 1}),
      in_(in.numel()),
      out_(out_features) {}

template <typename Real>
void Linear<Real>::declare_params(ParamLayout& layout) {
  w_off_ = layout.tensor(layout.add(this->name() + ".weight", {out_, in_})).offset;
  b_off_ = layout.tensor(layout.add(this->name() + ".bias", {out_})).offset;
}

template <typename Real>
void Linear<Real>::init_params(std::span<Real> params, std::uint64_t seed) const {
  const double bound = 1.0 / std::sqrt(double(in_));
  init_uniform(params.subspan(w_off_, out_ * in_), bound, seed, this->name() + ".weight");
  init_uniform(params.subspan(b_off_, out_), bound, seed, this->name() + ".bias");
}

template <typename Real>
void Linear<Real>::forward(const LayerIo<Real>& io) const {
  CMapR<Real> x(io.x, io.batch, in_);              // [B, in]
  CMapR<Real> w(io.params + w_off_, out_, in_);    // [out, in]
  CMapRowVec<Real> b(io.params + b_off_, out_);    // [out]
  MapR<Real> y(io.y, io.batch, out_);              // [B, out]
  y.noalias() = x * w.transpose();
  y.rowwise() += b;
}

template <typename Real>
void Linear<Real>::backward(const LayerIo<Real>& io) const {
  CMapR<Real> x(io.x, io.batch, in_);              // [B, in]
  CMapR<Real> dy(io.dy, io.batch, out_);           // [B, out]
  MapR<Real> dw(io.grads + w_off_, out_, in_);     // [out, in]
  MapRowVec<Real> db(io.grads + b_off_, out_);     // [out]
  dw.noalias() = dy.transpose() * x;
  column_sums(io.dy, io.batch, out_, db.data());
  if (io.dx) {
    CMapR<Real> w(io.params + w_off_, out_, in_);
    MapR<Real> dx(io.dx, io.batch, in_);           // [B, in]
    dx.noalias() = dy * w;
  }
}

template class Linear<InstantiatedReal>;

}  // namespace pssim::models
