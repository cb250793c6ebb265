// BatchBalancer: proportional shares, bounds, largest-remainder rounding, the measuring
// window; expectations worked out by hand in the comments.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/compute/batch_balancer.hpp"

using pssim::compute::AdaptiveBatchSpec;
using pssim::compute::BatchBalancer;

TEST_CASE("shares are proportional to throughput, rounded by largest remainder", "[compute][batch]") {
  // 128 x [1, 1, 1, 0.25] / 3.25 = 39.38, 39.38, 39.38, 9.85: floors sum to 126; the two
  // missing samples go to the largest remainders, 0.85 (worker 3) then 0.38 (worker 0 of
  // the tied three).
  CHECK(BatchBalancer::allocate({1, 1, 1, 0.25}, 128, 8, 128) == std::vector<std::int64_t>{40, 39, 39, 10});
  // Equal rates: equal shares, exactly.
  CHECK(BatchBalancer::allocate({3, 3, 3}, 96, 8, 128) == std::vector<std::int64_t>{32, 32, 32});
}

TEST_CASE("a share below the lower bound is clamped and the rest is shared again", "[compute][batch]") {
  // 128 x (1/6) / (3 + 1/6) = 6.7 < 8: worker 3 gets 8, the others (128 - 8) / 3 = 40.
  CHECK(BatchBalancer::allocate({1, 1, 1, 1.0 / 6}, 128, 8, 128) == std::vector<std::int64_t>{40, 40, 40, 8});
  // One fast worker: 100 x 10 / 13 = 76.9 > 50: it gets 50, the others 50 / 3 = 16.67
  // each (floors 16, 16, 16; the two missing samples to workers 1 and 2 by index).
  CHECK(BatchBalancer::allocate({10, 1, 1, 1}, 100, 5, 50) == std::vector<std::int64_t>{50, 17, 17, 16});
}

TEST_CASE("allocations sum to the global batch within the bounds for any rates", "[compute][batch]") {
  std::uint64_t x = 12345;  // a fixed LCG: reproducible rates spanning 4 decades
  const auto next = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(x >> 11) / 9007199254740992.0;
  };
  for (int trial = 0; trial < 500; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(next() * 16);
    std::vector<double> rates(n);
    for (auto& r : rates) r = std::pow(10.0, 4 * next());
    const std::int64_t b = 1 + static_cast<std::int64_t>(next() * 64);
    BatchBalancer balancer(n, AdaptiveBatchSpec{b, 1, 0.25, 4});
    const auto got = BatchBalancer::allocate(rates, b * static_cast<std::int64_t>(n), balancer.lower(), balancer.upper());
    INFO("trial " << trial << ", n " << n << ", b " << b);
    CHECK(std::accumulate(got.begin(), got.end(), std::int64_t{0}) == b * static_cast<std::int64_t>(n));
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(got[i] >= balancer.lower());
      CHECK(got[i] <= balancer.upper());
      // A faster worker never gets a smaller batch (rounding moves a share by at most 1).
      for (std::size_t j = 0; j < n; ++j)
        if (rates[i] > rates[j]) CHECK(got[i] + 1 >= got[j]);
    }
  }
}

TEST_CASE("bounds are whole samples, at least 1, around batch_size", "[compute][batch]") {
  BatchBalancer a(2, AdaptiveBatchSpec{32, 5, 0.25, 4});
  CHECK(a.lower() == 8);
  CHECK(a.upper() == 128);
  BatchBalancer b(2, AdaptiveBatchSpec{3, 5, 0.1, 1.5});
  CHECK(b.lower() == 1);  // 0.3 rounds up to 1 sample
  CHECK(b.upper() == 4);  // 4.5 rounds down
  CHECK_THROWS(BatchBalancer(2, AdaptiveBatchSpec{32, 5, 1.5, 4}));
  CHECK_THROWS(BatchBalancer(2, AdaptiveBatchSpec{32, 0, 0.25, 4}));
  CHECK_THROWS(BatchBalancer::allocate({1, 1}, 10, 6, 8));  // 2 x 6 > 10
}

TEST_CASE("equal shares until every worker has a full window, then the window's throughput", "[compute][batch]") {
  BatchBalancer balancer(2, AdaptiveBatchSpec{16, 2, 0.25, 4});
  CHECK(balancer.batch(0, 0) == 16);
  // Worker 0: 16 samples in 1 s; worker 1 in 3 s.
  balancer.record(0, 16, 1.0), balancer.record(1, 16, 3.0);
  CHECK(balancer.batch(0, 1) == 16);  // one of two measurements each
  balancer.record(0, 16, 1.0), balancer.record(1, 16, 3.0);
  // Rates 16 and 5.33 per second: 32 x 3/4 = 24 and 8.
  CHECK(balancer.batch(1, 2) == 8);
  CHECK(balancer.batch(0, 2) == 24);
  // The same iteration keeps its allocation whatever is measured meanwhile ...
  balancer.record(0, 24, 24.0), balancer.record(0, 24, 24.0);  // worker 0 now 1 sample/s
  CHECK(balancer.batch(0, 2) == 24);
  // ... the next one uses the last `window` measurements only: rates 1 and 5.33 per
  // second, 32 x 1/6.33 = 5.05 -> 5 and 26.95 -> 27.
  CHECK(balancer.batch(0, 3) == 5);
  CHECK(balancer.batch(1, 3) == 27);
}
