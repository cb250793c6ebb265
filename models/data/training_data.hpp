// TrainingData: the data side of an experiment, behind one interface for both tasks —
// load from a DataSpec, partition among workers, assemble batches, evaluate.
//
// Items: a classification item is one training image; a language-model item is one
// window of seq_len + 1 consecutive training tokens, window k starting at token k*seq_len
// (consecutive windows overlap by the one token that is predicted by one and read by the
// next). Evaluation: the whole test split (or its first eval_max images), or every full
// window of the held-out tokens (a tail shorter than seq_len + 1 is not scored).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/data/image_dataset.hpp"
#include "models/data/partition.hpp"
#include "models/data/text_corpus.hpp"
#include "models/nets/network.hpp"
#include "models/nets/network_spec.hpp"

namespace pssim::models {

/// Scenario keys: data.{kind, path, batch_size, partition, pixel_mean, pixel_std, seq_len,
/// corpus, level, vocab_cap, heldout, train_items, test_items, eval_max}
/// (docs/scenario-reference.md).
struct DataSpec {
  /// fashion-mnist (Debian's files, or `path`) | mnist (`path` required) |
  /// synthetic (random prototypes, see data/synthetic.hpp) | corpus (text for lstm-lm) |
  /// synthetic-text (Markov-chain tokens for lstm-lm)
  std::string kind = "fashion-mnist";
  std::string path;                 ///< fashion-mnist / mnist: directory of IDX files
  std::int64_t batch_size = 64;
  PartitionSpec partition;
  PixelScaling pixels;
  CorpusSpec corpus;                ///< kind corpus
  std::int64_t seq_len = 35;        ///< language model: tokens predicted per sequence
  std::int64_t synthetic_train = 4096, synthetic_test = 1024;
  double synthetic_noise = 1.0;     ///< synthetic images: per-pixel noise std
  std::int64_t synthetic_vocab = 50, synthetic_branching = 3;  ///< synthetic-text
  std::int64_t eval_max = 0;        ///< > 0: evaluate on the first eval_max test images or
                                    ///< held-out windows only
};

/// A batch owning its memory; reused across calls (capacity is kept).
struct Batch {
  std::int64_t size = 0;
  std::vector<float> inputs;          ///< [B, C*H*W]
  std::vector<std::int32_t> labels;   ///< [B]
  std::vector<std::int32_t> tokens;   ///< [B, S+1]
  BatchView view() const { return BatchView{size, inputs, labels, tokens}; }
};

struct EvalResult {
  double loss = 0.0;        ///< mean NLL per image / per token
  double accuracy = 0.0;    ///< fraction of arg-max hits (next-token accuracy for a LM)
  double perplexity = 0.0;  ///< exp(loss); meaningful for language models
  std::int64_t count = 0;   ///< predictions scored
};

class TrainingData {
 public:
  /// Loads or generates the data. `seed` seeds the synthetic kinds. Throws DataError for a
  /// data file that is missing or bad, an empty split, training and test files that do
  /// not fit together (image size, a test label beyond the training classes) or a corpus
  /// too small for seq_len, and std::invalid_argument for a bad field; both name the file
  /// or field and the fix. Everything is checked here, so evaluation cannot fail later.
  static TrainingData load(const DataSpec& spec, std::uint64_t seed);
  /// Classification data already in memory (datasets handed over from Python): `spec`
  /// gives batch_size, partition and eval_max. Checks the pair as load() does (the same
  /// item shape, test labels within the training classes); throws DataError otherwise.
  static TrainingData from_images(const DataSpec& spec, ImageDataset train, ImageDataset test);

  TaskKind task() const { return task_; }
  const DataSpec& spec() const { return spec_; }
  /// Training items (images, or token windows).
  std::int64_t num_train_items() const;
  /// Sets the data-dependent fields of a network spec: input shape and num_classes, or
  /// vocab_size. Throws if the spec's preset does not fit the task.
  void adapt(NetworkSpec& spec) const;

  /// Items of each of `workers` workers, by spec().partition (dirichlet: images only).
  Partition partition(std::int64_t workers, std::uint64_t seed) const;
  /// Copies the given training items into `out` (no allocation once capacity suffices).
  void fill_batch(std::span<const std::int64_t> items, Batch& out) const;

  /// Loss and accuracy (classification) or perplexity (language model) on the test
  /// split / held-out tokens, in evaluation mode, `batch_size` items at a time (0: 500
  /// images, or data.batch_size sequences — a language model's logits take
  /// batch * seq_len * vocab floats).
  EvalResult evaluate(const Network& net, std::span<const float> params, Workspace& ws,
                      std::int64_t batch_size = 0) const;

  /// The same evaluation in parts, for callers that evaluate batches in parallel: the
  /// result of evaluate() is eval_result() of the evaluate_part() results of batches
  /// 0 .. eval_batches()-1 summed in that order.
  std::int64_t eval_batches(std::int64_t batch_size = 0) const;
  BatchEval evaluate_part(const Network& net, std::span<const float> params, Workspace& ws, std::int64_t index,
                          std::int64_t batch_size = 0) const;
  static EvalResult eval_result(const BatchEval& sum);

  const ImageDataset* train_images() const { return train_.get(); }
  const ImageDataset* test_images() const { return test_.get(); }
  const TextCorpus* corpus() const { return corpus_.get(); }
  /// Language model: the training / held-out token streams.
  std::span<const std::int32_t> train_tokens() const { return train_tokens_; }
  std::span<const std::int32_t> heldout_tokens() const { return heldout_tokens_; }
  std::int64_t vocab_size() const { return vocab_size_; }
  /// Add-one unigram perplexity of the held-out tokens (the baseline to beat).
  double unigram_perplexity() const;

 private:
  std::int64_t eval_batch_size(std::int64_t batch_size) const;
  std::int64_t eval_items() const;

  DataSpec spec_;
  TaskKind task_ = TaskKind::classification;
  std::shared_ptr<const ImageDataset> train_, test_;
  std::shared_ptr<const TextCorpus> corpus_;
  std::vector<std::int32_t> train_tokens_, heldout_tokens_;
  std::int64_t vocab_size_ = 0;
};

}  // namespace pssim::models
