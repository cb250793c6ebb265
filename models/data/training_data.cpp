#include "models/data/training_data.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "models/data/data_error.hpp"
#include "models/data/synthetic.hpp"

namespace pssim::models {

TrainingData TrainingData::from_images(const DataSpec& spec, ImageDataset train, ImageDataset test) {
  if (spec.batch_size < 1) {
    throw std::invalid_argument(fmt::format("data.batch_size {} must be >= 1", spec.batch_size));
  }
  if (train.size() < 1 || test.size() < 1)
    throw DataError(fmt::format("{} and {} need at least one item each ({} and {} given)", train.name, test.name,
                                train.size(), test.size()));
  check_test_split(train, test);
  TrainingData d;
  d.spec_ = spec;
  d.train_ = std::make_shared<const ImageDataset>(std::move(train));
  d.test_ = std::make_shared<const ImageDataset>(std::move(test));
  return d;
}

TrainingData TrainingData::load(const DataSpec& spec, std::uint64_t seed) {
  if (spec.batch_size < 1) {
    throw std::invalid_argument(fmt::format("data.batch_size {} must be >= 1", spec.batch_size));
  }
  TrainingData d;
  d.spec_ = spec;
  if (spec.kind == "fashion-mnist" || spec.kind == "mnist") {
    if (spec.kind == "mnist" && spec.path.empty()) {
      throw std::invalid_argument(
          "data.kind mnist needs data.path: a directory holding train-images-idx3-ubyte[.gz], "
          "train-labels-idx1-ubyte[.gz], t10k-images-idx3-ubyte[.gz], t10k-labels-idx1-ubyte[.gz]");
    }
    auto train = std::make_shared<ImageDataset>(load_mnist_dir(spec.path, Split::train, spec.pixels));
    auto test = std::make_shared<ImageDataset>(load_mnist_dir(spec.path, Split::test, spec.pixels));
    check_test_split(*train, *test);
    d.train_ = std::move(train), d.test_ = std::move(test);
  } else if (spec.kind == "synthetic") {
    if (spec.synthetic_train < 1 || spec.synthetic_test < 1) {
      throw std::invalid_argument(fmt::format("data.train_items {} and data.test_items {} must be >= 1",
                                              spec.synthetic_train, spec.synthetic_test));
    }
    auto all = make_synthetic_images(spec.synthetic_train + spec.synthetic_test, Shape3{1, 28, 28},
                                     10, spec.synthetic_noise, seed);
    auto train = std::make_shared<ImageDataset>();
    auto test = std::make_shared<ImageDataset>();
    const auto d_img = all.shape.numel();
    for (auto* part : {train.get(), test.get()}) {
      part->shape = all.shape, part->num_classes = all.num_classes;
    }
    train->name = "synthetic/train", test->name = "synthetic/test";
    const auto split = std::size_t(spec.synthetic_train);
    train->images.assign(all.images.begin(), all.images.begin() + std::ptrdiff_t(split * d_img));
    train->labels.assign(all.labels.begin(), all.labels.begin() + std::ptrdiff_t(split));
    test->images.assign(all.images.begin() + std::ptrdiff_t(split * d_img), all.images.end());
    test->labels.assign(all.labels.begin() + std::ptrdiff_t(split), all.labels.end());
    d.train_ = train, d.test_ = test;
  } else if (spec.kind == "corpus") {
    d.task_ = TaskKind::language_model;
    auto corpus = std::make_shared<TextCorpus>(TextCorpus::load(spec.corpus));
    d.train_tokens_ = corpus->train();
    d.heldout_tokens_ = corpus->heldout();
    d.vocab_size_ = corpus->vocab_size();
    d.corpus_ = corpus;
  } else if (spec.kind == "synthetic-text") {
    d.task_ = TaskKind::language_model;
    const auto n = spec.synthetic_train * (spec.seq_len + 1);
    auto tokens = make_synthetic_tokens(n + n / 4, spec.synthetic_vocab,
                                        spec.synthetic_branching, seed);
    d.train_tokens_.assign(tokens.begin(), tokens.begin() + std::ptrdiff_t(n));
    d.heldout_tokens_.assign(tokens.begin() + std::ptrdiff_t(n), tokens.end());
    d.vocab_size_ = spec.synthetic_vocab;
  } else {
    throw std::invalid_argument(fmt::format(
        "data.kind '{}' is unknown; known kinds: fashion-mnist, mnist, synthetic, corpus, "
        "synthetic-text",
        spec.kind));
  }
  if (d.task_ == TaskKind::language_model) {
    if (spec.seq_len < 1) {
      throw std::invalid_argument(fmt::format("data.seq_len {} must be >= 1", spec.seq_len));
    }
    const auto need = std::size_t(spec.seq_len + 1);
    if (d.train_tokens_.size() < need || d.heldout_tokens_.size() < need) {
      throw DataError(fmt::format(
          "corpus too small for data.seq_len {}: {} training and {} held-out tokens, each part "
          "needs at least {}; use a shorter seq_len or a larger corpus",
          spec.seq_len, d.train_tokens_.size(), d.heldout_tokens_.size(), need));
    }
  }
  return d;
}

std::int64_t TrainingData::num_train_items() const {
  if (task_ == TaskKind::classification) return train_->size();
  return (std::int64_t(train_tokens_.size()) - 1) / spec_.seq_len;
}

void TrainingData::adapt(NetworkSpec& spec) const {
  const bool lm = spec.preset == "lstm-lm";
  if (lm != (task_ == TaskKind::language_model)) {
    throw std::invalid_argument(fmt::format(
        "model {} does not fit data.kind '{}': lstm-lm needs a corpus (corpus, synthetic-text), "
        "the CNN/MLP presets need images (fashion-mnist, mnist, synthetic)",
        spec.preset.empty() ? "(custom layers)" : spec.preset, spec_.kind));
  }
  if (lm) {
    spec.vocab_size = vocab_size_;
  } else {
    spec.input = train_->shape;
    spec.num_classes = train_->num_classes;
  }
}

Partition TrainingData::partition(std::int64_t workers, std::uint64_t seed) const {
  if (spec_.partition.kind == PartitionKind::dirichlet) {
    if (task_ != TaskKind::classification) {
      throw std::invalid_argument(
          "data.partition dirichlet skews labels and needs a labelled image dataset; use iid "
          "for a language-model corpus");
    }
    return partition_dirichlet(train_->labels, train_->num_classes, workers,
                               spec_.partition.alpha, seed);
  }
  return partition_iid(num_train_items(), workers, seed);
}

void TrainingData::fill_batch(std::span<const std::int64_t> items, Batch& out) const {
  out.size = std::int64_t(items.size());
  const auto n = num_train_items();
  for (auto i : items) {
    if (i < 0 || i >= n) {
      throw std::out_of_range(fmt::format("fill_batch: item {} is outside [0, {})", i, n));
    }
  }
  if (task_ == TaskKind::classification) {
    const auto d = train_->shape.numel();
    out.inputs.resize(items.size() * std::size_t(d));
    out.labels.resize(items.size());
    out.tokens.clear();
    for (std::size_t k = 0; k < items.size(); ++k) {
      train_->copy_image(items[k], out.inputs.data() + k * std::size_t(d));
      out.labels[k] = train_->labels[std::size_t(items[k])];
    }
    return;
  }
  const auto w = std::size_t(spec_.seq_len + 1);
  out.inputs.clear();
  out.labels.clear();
  out.tokens.resize(items.size() * w);
  for (std::size_t k = 0; k < items.size(); ++k) {
    const auto src = train_tokens_.begin() + std::ptrdiff_t(items[k] * spec_.seq_len);
    std::copy(src, src + std::ptrdiff_t(w), out.tokens.begin() + std::ptrdiff_t(k * w));
  }
}

std::int64_t TrainingData::eval_batch_size(std::int64_t batch_size) const {
  if (batch_size < 0) throw std::invalid_argument("evaluate: batch_size must be >= 0");
  if (batch_size == 0) batch_size = task_ == TaskKind::classification ? 500 : spec_.batch_size;
  return batch_size;
}

std::int64_t TrainingData::eval_items() const {
  if (task_ == TaskKind::classification) {
    const auto n = test_->size();
    return spec_.eval_max > 0 ? std::min(spec_.eval_max, n) : n;
  }
  auto windows = (std::int64_t(heldout_tokens_.size()) - 1) / spec_.seq_len;
  return spec_.eval_max > 0 ? std::min(windows, spec_.eval_max) : windows;
}

std::int64_t TrainingData::eval_batches(std::int64_t batch_size) const {
  const auto b = eval_batch_size(batch_size);
  return (eval_items() + b - 1) / b;
}

BatchEval TrainingData::evaluate_part(const Network& net, std::span<const float> params, Workspace& ws,
                                      std::int64_t index, std::int64_t batch_size) const {
  batch_size = eval_batch_size(batch_size);
  const std::int64_t n = eval_items();
  const std::int64_t start = index * batch_size;
  if (index < 0 || start >= n) throw std::out_of_range("evaluate_part: no such evaluation batch");
  const auto b = std::min(batch_size, n - start);
  if (task_ == TaskKind::classification) {
    const auto& t = *test_;
    std::vector<float> pixels;  // local: parts run in parallel
    BatchView v{b, t.floats(start, b, pixels), std::span<const std::int32_t>(t.labels.data() + start, std::size_t(b)),
                {}};
    return net.evaluate_batch(params, v, ws);
  }
  const auto s = spec_.seq_len;
  std::vector<std::int32_t> tokens(std::size_t(b * (s + 1)));
  for (std::int64_t k = 0; k < b; ++k) {
    const auto src = heldout_tokens_.begin() + std::ptrdiff_t((start + k) * s);
    std::copy(src, src + s + 1, tokens.begin() + std::ptrdiff_t(k * (s + 1)));
  }
  return net.evaluate_batch(params, BatchView{b, {}, {}, tokens}, ws);
}

EvalResult TrainingData::eval_result(const BatchEval& sum) {
  EvalResult r;
  r.count = sum.count;
  r.loss = sum.count ? sum.loss_sum / double(sum.count) : 0.0;
  r.accuracy = sum.count ? double(sum.correct) / double(sum.count) : 0.0;
  r.perplexity = std::exp(r.loss);
  return r;
}

EvalResult TrainingData::evaluate(const Network& net, std::span<const float> params,
                                  Workspace& ws, std::int64_t batch_size) const {
  // Batch results are summed in batch order: a caller evaluating batches in parallel and
  // summing them in the same order gets the same bits.
  BatchEval sum;
  for (std::int64_t i = 0, n = eval_batches(batch_size); i < n; ++i) {
    const auto e = evaluate_part(net, params, ws, i, batch_size);
    sum.loss_sum += e.loss_sum, sum.correct += e.correct, sum.count += e.count;
  }
  return eval_result(sum);
}

double TrainingData::unigram_perplexity() const {
  if (task_ != TaskKind::language_model) {
    throw std::logic_error("unigram_perplexity: only for language-model data");
  }
  return models::unigram_perplexity(train_tokens_, heldout_tokens_, vocab_size_);
}

}  // namespace pssim::models
