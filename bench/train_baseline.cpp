// train_baseline: the single-process reference curve (models::train_single_process) —
// one worker, no network, periodic evaluation on the test split / held-out tokens.
//
//   train_baseline PRESET [options]
//     --epochs E (1)  --max-steps N (0: whole epochs)  --eval-every N (200)  --seed S (1)
//     --batch B (64; lstm-lm 32)  --lr LR (0.05; lstm-lm adam 0.002)  --momentum M (0.9)
//     --optimizer sgd|adam|adamw  --data fashion-mnist|mnist|synthetic  --path DIR
//     --pixel-mean M --pixel-std S   (pixels (b/255 - M)/S; default 0 and 1: ToTensor)
//     lstm-lm: --level char|word (char)  --corpus PATH (fortunes)  --seq-len S (35)
//              --embed E (64)  --hidden H (256)  --layers L (1)  --vocab-cap V (0; word 10000)
//
// Defaults reproduce issue 4's accuracy setting: Fashion-MNIST, SGD lr 0.05, momentum
// 0.9, batch 64, one epoch. Prints one line per evaluation point and a summary.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "models/train/train_loop.hpp"

using namespace pssim::models;

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: train_baseline PRESET [options]  (see the source header)\n");
    return 2;
  }
  TrainConfig cfg;
  cfg.model.preset = argv[1];
  const bool lm = cfg.model.preset == "lstm-lm";
  cfg.eval_every = 200;
  cfg.optimizer.lr = 0.05;
  cfg.optimizer.momentum = 0.9;
  if (lm) {
    cfg.data.kind = "corpus";
    cfg.data.batch_size = 32;
    cfg.optimizer.kind = OptimizerKind::adam;
    cfg.optimizer.lr = 0.002;
    cfg.optimizer.momentum = 0.0;
  }
  bool lr_set = false;
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument("option " + a + " needs a value");
      const std::string v = argv[++i];
      if (a == "--epochs") cfg.epochs = std::stoll(v);
      else if (a == "--max-steps") cfg.max_steps = std::stoll(v);
      else if (a == "--eval-every") cfg.eval_every = std::stoll(v);
      else if (a == "--seed") cfg.seed = std::stoull(v);
      else if (a == "--batch") cfg.data.batch_size = std::stoll(v);
      else if (a == "--lr") cfg.optimizer.lr = std::stod(v), lr_set = true;
      else if (a == "--momentum") cfg.optimizer.momentum = std::stod(v);
      else if (a == "--optimizer") {
        cfg.optimizer.kind = parse_optimizer_kind(v);
        if (cfg.optimizer.kind != OptimizerKind::sgd) cfg.optimizer.momentum = 0;
        if (!lr_set && cfg.optimizer.kind != OptimizerKind::sgd) cfg.optimizer.lr = 0.002;
      } else if (a == "--data") cfg.data.kind = v;
      else if (a == "--path") cfg.data.path = v;
      else if (a == "--pixel-mean") cfg.data.pixels.mean = std::stod(v);
      else if (a == "--pixel-std") cfg.data.pixels.std = std::stod(v);
      else if (a == "--level") {
        cfg.data.corpus.level = parse_token_level(v);
        if (cfg.data.corpus.level == TokenLevel::word && cfg.data.corpus.vocab_cap == 0) {
          cfg.data.corpus.vocab_cap = 10000;
        }
      } else if (a == "--corpus") cfg.data.corpus.path = v;
      else if (a == "--seq-len") cfg.data.seq_len = std::stoll(v);
      else if (a == "--embed") cfg.model.embed_dim = std::stoll(v);
      else if (a == "--hidden") cfg.model.hidden_size = std::stoll(v);
      else if (a == "--layers") cfg.model.num_layers = std::stoll(v);
      else if (a == "--vocab-cap") cfg.data.corpus.vocab_cap = std::stoll(v);
      else throw std::invalid_argument("unknown option " + a);
    }
    const auto data = TrainingData::load(cfg.data, cfg.seed);
    std::printf("# %s on %s: %lld training items, batch %lld, %s lr %g%s\n",
                cfg.model.preset.c_str(), cfg.data.kind.c_str(),
                (long long)data.num_train_items(), (long long)cfg.data.batch_size,
                std::string(to_string(cfg.optimizer.kind)).c_str(), cfg.optimizer.lr,
                cfg.optimizer.momentum > 0 ? (" momentum " + std::to_string(cfg.optimizer.momentum)).c_str() : "");
    if (lm) {
      std::printf("# corpus %s: vocabulary %lld, %zu training / %zu held-out tokens; "
                  "unigram perplexity %.3f\n",
                  data.corpus() ? data.corpus()->source().c_str() : "synthetic",
                  (long long)data.vocab_size(), data.train_tokens().size(),
                  data.heldout_tokens().size(), data.unigram_perplexity());
    }
    std::printf("%8s %8s %11s %10s %10s %10s %9s\n", "step", "epoch", "train_loss", "test_loss",
                lm ? "perplexity" : "accuracy", "samples", "wall_s");
    const auto r = train_single_process(cfg, data, [&](const TrainPoint& p) {
      std::printf("%8lld %8.3f %11.4f %10.4f %10.4f %10lld %9.1f\n", (long long)p.step, p.epoch,
                  p.train_loss, p.eval.loss, lm ? p.eval.perplexity : p.eval.accuracy,
                  (long long)p.samples, p.wall_seconds);
      std::fflush(stdout);
    });
    const auto& last = r.curve.back();
    std::printf("# %s, %.1f MFLOP/sample\n", r.network.c_str(), r.flops_per_sample / 1e6);
    if (lm) {
      std::printf("# final held-out perplexity %.3f vs unigram %.3f (%.1f%% of it) after %lld steps, %.1f s\n",
                  last.eval.perplexity, data.unigram_perplexity(),
                  100 * last.eval.perplexity / data.unigram_perplexity(), (long long)last.step,
                  last.wall_seconds);
    } else {
      std::printf("# final test accuracy %.2f%% (loss %.4f) after %lld steps, %.1f s\n",
                  100 * last.eval.accuracy, last.eval.loss, (long long)last.step, last.wall_seconds);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_baseline: %s\n", e.what());
    return 1;
  }
  return 0;
}
