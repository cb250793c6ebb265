// Seeded synthetic data for tests and network-scale studies (no files needed).
#pragma once

#include <cstdint>
#include <vector>

#include "models/data/image_dataset.hpp"

namespace pssim::models {

/// n images of `shape` in `num_classes` classes: class k has a prototype drawn from N(0,1)
/// per pixel; an image is its class's prototype plus N(0, noise^2) per pixel; labels are
/// uniform. Learnable (a linear model separates the classes when noise is small), and a
/// pure function of the arguments (Boost engines and distributions).
ImageDataset make_synthetic_images(std::int64_t n, Shape3 shape, std::int64_t num_classes,
                                   double noise, std::uint64_t seed);

/// A token stream of length n from a random sparse Markov chain over `vocab` tokens: each
/// token has `branching` successors with random weights. Its entropy rate is at most
/// log(branching), far below log(vocab), so a language model has something to learn.
std::vector<std::int32_t> make_synthetic_tokens(std::int64_t n, std::int64_t vocab,
                                                std::int64_t branching, std::uint64_t seed);

}  // namespace pssim::models
