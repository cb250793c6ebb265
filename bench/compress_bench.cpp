// Compressor throughput: encode and decode time per element for every kind, on a
// Gaussian vector the size of a model slice, and the encoded size. Prints one row per
// kind; the figures help choose compression.{push,pull}.cost_per_element (this machine's
// CPU cost) and show how much simulation wall time compression adds.
//
//   compress_bench [elements=1048576] [repetitions=20]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include "models/compress/compressor.hpp"
#include "models/compress/feedback.hpp"

using namespace pssim::models;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 20;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (n == 0 || reps <= 0) {
    std::fprintf(stderr, "usage: compress_bench [elements > 0] [repetitions > 0]\n");
    return 2;
  }
  boost::random::mt19937_64 rng(1);
  boost::random::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(n), out(n);
  for (float& v : x) v = normal(rng);

  std::printf("compress_bench: n = %zu float32 (%.1f MB), %d repetitions, one thread\n", n, 4.0 * n / 1e6, reps);
  std::printf("%-10s %12s %9s %14s %14s %14s\n", "kind", "bytes", "of fp32", "encode ns/el", "decode ns/el",
              "EF step ns/el");
  using clock = std::chrono::steady_clock;
  const auto per_element = [&](clock::duration d) {
    return std::chrono::duration<double, std::nano>(d).count() / (static_cast<double>(n) * reps);
  };
  for (auto kind : {CompressorKind::none, CompressorKind::fp16, CompressorKind::topk, CompressorKind::dgc,
                    CompressorKind::randomk, CompressorKind::qsgd, CompressorKind::sign, CompressorKind::threshold}) {
    CompressorSpec spec;
    spec.kind = kind;
    spec.threshold = 2.576;  // about 1% of a standard normal's magnitudes
    const Compressor c(spec);
    std::vector<std::uint8_t> bytes;
    const auto t0 = clock::now();
    for (int r = 0; r < reps; ++r) bytes = c.encode(x, static_cast<std::uint64_t>(r));
    const auto t1 = clock::now();
    for (int r = 0; r < reps; ++r) c.decode(bytes, out);
    const auto t2 = clock::now();
    ErrorFeedback feedback(n);
    for (int r = 0; r < reps; ++r) feedback.step(c, x, out, static_cast<std::uint64_t>(r));
    const auto t3 = clock::now();
    std::printf("%-10s %12zu %8.2f%% %14.2f %14.2f %14.2f\n", std::string(to_string(kind)).c_str(), bytes.size(),
                100.0 * static_cast<double>(bytes.size()) / (4.0 * static_cast<double>(n)), per_element(t1 - t0),
                per_element(t2 - t1), per_element(t3 - t2));
  }
  return 0;
}
