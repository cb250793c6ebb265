// The single-process training loop on synthetic data: it learns, it is reproducible.
#include <catch2/catch.hpp>

#include "models/train/train_loop.hpp"

using namespace pssim::models;

TEST_CASE("training a classifier on synthetic images reaches high accuracy", "[train]") {
  TrainConfig cfg;
  cfg.model.preset = "logreg";
  cfg.data.kind = "synthetic";
  cfg.data.synthetic_train = 2000, cfg.data.synthetic_test = 500, cfg.data.synthetic_noise = 2.0;
  cfg.optimizer.lr = 0.05, cfg.optimizer.momentum = 0.9;
  cfg.eval_every = 10;
  int callbacks = 0;
  const auto r = train_single_process(cfg, [&](const TrainPoint&) { ++callbacks; });
  REQUIRE(r.curve.size() == 1 + 3 + 1);  // step 0, 10, 20, 30, and the last (32)
  CHECK(callbacks == 5);
  CHECK(r.curve.front().eval.accuracy < 0.3);  // chance is 0.1
  CHECK(r.curve.back().step == 32);            // ceil(2000 / 64)
  CHECK(r.curve.back().eval.accuracy > 0.9);
  const auto again = train_single_process(cfg);
  CHECK(again.params == r.params);  // bit-identical
}

TEST_CASE("training the LSTM LM on a Markov chain beats the unigram baseline", "[train][lstm]") {
  TrainConfig cfg;
  cfg.model.preset = "lstm-lm";
  cfg.model.embed_dim = 16, cfg.model.hidden_size = 32;
  cfg.data.kind = "synthetic-text";
  cfg.data.seq_len = 20, cfg.data.batch_size = 16;
  cfg.data.synthetic_vocab = 30, cfg.data.synthetic_branching = 2, cfg.data.synthetic_train = 800;
  cfg.optimizer.kind = OptimizerKind::adam;
  cfg.optimizer.lr = 0.01;
  cfg.epochs = 2;
  const auto data = TrainingData::load(cfg.data, cfg.seed);
  const auto r = train_single_process(cfg, data);
  const double unigram = data.unigram_perplexity();
  CHECK(r.curve.front().eval.perplexity > 0.8 * 30);  // untrained: about the vocabulary size
  CHECK(r.curve.back().eval.perplexity < 0.5 * unigram);  // entropy rate <= log 2
  CHECK(r.curve.back().eval.perplexity < 3.0);
}
