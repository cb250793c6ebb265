// Seed derivation for the models library: every random consumer (a tensor's
// initialization, a dropout layer's mask, a worker's partition) gets its own engine seeded
// by mixing the caller's seed with a tag and an index, so adding a consumer never shifts
// the numbers another one sees. Pure functions; engines are Boost.Random's mt19937_64.
#pragma once

#include <cstdint>
#include <string_view>

#include <boost/random/mersenne_twister.hpp>

namespace pssim::models {

using Engine = boost::random::mt19937_64;

/// SplitMix64 finalizer: a bijective 64-bit mix with full avalanche.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Seed of stream (tag, index) under `seed`: chained SplitMix64 of the seed, the FNV-1a
/// hash of the tag, and the index.
constexpr std::uint64_t derive_seed(std::uint64_t seed, std::string_view tag,
                                    std::uint64_t index = 0) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : tag) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  std::uint64_t x = splitmix64(seed);
  x = splitmix64(x ^ h);
  return splitmix64(x ^ index);
}

}  // namespace pssim::models
