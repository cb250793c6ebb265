// Finite-difference gradient checks in double precision, shared by the layer and preset
// tests. Central differences with step h = 1e-5 have truncation error O(h^2 f''') ~ 1e-10
// and rounding error ~ 1e-16 |f| / h ~ 1e-10 for the O(1)-O(10) test functions used here,
// so a correct implementation agrees to ~1e-10 absolute, i.e. below 1e-6 relative once
// gradients under the 1e-3 floor are measured against the floor. A wrong formula misses by
// O(1) relative on typical coordinates.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>

namespace pssim::models::testing {

inline std::vector<double> random_vector(std::size_t n, std::uint64_t seed, double scale = 1.0) {
  boost::random::mt19937_64 engine(seed);
  boost::random::normal_distribution<double> dist(0.0, scale);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(engine);
  return v;
}

/// Worst relative error max |a - n| / max(|a|, |n|, floor) over the checked coordinates of
/// `point`, where a = analytic[i] and n = (f(point + h e_i) - f(point - h e_i)) / 2h.
/// `indices` empty: every coordinate. `floor` (absolute) keeps coordinates whose gradient
/// is ~0 from turning the O(1e-10) rounding noise of f into a large relative error.
inline double max_fd_error(const std::function<double()>& f, std::span<double> point,
                           std::span<const double> analytic,
                           const std::vector<std::size_t>& indices = {}, double h = 1e-5,
                           double floor = 1e-3) {
  double worst = 0;
  auto check = [&](std::size_t i) {
    const double saved = point[i];
    point[i] = saved + h;
    const double up = f();
    point[i] = saved - h;
    const double down = f();
    point[i] = saved;
    const double numeric = (up - down) / (2 * h);
    const double err = std::abs(numeric - analytic[i]) /
                       std::max({std::abs(numeric), std::abs(analytic[i]), floor});
    worst = std::max(worst, err);
  };
  if (indices.empty()) {
    for (std::size_t i = 0; i < point.size(); ++i) check(i);
  } else {
    for (auto i : indices) check(i);
  }
  return worst;
}

}  // namespace pssim::models::testing
