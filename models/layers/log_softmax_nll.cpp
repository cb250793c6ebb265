#include "models/core/instantiated_real.hpp"
#include "models/layers/log_softmax_nll.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "models/core/eigen_types.hpp"

namespace pssim::models {

template <typename Real>
NllSums log_softmax_nll(Real* logits, const std::int32_t* targets, std::int64_t rows,
                        std::int64_t classes, Real grad_scale) {
  NllSums sums;
  for (std::int64_t n = 0; n < rows; ++n) {
    const std::int32_t t = targets[n];
    if (t < 0 || t >= classes) {
      throw std::out_of_range(fmt::format(
          "log_softmax_nll: target {} of row {} is outside [0, {}); labels must be class "
          "indices below the network's number of outputs",
          t, n, classes));
    }
    MapArray<Real> z(logits + n * classes, classes);
    Eigen::Index arg = 0;
    const Real zmax = z.maxCoeff(&arg);  // Eigen returns the first maximum
    if (arg == t) ++sums.correct;
    const Real zt = z[t];
    z = (z - zmax).exp();  // softmax numerators, in place
    const Real sum = z.sum();
    sums.loss_sum += double(std::log(sum) + zmax - zt);
    if (grad_scale != Real(0)) {
      z *= grad_scale / sum;
      z[t] -= grad_scale;
    }
  }
  return sums;
}

template NllSums log_softmax_nll<InstantiatedReal>(InstantiatedReal*, const std::int32_t*, std::int64_t,
                                                   std::int64_t, InstantiatedReal);

}  // namespace pssim::models
