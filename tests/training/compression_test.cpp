// PS-side compression: per-shard push compression with residuals, pull deltas against the
// worker's copy, and message sizes. The compressors themselves are tested in
// tests/models/compress_test.cpp.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <catch2/catch.hpp>

#include "sim/training/compression.hpp"

using namespace pssim;
using namespace pssim::training;
using models::CompressorKind;

namespace {

std::vector<float> gaussian(std::size_t n, std::uint64_t seed) {
  boost::random::mt19937_64 rng(seed);
  boost::random::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

DirectionCompression topk(double ratio, bool feedback) {
  DirectionCompression d;
  d.spec.kind = CompressorKind::topk;
  d.spec.ratio = ratio;
  d.error_feedback = feedback;
  return d;
}

std::size_t nonzeros(std::span<const float> v) {
  return static_cast<std::size_t>(std::count_if(v.begin(), v.end(), [](float x) { return x != 0.0f; }));
}

SliceRef slice_of(std::vector<float> v) { return std::make_shared<const std::vector<float>>(std::move(v)); }

}  // namespace

TEST_CASE("message sizes: 4 bytes per parameter uncompressed, the real encoding otherwise", "[compression]") {
  CHECK(*fixed_message_bytes(DirectionCompression{}, 1000) == 4000.0);
  for (auto kind : {CompressorKind::fp16, CompressorKind::topk, CompressorKind::qsgd, CompressorKind::sign}) {
    DirectionCompression d;
    d.spec.kind = kind;
    const auto values = gaussian(5000, 3);
    const auto encoded = models::Compressor(d.spec).encode(values, 7);
    CHECK(*fixed_message_bytes(d, 5000) == static_cast<double>(encoded.size()));
  }
  DirectionCompression threshold;
  threshold.spec.kind = CompressorKind::threshold;
  CHECK_FALSE(fixed_message_bytes(threshold, 5000).has_value());  // depends on the values
}

TEST_CASE("push: each shard compresses its own slice", "[compression]") {
  // Two shards of 1000 and 3000 parameters, top-k 1%: 10 and 30 entries, each the largest
  // of its own slice. Shard 0's values are small, so a global top-k would skip it.
  PushCompressor push(topk(0.01, false), {1000, 3000});
  auto small = gaussian(1000, 1);
  for (float& x : small) x *= 1e-3f;
  auto large = gaussian(3000, 2);
  const auto small_in = small, large_in = large;

  const std::size_t bytes0 = push.compress(0, small, 11);
  const std::size_t bytes1 = push.compress(1, large, 12);
  CHECK(nonzeros(small) == 10);
  CHECK(nonzeros(large) == 30);
  CHECK(bytes0 == *models::Compressor(topk(0.01, false).spec).fixed_size(1000));
  CHECK(bytes1 == *models::Compressor(topk(0.01, false).spec).fixed_size(3000));
  // The kept entries are exact and the largest of the slice.
  float smallest_kept = INFINITY, largest_dropped = 0;
  for (std::size_t i = 0; i < small.size(); ++i) {
    if (small[i] != 0.0f) {
      CHECK(small[i] == small_in[i]);
      smallest_kept = std::min(smallest_kept, std::abs(small[i]));
    } else {
      largest_dropped = std::max(largest_dropped, std::abs(small_in[i]));
    }
  }
  CHECK(smallest_kept >= largest_dropped);
}

TEST_CASE("push with error feedback sends later what it dropped, without, it is lost", "[compression]") {
  // One gradient, then zeros: with error feedback the residual drains 10 entries per push,
  // so after 100 pushes the shard has received the whole gradient, exactly (top-k sends
  // exact values). Without, the 990 dropped entries never arrive.
  const std::size_t n = 1000;
  const auto g = gaussian(n, 4);
  for (bool feedback : {true, false}) {
    PushCompressor push(topk(0.01, feedback), {n});
    std::vector<float> received(n, 0.0f), message = g;
    push.compress(0, message, 1);
    for (std::size_t i = 0; i < n; ++i) received[i] += message[i];
    for (int step = 1; step < 100; ++step) {
      std::fill(message.begin(), message.end(), 0.0f);
      push.compress(0, message, static_cast<std::uint64_t>(step + 1));
      for (std::size_t i = 0; i < n; ++i) received[i] += message[i];
    }
    if (feedback) CHECK(received == g);
    else CHECK(nonzeros(received) == 10);
  }
}

TEST_CASE("momentum correction accumulates velocity at the worker", "[compression]") {
  // DGC with m = 0.5 and top-k keeping everything: the shard receives u_t = m u_{t-1} + g_t
  // each step, then u is masked (all sent) -- so with k = n it receives exactly g each
  // step. With k < n a coordinate left behind collects its momentum: sent once, later.
  DirectionCompression d = topk(1.0, false);
  d.momentum_correction = 0.5;
  PushCompressor all(d, {4});
  std::vector<float> g = {1, -2, 3, -4};
  for (int step = 0; step < 3; ++step) {
    std::vector<float> m = g;
    all.compress(0, m, 1);
    CHECK(m == g);
  }
  d.spec.ratio = 0.25;  // one of four per push
  PushCompressor one(d, {4});
  // Coordinate 1 is never the largest until its velocity (1 + 1.5 + 0.75) has built up:
  //   step 1: u = [4, 1],   v = [4, 1]      -> sends 4;    u = [0, 1]
  //   step 2: u = [3, 1.5], v = [3, 2.5]    -> sends 3;    u = [0, 1.5]
  //   step 3: u = [2, 0.75], v = [2, 3.25]  -> sends 3.25 at coordinate 1
  std::vector<std::vector<float>> gradients = {{4, 1, 0, 0}, {3, 1, 0, 0}, {2, 0, 0, 0}};
  std::vector<std::vector<float>> expected = {{4, 0, 0, 0}, {3, 0, 0, 0}, {0, 3.25f, 0, 0}};
  for (std::size_t step = 0; step < 3; ++step) {
    one.compress(0, gradients[step], step);
    CHECK(gradients[step] == expected[step]);
  }
}

TEST_CASE("pull with error feedback converges to the shard's slice, without, the copy drifts", "[compression]") {
  const std::size_t n = 1000, workers = 2;
  const SliceRef start = slice_of(std::vector<float>(n, 0.0f));
  const SliceRef target = slice_of(gaussian(n, 5));
  std::vector<float> scratch;
  for (bool feedback : {true, false}) {
    PullCompressor pull(topk(0.01, feedback), workers, start);
    SliceRef copy;
    std::size_t bytes = 0;
    for (int message = 0; message < 100; ++message) {
      const auto m = pull.encode(1, target, std::make_shared<std::vector<float>>(n), scratch, 9);
      copy = m.held;
      bytes = m.bytes;
    }
    CHECK(bytes == *models::Compressor(topk(0.01, false).spec).fixed_size(n));
    // With feedback every delta is taken against the copy: after 100 top-1% messages
    // every coordinate has been sent (up to float rounding of copy + (target - copy)).
    // Without, the second delta is target - target = 0: the copy keeps 10 coordinates.
    if (feedback) {
      for (std::size_t i = 0; i < n; ++i) REQUIRE((*copy)[i] == Approx((*target)[i]).margin(1e-6));
    } else {
      CHECK(nonzeros(*copy) == 10);
    }
  }
}

TEST_CASE("pull copies are per worker", "[compression]") {
  const std::size_t n = 100;
  const SliceRef start = slice_of(std::vector<float>(n, 0.0f));
  const SliceRef target = slice_of(gaussian(n, 6));
  PullCompressor pull(topk(0.1, true), 2, start);
  std::vector<float> scratch;
  const auto a = pull.encode(0, target, std::make_shared<std::vector<float>>(n), scratch, 1);
  const auto b = pull.encode(0, target, std::make_shared<std::vector<float>>(n), scratch, 2);
  const auto c = pull.encode(1, target, std::make_shared<std::vector<float>>(n), scratch, 3);
  CHECK(nonzeros(*a.held) == 10);
  CHECK(nonzeros(*b.held) == 20);  // worker 0's second message adds the next 10
  CHECK(*c.held == *a.held);       // worker 1 starts from version 0, as worker 0 did
}
