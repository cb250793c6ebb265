// models_export_case: writes one reproducible gradient case of a preset as .npy files
// (models::export_config_case, what `pssim grad` wraps), for
// analysis/check_against_torch.py.
//
//   models_export_case PRESET DIR [--batch B] [--seed S] [--data fashion-mnist|synthetic]
//                      [--level char|word] [--layers L]     (lstm-lm)
//
// CNN/MLP presets take the first B Fashion-MNIST training images when Debian's files are
// installed (synthetic images otherwise, or with --data synthetic); lstm-lm takes B
// sequences of 35 tokens of the default corpus (fortunes, character level) or synthetic
// tokens, with E = 64, H = 256. Parameters: init_params(derive_seed(seed, "init")).
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <numeric>
#include <string>

#include "models/train/grad_case.hpp"

using namespace pssim::models;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: models_export_case PRESET DIR [--batch B] [--seed S] [--data KIND] [--level char|word] [--layers L]\n");
    return 2;
  }
  const std::string preset = argv[1], dir = argv[2];
  std::int64_t batch_size = 8;
  std::uint64_t seed = 1;
  std::string kind, level = "char";
  std::int64_t layers = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--batch")) batch_size = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--data")) kind = argv[i + 1];
    else if (!std::strcmp(argv[i], "--level")) level = argv[i + 1];
    else if (!std::strcmp(argv[i], "--layers")) layers = std::atoll(argv[i + 1]);
  }
  try {
    TrainConfig cfg;
    cfg.model.preset = preset;
    cfg.seed = seed;
    cfg.data.batch_size = batch_size;
    const bool lm = preset == "lstm-lm";
    if (kind.empty()) {
      const bool have_files = lm ? std::filesystem::exists(kDefaultCorpusDir)
                                 : std::filesystem::exists(std::string(kFashionMnistDir));
      kind = have_files ? (lm ? "corpus" : "fashion-mnist") : (lm ? "synthetic-text" : "synthetic");
    }
    cfg.data.kind = kind;
    cfg.data.corpus.level = parse_token_level(level);
    if (cfg.data.corpus.level == TokenLevel::word) cfg.data.corpus.vocab_cap = 10000;
    cfg.model.num_layers = layers;
    const auto c = export_config_case(cfg, dir);
    std::printf("%s: data %s, batch %lld, loss %.6f -> %s\n", preset.c_str(), kind.c_str(),
                (long long)batch_size, c.loss, dir.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "models_export_case: %s\n", e.what());
    return 1;
  }
  return 0;
}
