// libFuzzer target: the text corpus reader (file, fortune directory, tokenizer, vocabulary)
// and the language-model data built on it.
//
// Input: two bytes of options (token level, vocabulary cap, held-out fraction, seq_len),
// then the text. The text is read as a plain file, as a fortune file in a directory, and
// tokenized; the corpus is checked for its invariants (<unk> is id 0, every id in the
// vocabulary, every token in the training or held-out part). Every input must load or
// fail with models::DataError; anything else is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "fuzz/memory_file.hpp"
#include "models/data/data_error.hpp"
#include "models/data/text_corpus.hpp"
#include "models/data/training_data.hpp"

namespace {

using pssim::fuzz::MemoryFile;
namespace models = pssim::models;

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "corpus invariant broken: %s\n", what);
  std::abort();
}

void check_corpus(const models::TextCorpus& c, std::size_t tokens) {
  check(c.vocab_size() >= 1 && c.vocab()[0] == "<unk>", "<unk> is id 0");
  check(c.train().size() + c.heldout().size() == tokens, "every token is in one part");
  for (const auto* part : {&c.train(), &c.heldout()})
    for (auto id : *part) check(id >= 0 && id < c.vocab_size(), "ids lie in the vocabulary");
  (void)c.decode(c.train());
}

template <typename Body>
void expect_data_error_or_success(Body body) {
  try {
    body();
  } catch (const models::DataError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    std::abort();
  }
}

// A directory holding one fortune file, rewritten for every input.
const std::filesystem::path& fortune_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("pssim-corpus-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const auto level = (data[0] & 1) ? models::TokenLevel::word : models::TokenLevel::character;
  const std::int64_t vocab_cap = (data[0] >> 1) & 7 ? ((data[0] >> 1) & 7) + 1 : 0;  // 0 or 2..8
  const double heldout = 0.05 + 0.45 * double(data[0] >> 4) / 15.0;                    // in (0, 0.5]
  const std::int64_t seq_len = 1 + data[1] % 16;
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);

  expect_data_error_or_success([&] {
    const auto c = models::TextCorpus::from_text(text, level, vocab_cap, heldout, "fuzz");
    std::size_t tokens = c.train().size() + c.heldout().size();
    if (level == models::TokenLevel::character) check(tokens == text.size(), "one token per byte");
    check_corpus(c, tokens);
    check(vocab_cap == 0 || c.vocab_size() <= vocab_cap, "the vocabulary cap holds");
  });
  const MemoryFile file(text);
  expect_data_error_or_success([&] { check(models::read_text_source(file.path()) == text, "a file reads as is"); });
  {
    std::ofstream(fortune_dir() / "fortunes", std::ios::binary | std::ios::trunc) << text;
    expect_data_error_or_success([&] {
      models::CorpusSpec spec;
      spec.path = fortune_dir().string();
      spec.level = level;
      const auto c = models::TextCorpus::load(spec);
      check_corpus(c, c.train().size() + c.heldout().size());
    });
  }
  expect_data_error_or_success([&] {
    models::DataSpec spec;
    spec.kind = "corpus";
    spec.corpus.path = file.path();
    spec.corpus.level = level;
    spec.corpus.vocab_cap = vocab_cap;
    spec.corpus.heldout_fraction = heldout;
    spec.seq_len = seq_len;
    const auto d = models::TrainingData::load(spec, 1);
    check(d.num_train_items() >= 1, "at least one training window");
    models::Batch batch;
    const std::int64_t last = d.num_train_items() - 1;
    d.fill_batch(std::span<const std::int64_t>(&last, 1), batch);
    for (auto t : batch.tokens) check(t >= 0 && t < d.vocab_size(), "batch tokens lie in the vocabulary");
    check(d.eval_batches() >= 1, "something to evaluate");
  });
  return 0;
}
