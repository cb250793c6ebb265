// TextCorpus: a token stream for the LSTM language model, from plain English text.
//
// Levels: character (each byte is a token) or word (lower-cased runs of letters, digits
// and apostrophes; every other visible character is a token of its own; a blank line is
// the token "<eos>"). The vocabulary is built from the training part only, most frequent
// first (ties in byte order); with a cap V, the V-1 most frequent tokens are kept and the
// rest become "<unk>", which is always id 0. The held-out part (the last
// `heldout_fraction` of the tokens) measures perplexity.
//
// Default source: the `fortunes` Debian package (/usr/share/games/fortunes: about 2.4 MB
// of English quotations, jokes, poems and definitions in ~45 plain-text files, each
// fortune ended by a "%" line). A directory is read as such a fortune collection: its
// regular files without an extension, in name order, "%" lines dropped, fortunes
// separated by blank lines. A file is read as is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pssim::models {

enum class TokenLevel { character, word };

inline constexpr const char* kDefaultCorpusDir = "/usr/share/games/fortunes";
/// The most text read from a file or directory (256 MiB: text8 and enwik8 fit). Tokens
/// cost 4 bytes each, twice (stream and split), so a character-level corpus of this size
/// takes about 2 GB while it is built.
inline constexpr std::uintmax_t kMaxCorpusBytes = std::uintmax_t(256) << 20;

/// Scenario keys: data.{corpus, level, vocab_cap, heldout}.
struct CorpusSpec {
  std::string path;               ///< file or fortune directory; empty: kDefaultCorpusDir
  TokenLevel level = TokenLevel::character;
  std::int64_t vocab_cap = 0;     ///< 0: no cap; else vocabulary size including <unk>
  double heldout_fraction = 0.1;  ///< in (0, 0.5]
};

TokenLevel parse_token_level(std::string_view name);  ///< "char" | "character" | "word"

/// The text of a file, or of a fortune directory (see above). Throws DataError naming the
/// path when it is missing (for the default: which package to install), unreadable, not
/// a regular file or directory (a device would never end), or over kMaxCorpusBytes.
std::string read_text_source(const std::string& path);
/// The files read_text_source reads for `path` (empty: kDefaultCorpusDir): the path itself
/// when it is not a directory, else the directory's fortune files in name order. Throws
/// DataError when the directory cannot be listed.
std::vector<std::filesystem::path> corpus_files(const std::string& path);

class TextCorpus {
 public:
  /// Tokenizes `text` (any bytes). Throws DataError naming `source` when the text yields
  /// too few tokens for a training and a held-out part ("empty corpus"), and
  /// std::invalid_argument for a heldout_fraction outside (0, 0.5] or a vocab_cap of 1.
  static TextCorpus from_text(std::string_view text, TokenLevel level, std::int64_t vocab_cap,
                              double heldout_fraction, const std::string& source);
  /// read_text_source(spec.path or default) then from_text.
  static TextCorpus load(const CorpusSpec& spec);

  std::int64_t vocab_size() const { return std::int64_t(vocab_.size()); }
  const std::vector<std::string>& vocab() const { return vocab_; }
  const std::vector<std::int32_t>& train() const { return train_; }
  const std::vector<std::int32_t>& heldout() const { return heldout_; }
  TokenLevel level() const { return level_; }
  const std::string& source() const { return source_; }
  /// Tokens back to text (words joined by spaces).
  std::string decode(const std::vector<std::int32_t>& ids) const;

 private:
  TokenLevel level_ = TokenLevel::character;
  std::string source_;
  std::vector<std::string> vocab_;
  std::vector<std::int32_t> train_, heldout_;
};

/// Perplexity of the add-one-smoothed unigram model of `train` on `heldout`:
/// exp(-mean log p(w)), p(w) = (count(w) + 1) / (N + V). The baseline an LM must beat.
double unigram_perplexity(const std::vector<std::int32_t>& train,
                          const std::vector<std::int32_t>& heldout, std::int64_t vocab_size);

}  // namespace pssim::models
