#include "sim/compute/compute_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

namespace pssim::compute {

ComputeModel::ComputeModel(const ComputeSpec& spec, std::size_t workers, const RandomStreams& random)
    : spec_(spec), factors_(workers, 1.0) {
  if (!(spec.throughput > 0)) throw std::invalid_argument("worker throughput must be positive");
  // A stream is 2.5 kB (mt19937_64): only models that draw per iteration get them.
  const bool exponential = spec.noise == ComputeSpec::Noise::ShiftedExponential;
  if (exponential && !(spec.noise_shift >= 0 && spec.noise_mean >= 0 && spec.noise_shift + spec.noise_mean > 0))
    throw std::invalid_argument("shifted-exponential noise needs shift, mean >= 0 and shift + mean > 0");
  if (spec.noise_sigma > 0 || spec.speed == ComputeSpec::Speed::TransientStragglers ||
      (exponential && spec.noise_mean > 0)) {
    streams_.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) streams_.push_back(random.stream("compute", w));
  }
  auto setup = random.stream("speed");
  switch (spec.speed) {
    case ComputeSpec::Speed::Constant: std::fill(factors_.begin(), factors_.end(), spec.factor); break;
    case ComputeSpec::Speed::List:
      if (spec.factors.size() != workers) throw std::invalid_argument("one speed factor per worker");
      factors_ = spec.factors;
      break;
    case ComputeSpec::Speed::Uniform: {
      boost::random::uniform_real_distribution<double> u(spec.min, spec.max);
      for (auto& f : factors_) f = spec.min == spec.max ? spec.min : u(setup);
      break;
    }
    case ComputeSpec::Speed::Lognormal: {
      // exp(N(0, sigma^2)): median 1 (Boost's m and s are those of the normal).
      boost::random::lognormal_distribution<double> ln(0.0, spec.sigma);
      for (auto& f : factors_) f = spec.sigma == 0 ? 1.0 : ln(setup);
      break;
    }
    case ComputeSpec::Speed::Stragglers: {
      // A random subset of round(fraction * N) workers, chosen by a seeded shuffle.
      const auto slow = static_cast<std::size_t>(std::llround(spec.fraction * static_cast<double>(workers)));
      std::vector<std::size_t> order(workers);
      std::iota(order.begin(), order.end(), 0);
      for (std::size_t i = workers; i > 1; --i) {
        boost::random::uniform_int_distribution<std::size_t> pick(0, i - 1);
        std::swap(order[i - 1], order[pick(setup)]);
      }
      for (std::size_t i = 0; i < slow; ++i) factors_[order[i]] = 1.0 / spec.slowdown;
      break;
    }
    case ComputeSpec::Speed::TransientStragglers: break;
  }
}

TimeNs ComputeModel::next_duration(std::size_t worker, double flops) {
  double speed = spec_.throughput * factors_[worker];
  if (spec_.noise_sigma > 0) {
    boost::random::lognormal_distribution<double> noise(0.0, spec_.noise_sigma);
    speed *= noise(streams_[worker]);
  }
  if (spec_.speed == ComputeSpec::Speed::TransientStragglers) {
    boost::random::bernoulli_distribution<double> slow(spec_.probability);
    if (slow(streams_[worker])) speed /= spec_.slowdown;
  }
  if (spec_.noise == ComputeSpec::Noise::ShiftedExponential) {
    double stretch = spec_.noise_shift;
    if (spec_.noise_mean > 0) {
      boost::random::exponential_distribution<double> exp(1.0 / spec_.noise_mean);  // rate lambda = 1 / mean
      stretch += exp(streams_[worker]);
    }
    return seconds_to_ns(flops / speed * stretch);
  }
  return seconds_to_ns(flops / speed);
}

}  // namespace pssim::compute
