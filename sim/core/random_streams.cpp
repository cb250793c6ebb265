#include "sim/core/random_streams.hpp"

namespace pssim {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

std::uint64_t RandomStreams::derive_seed(std::string_view name, std::uint64_t index) const {
  // Chained mixing: each input passes through a full avalanche before the next is added,
  // so (seed, name, index) triples that differ anywhere give unrelated seeds.
  std::uint64_t h = splitmix64(seed_);
  h = splitmix64(h ^ fnv1a64(name));
  h = splitmix64(h ^ index);
  return h;
}

}  // namespace pssim
