#include "models/data/synthetic.hpp"

#include <stdexcept>

#include <boost/random/discrete_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <fmt/format.h>

#include "models/core/seed.hpp"

namespace pssim::models {

ImageDataset make_synthetic_images(std::int64_t n, Shape3 shape, std::int64_t num_classes,
                                   double noise, std::uint64_t seed) {
  if (n < 1 || num_classes < 2 || shape.numel() < 1 || !(noise >= 0)) {
    throw std::invalid_argument(fmt::format(
        "synthetic images: need samples >= 1 (got {}), classes >= 2 (got {}), a non-empty "
        "shape (got {}) and noise >= 0 (got {})",
        n, num_classes, to_string(shape), noise));
  }
  const auto d = shape.numel();
  Engine proto_engine(derive_seed(seed, "synthetic-prototypes"));
  Engine engine(derive_seed(seed, "synthetic-samples"));
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  boost::random::uniform_int_distribution<std::int32_t> label(0, std::int32_t(num_classes - 1));
  std::vector<float> prototypes(std::size_t(num_classes * d));
  for (auto& p : prototypes) p = float(normal(proto_engine));
  ImageDataset ds;
  ds.name = "synthetic";
  ds.shape = shape;
  ds.num_classes = num_classes;
  ds.images.resize(std::size_t(n * d));
  ds.labels.resize(std::size_t(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto y = label(engine);
    ds.labels[std::size_t(i)] = y;
    for (std::int64_t j = 0; j < d; ++j) {
      ds.images[std::size_t(i * d + j)] =
          prototypes[std::size_t(y * d + j)] + float(noise * normal(engine));
    }
  }
  return ds;
}

std::vector<std::int32_t> make_synthetic_tokens(std::int64_t n, std::int64_t vocab,
                                                std::int64_t branching, std::uint64_t seed) {
  if (n < 2 || vocab < 2 || branching < 1 || branching > vocab) {
    throw std::invalid_argument(fmt::format(
        "synthetic tokens: need length >= 2 (got {}), vocab >= 2 (got {}) and 1 <= branching "
        "<= vocab (got {})",
        n, vocab, branching));
  }
  Engine table_engine(derive_seed(seed, "synthetic-chain"));
  Engine engine(derive_seed(seed, "synthetic-walk"));
  boost::random::uniform_int_distribution<std::int32_t> any(0, std::int32_t(vocab - 1));
  boost::random::uniform_real_distribution<double> weight(0.1, 1.0);
  std::vector<std::vector<std::int32_t>> next(static_cast<std::size_t>(vocab));
  std::vector<boost::random::discrete_distribution<int, double>> pick;
  for (std::int64_t v = 0; v < vocab; ++v) {
    std::vector<double> w;
    for (std::int64_t b = 0; b < branching; ++b) {
      next[std::size_t(v)].push_back(any(table_engine));
      w.push_back(weight(table_engine));
    }
    pick.emplace_back(w.begin(), w.end());
  }
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(n));
  tokens[0] = any(engine);
  for (std::int64_t i = 1; i < n; ++i) {
    const auto prev = std::size_t(tokens[std::size_t(i - 1)]);
    tokens[std::size_t(i)] = next[prev][std::size_t(pick[prev](engine))];
  }
  return tokens;
}

}  // namespace pssim::models
