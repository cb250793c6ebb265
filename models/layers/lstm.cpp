#include "models/core/instantiated_real.hpp"
#include "models/layers/lstm.hpp"

#include <cmath>

#include <fmt/format.h>

#include "models/layers/init.hpp"

namespace pssim::models {

template <typename Real>
void LstmBuffers<Real>::ensure(std::int64_t rows, std::int64_t batch, std::int64_t hidden) {
  ensure_size(gates, std::size_t(rows * 4 * hidden));
  ensure_size(cell, std::size_t(rows * hidden));
  ensure_size(tanh_c, std::size_t(rows * hidden));
  ensure_size(h, std::size_t(rows * hidden));
  ensure_size(dgates, std::size_t(rows * 4 * hidden));
  ensure_size(dh_next, std::size_t(batch * hidden));
  ensure_size(dc_next, std::size_t(batch * hidden));
}

template <typename Real>
LstmLayer<Real>::LstmLayer(std::string prefix, std::int64_t layer_index,
                           std::int64_t input_size, std::int64_t hidden_size)
    : prefix_(std::move(prefix)), index_(layer_index), in_(input_size), h_(hidden_size) {}

template <typename Real>
void LstmLayer<Real>::declare_params(ParamLayout& layout) {
  const auto sfx = fmt::format("_l{}", index_);
  w_ih_ = layout.tensor(layout.add(prefix_ + ".weight_ih" + sfx, {4 * h_, in_})).offset;
  w_hh_ = layout.tensor(layout.add(prefix_ + ".weight_hh" + sfx, {4 * h_, h_})).offset;
  b_ih_ = layout.tensor(layout.add(prefix_ + ".bias_ih" + sfx, {4 * h_})).offset;
  b_hh_ = layout.tensor(layout.add(prefix_ + ".bias_hh" + sfx, {4 * h_})).offset;
}

template <typename Real>
void LstmLayer<Real>::init_params(std::span<Real> params, std::uint64_t seed) const {
  const double bound = 1.0 / std::sqrt(double(h_));
  const auto sfx = fmt::format("_l{}", index_);
  init_uniform(params.subspan(w_ih_, 4 * h_ * in_), bound, seed, prefix_ + ".weight_ih" + sfx);
  init_uniform(params.subspan(w_hh_, 4 * h_ * h_), bound, seed, prefix_ + ".weight_hh" + sfx);
  init_uniform(params.subspan(b_ih_, 4 * h_), bound, seed, prefix_ + ".bias_ih" + sfx);
  init_uniform(params.subspan(b_hh_, 4 * h_), bound, seed, prefix_ + ".bias_hh" + sfx);
}

template <typename Real>
void LstmLayer<Real>::forward(const Real* params, const Real* x, std::int64_t steps,
                              std::int64_t batch, LstmBuffers<Real>& buf) const {
  const std::int64_t H = h_, B = batch, R = steps * batch;
  buf.ensure(R, B, H);
  CMapR<Real> xs(x, R, in_);                       // [S*B, I]
  CMapR<Real> w_ih(params + w_ih_, 4 * H, in_);    // [4H, I]
  CMapR<Real> w_hh(params + w_hh_, 4 * H, H);      // [4H, H]
  CMapRowVec<Real> b_ih(params + b_ih_, 4 * H), b_hh(params + b_hh_, 4 * H);
  MapR<Real> a(buf.gates.data(), R, 4 * H);        // [S*B, 4H]
  a.noalias() = xs * w_ih.transpose();
  a.rowwise() += b_ih + b_hh;
  for (std::int64_t t = 0; t < steps; ++t) {
    auto at = a.middleRows(t * B, B);              // [B, 4H]
    MapR<Real> c(buf.cell.data() + t * B * H, B, H);
    MapR<Real> tc(buf.tanh_c.data() + t * B * H, B, H);
    MapR<Real> h(buf.h.data() + t * B * H, B, H);
    if (t > 0) {
      CMapR<Real> h_prev(buf.h.data() + (t - 1) * B * H, B, H);
      at.noalias() += h_prev * w_hh.transpose();
    }
    at.leftCols(2 * H) = at.leftCols(2 * H).array().logistic().matrix();  // i, f
    at.middleCols(2 * H, H) = at.middleCols(2 * H, H).array().tanh().matrix();  // g
    at.rightCols(H) = at.rightCols(H).array().logistic().matrix();  // o
    auto i = at.leftCols(H).array();
    auto f = at.middleCols(H, H).array();
    auto g = at.middleCols(2 * H, H).array();
    auto o = at.rightCols(H).array();
    if (t == 0) {
      c.array() = i * g;
    } else {
      CMapR<Real> c_prev(buf.cell.data() + (t - 1) * B * H, B, H);
      c.array() = f * c_prev.array() + i * g;
    }
    tc.array() = c.array().tanh();
    h.array() = o * tc.array();
  }
}

template <typename Real>
void LstmLayer<Real>::backward(const Real* params, const Real* x, const Real* dh,
                               std::int64_t steps, std::int64_t batch, LstmBuffers<Real>& buf,
                               Real* grads, Real* dx) const {
  const std::int64_t H = h_, B = batch, R = steps * batch;
  CMapR<Real> w_hh(params + w_hh_, 4 * H, H);      // [4H, H]
  MapR<Real> da(buf.dgates.data(), R, 4 * H);      // [S*B, 4H]
  MapR<Real> dh_next(buf.dh_next.data(), B, H);    // [B, H]
  MapR<Real> dc(buf.dc_next.data(), B, H);         // [B, H]: dc_t, then dc_{t-1} via f
  dh_next.setZero();
  dc.setZero();
  for (std::int64_t t = steps - 1; t >= 0; --t) {
    CMapR<Real> at(buf.gates.data() + t * B * 4 * H, B, 4 * H);
    auto i = at.leftCols(H).array();
    auto f = at.middleCols(H, H).array();
    auto g = at.middleCols(2 * H, H).array();
    auto o = at.rightCols(H).array();
    CMapR<Real> tc(buf.tanh_c.data() + t * B * H, B, H);
    CMapR<Real> dh_t(dh + t * B * H, B, H);
    auto dat = da.middleRows(t * B, B);            // [B, 4H]
    dh_next += dh_t;                               // total d loss / d h_t
    auto dht = dh_next.array();
    dc.array() += dht * o * (Real(1) - tc.array().square());
    dat.leftCols(H).array() = dc.array() * g * i * (Real(1) - i);
    if (t > 0) {
      CMapR<Real> c_prev(buf.cell.data() + (t - 1) * B * H, B, H);
      dat.middleCols(H, H).array() = dc.array() * c_prev.array() * f * (Real(1) - f);
    } else {
      dat.middleCols(H, H).setZero();
    }
    dat.middleCols(2 * H, H).array() = dc.array() * i * (Real(1) - g.square());
    dat.rightCols(H).array() = dht * tc.array() * o * (Real(1) - o);
    dc.array() *= f;
    if (t > 0) dh_next.noalias() = dat * w_hh;
  }
  CMapR<Real> xs(x, R, in_);
  MapR<Real> dw_ih(grads + w_ih_, 4 * H, in_);
  MapR<Real> dw_hh(grads + w_hh_, 4 * H, H);
  MapRowVec<Real> db_ih(grads + b_ih_, 4 * H), db_hh(grads + b_hh_, 4 * H);
  dw_ih.noalias() = da.transpose() * xs;
  if (steps > 1) {
    CMapR<Real> h_prev(buf.h.data(), R - B, H);    // h_0 .. h_{S-2}
    dw_hh.noalias() = da.bottomRows(R - B).transpose() * h_prev;
  } else {
    dw_hh.setZero();
  }
  column_sums(da.data(), R, 4 * H, db_ih.data());
  db_hh = db_ih;
  if (dx) {
    CMapR<Real> w_ih(params + w_ih_, 4 * H, in_);
    MapR<Real>(dx, R, in_).noalias() = da * w_ih;
  }
}

template struct LstmBuffers<InstantiatedReal>;
template class LstmLayer<InstantiatedReal>;

}  // namespace pssim::models
