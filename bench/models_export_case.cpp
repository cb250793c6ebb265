// models_export_case: writes one reproducible gradient case of a preset as .npy files
// (models::export_gradient_case), for analysis/check_against_torch.py.
//
//   models_export_case PRESET DIR [--batch B] [--seed S] [--data fashion-mnist|synthetic]
//
// CNN/MLP presets take the first B Fashion-MNIST training images when Debian's files are
// installed (synthetic images otherwise, or with --data synthetic); lstm-lm takes B
// sequences of 35 tokens of the default corpus (fortunes, character level) or synthetic
// tokens, with E = 64, H = 256.
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <numeric>
#include <string>

#include "models/core/seed.hpp"
#include "models/data/training_data.hpp"
#include "models/io/export.hpp"
#include "models/nets/build_network.hpp"

using namespace pssim::models;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: models_export_case PRESET DIR [--batch B] [--seed S] [--data KIND]\n");
    return 2;
  }
  const std::string preset = argv[1], dir = argv[2];
  std::int64_t batch_size = 8;
  std::uint64_t seed = 1;
  std::string kind;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--batch")) batch_size = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--data")) kind = argv[i + 1];
  }
  try {
    NetworkSpec spec;
    spec.preset = preset;
    DataSpec data_spec;
    data_spec.batch_size = batch_size;
    const bool lm = preset == "lstm-lm";
    if (kind.empty()) {
      const bool have_files = lm ? std::filesystem::exists(kDefaultCorpusDir)
                                 : std::filesystem::exists(std::string(kFashionMnistDir));
      kind = have_files ? (lm ? "corpus" : "fashion-mnist") : (lm ? "synthetic-text" : "synthetic");
    }
    data_spec.kind = kind;
    const auto data = TrainingData::load(data_spec, seed);
    data.adapt(spec);
    const auto net = build_network<float>(spec);
    const auto params = net->init_params(seed);
    std::vector<std::int64_t> items(static_cast<std::size_t>(batch_size));
    std::iota(items.begin(), items.end(), 0);
    Batch batch;
    data.fill_batch(items, batch);
    const auto c = export_gradient_case(dir, *net, params, batch.view(), derive_seed(seed, "dropout"));
    std::printf("%s: %s, data %s, batch %lld, loss %.6f -> %s\n", preset.c_str(),
                net->describe().c_str(), kind.c_str(), (long long)batch_size, c.loss, dir.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "models_export_case: %s\n", e.what());
    return 1;
  }
  return 0;
}
