// PyTorch's default initializations, drawn with Boost.Random (reproducible across standard
// libraries; PyTorch's own numbers are not reproduced, only the distributions).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "models/core/seed.hpp"

namespace pssim::models {

/// U(-bound, bound) into `out`, from an engine seeded by derive_seed(seed, tensor_name).
/// nn.Linear / nn.Conv2d use bound = 1/sqrt(fan_in) for weight (kaiming_uniform with
/// a = sqrt(5)) and bias; nn.LSTM uses 1/sqrt(hidden_size) for every tensor.
template <typename Real>
void init_uniform(std::span<Real> out, double bound, std::uint64_t seed,
                  std::string_view tensor_name) {
  Engine engine(derive_seed(seed, tensor_name));
  boost::random::uniform_real_distribution<double> dist(-bound, bound);
  for (auto& v : out) v = static_cast<Real>(dist(engine));
}

/// N(0, 1) into `out` (nn.Embedding's default).
template <typename Real>
void init_normal(std::span<Real> out, std::uint64_t seed, std::string_view tensor_name) {
  Engine engine(derive_seed(seed, tensor_name));
  boost::random::normal_distribution<double> dist(0.0, 1.0);
  for (auto& v : out) v = static_cast<Real>(dist(engine));
}

}  // namespace pssim::models
