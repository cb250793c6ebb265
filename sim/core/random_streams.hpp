// RandomStreams: named, independent random streams derived from one scenario seed.
//
// Every consumer of randomness asks for its own stream by name and index ("worker", 3),
// so adding a consumer never shifts the numbers another one sees, and results do not
// depend on the order in which streams are created or on thread scheduling.
// Engines and distributions are Boost.Random's: their output is specified exactly, so the
// same seed gives the same numbers with any standard library.
#pragma once

#include <cstdint>
#include <string_view>

#include <boost/random/mersenne_twister.hpp>

namespace pssim {

using RandomEngine = boost::random::mt19937_64;

class RandomStreams {
 public:
  explicit RandomStreams(std::uint64_t seed) : seed_(seed) {}

  std::uint64_t seed() const { return seed_; }
  /// The 64-bit seed of stream (name, index): a SplitMix64 mix of the scenario seed, the
  /// FNV-1a hash of the name and the index. Pure function of its arguments.
  std::uint64_t derive_seed(std::string_view name, std::uint64_t index = 0) const;
  /// A fresh engine for stream (name, index). Equal arguments give equal sequences.
  RandomEngine stream(std::string_view name, std::uint64_t index = 0) const {
    return RandomEngine(derive_seed(name, index));
  }

 private:
  std::uint64_t seed_;
};

}  // namespace pssim
