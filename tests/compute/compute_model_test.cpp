#include <cmath>

#include <catch2/catch.hpp>

#include "sim/compute/compute_model.hpp"

using namespace pssim;
using namespace pssim::compute;

TEST_CASE("compute time is FLOPs / (throughput x factor)", "[compute]") {
  RandomStreams random(1);
  ComputeSpec spec;
  spec.speed = ComputeSpec::Speed::List;
  spec.factors = {1.0, 0.5};
  spec.throughput = 2e12;
  ComputeModel m(spec, 2, random);
  CHECK(m.next_duration(0, 4e9) == 2'000'000);
  CHECK(m.next_duration(1, 4e9) == 4'000'000);
}

TEST_CASE("stragglers: the stated share of workers is slowed", "[compute]") {
  RandomStreams random(5);
  ComputeSpec spec;
  spec.speed = ComputeSpec::Speed::Stragglers;
  spec.fraction = 0.25;
  spec.slowdown = 4;
  ComputeModel m(spec, 40, random);
  int slow = 0;
  for (double f : m.speed_factors()) {
    CHECK((f == 1.0 || f == 0.25));
    slow += f == 0.25;
  }
  CHECK(slow == 10);
}

TEST_CASE("lognormal factors have median 1 and the given spread", "[compute]") {
  RandomStreams random(11);
  ComputeSpec spec;
  spec.speed = ComputeSpec::Speed::Lognormal;
  spec.sigma = 0.5;
  ComputeModel m(spec, 20000, random);
  double sum = 0, sum2 = 0;
  for (double f : m.speed_factors()) sum += std::log(f), sum2 += std::log(f) * std::log(f);
  const double mean = sum / 20000, sd = std::sqrt(sum2 / 20000 - mean * mean);
  CHECK(std::abs(mean) < 0.02);      // 4 standard errors (0.5 / sqrt(20000) = 0.0035)
  CHECK(std::abs(sd - 0.5) < 0.02);
}

TEST_CASE("transient stragglers slow iterations with the given probability", "[compute]") {
  RandomStreams random(3);
  ComputeSpec spec;
  spec.speed = ComputeSpec::Speed::TransientStragglers;
  spec.probability = 0.2;
  spec.slowdown = 3;
  spec.throughput = 1e9;
  ComputeModel m(spec, 1, random);
  int slow = 0;
  for (int i = 0; i < 10000; ++i) slow += m.next_duration(0, 1e9) == 3 * kSecond;
  CHECK(std::abs(slow - 2000) < 200);  // binomial sd = 40: 5 sd
}

TEST_CASE("each worker's times depend only on its own stream", "[compute]") {
  ComputeSpec spec;
  spec.noise_sigma = 0.3;
  ComputeModel a(spec, 3, RandomStreams(7)), b(spec, 3, RandomStreams(7));
  const TimeNs first = a.next_duration(2, 1e9);
  for (int i = 0; i < 5; ++i) b.next_duration(0, 1e9);  // other workers draw first
  CHECK(b.next_duration(2, 1e9) == first);
}
