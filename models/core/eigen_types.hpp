// Eigen aliases used by the layers. All math buffers are row-major (C order, as PyTorch),
// viewed through Eigen::Map; nothing here owns memory.
//
// Eigen must not spawn threads: each gradient computation is single-threaded and
// concurrency comes from callers running several at once (see nets/network.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace pssim::models {

template <typename Real>
using MatrixR = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename Real>
using MapR = Eigen::Map<MatrixR<Real>>;
template <typename Real>
using CMapR = Eigen::Map<const MatrixR<Real>>;
template <typename Real>
using RowVec = Eigen::Matrix<Real, 1, Eigen::Dynamic>;
template <typename Real>
using MapRowVec = Eigen::Map<RowVec<Real>>;
template <typename Real>
using CMapRowVec = Eigen::Map<const RowVec<Real>>;
template <typename Real>
using MapArray = Eigen::Map<Eigen::Array<Real, Eigen::Dynamic, 1>>;
template <typename Real>
using CMapArray = Eigen::Map<const Eigen::Array<Real, Eigen::Dynamic, 1>>;

/// Buffer aligned to Eigen's packet size. Why: Eigen evaluates transcendental functions
/// (exp, tanh, logistic) with a vectorized approximation in its packet loop and with the
/// scalar library function in the unaligned head it peels off; on a buffer of varying
/// alignment the same element could take either path and results would differ between
/// runs. Aligned workspace buffers make every result a pure function of the inputs.
template <typename T>
using AlignedVector = std::vector<T, Eigen::aligned_allocator<T>>;

/// Grows `v` to at least n elements (never shrinks), so a workspace reused with the same
/// or a smaller batch allocates nothing.
template <typename T>
void ensure_size(AlignedVector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace pssim::models

namespace pssim::models {

/// out[j] = sum over rows r of m[r, j] for a row-major [rows, cols] matrix, each column
/// summed in row order. Why not Eigen's colwise().sum(): Eigen sums the columns that fall
/// in its packet loop in a different order (pairwise) than the ones in the peeled head,
/// and which columns those are depends on the address of `out` — a caller's gradient
/// buffer — so results would depend on memory alignment. Cost: rows * cols adds.
template <typename Real>
void column_sums(const Real* m, std::int64_t rows, std::int64_t cols, Real* out) {
  std::copy(m, m + cols, out);
  for (std::int64_t r = 1; r < rows; ++r) {
    const Real* row = m + r * cols;
    for (std::int64_t j = 0; j < cols; ++j) out[j] += row[j];
  }
}

}  // namespace pssim::models
