// Compute model: how long a worker takes for one iteration.
//
//   time = FLOPs of the batch / (throughput x speed factor x per-iteration noise)
//
// Speed factors are fixed per worker (constant, list, uniform, lognormal with median 1,
// or a random fraction of persistent stragglers slowed by `slowdown`). Per iteration, a
// noise draw and, for transient stragglers, a slowdown with some probability multiply in.
// Noise is lognormal (the speed times exp(N(0, sigma^2)), median 1) or shifted
// exponential (the time times shift + Exp(mean): the straggler model of the coded-
// computation and K-sync literature; with shift 0 the maximum of N workers' times has
// mean mean x H_N, the N-th harmonic number). Each worker draws from its own random stream ("compute", w),
// so a worker's times do not depend on the others or on event order.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/random_streams.hpp"
#include "sim/core/time.hpp"

namespace pssim::compute {

struct ComputeSpec {
  enum class Speed { Constant, List, Uniform, Lognormal, Stragglers, TransientStragglers };
  Speed speed = Speed::Constant;
  double factor = 1.0;           ///< Constant
  std::vector<double> factors;   ///< List
  double min = 1.0, max = 1.0;   ///< Uniform
  double sigma = 0.0;            ///< Lognormal
  double fraction = 0.0;         ///< Stragglers
  double slowdown = 1.0;         ///< Stragglers, TransientStragglers
  double probability = 0.0;      ///< TransientStragglers
  double noise_sigma = 0.0;      ///< per-iteration lognormal noise
  enum class Noise { Lognormal, ShiftedExponential } noise = Noise::Lognormal;
  double noise_shift = 1.0, noise_mean = 0.0;  ///< ShiftedExponential: time x (shift + Exp(mean))
  double throughput = 1e12;      ///< FLOP/s at factor 1
};

class ComputeModel {
 public:
  ComputeModel(const ComputeSpec& spec, std::size_t workers, const RandomStreams& random);

  /// Duration of worker w's next iteration for `flops` operations (draws its noise).
  TimeNs next_duration(std::size_t worker, double flops);
  /// The persistent speed factor of each worker.
  const std::vector<double>& speed_factors() const { return factors_; }

 private:
  ComputeSpec spec_;
  std::vector<double> factors_;
  std::vector<RandomEngine> streams_;  // per worker; empty when nothing is drawn per iteration
};

}  // namespace pssim::compute
