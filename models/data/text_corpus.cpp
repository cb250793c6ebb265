#include "models/data/text_corpus.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "models/data/data_error.hpp"

namespace pssim::models {
namespace fs = std::filesystem;

TokenLevel parse_token_level(std::string_view name) {
  if (name == "char" || name == "character") return TokenLevel::character;
  if (name == "word") return TokenLevel::word;
  throw std::invalid_argument(fmt::format("data.level '{}' is unknown; use 'char' or 'word'", name));
}

namespace {

// The text of one file, if it is a regular file and at most `budget` bytes long (what is
// left of kMaxCorpusBytes).
std::string read_file(const fs::path& path, std::uintmax_t budget) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw DataError(fmt::format("corpus '{}' is not a regular file or a directory; set data.corpus to a plain text "
                                "file or a fortune directory",
                                path.string()));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > budget) {
    throw DataError(fmt::format("corpus '{}' holds {} bytes, more than the {} MiB of text pssim reads: give an "
                                "extract of it in data.corpus",
                                path.string(), size, kMaxCorpusBytes >> 20));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in || ec) {
    throw DataError(fmt::format("corpus file '{}' cannot be opened; check its permissions", path.string()));
  }
  std::string text(std::size_t(size), '\0');
  in.read(text.data(), std::streamsize(size));
  if (std::uintmax_t(in.gcount()) != size || in.peek() != std::char_traits<char>::eof()) {
    throw DataError(fmt::format("corpus file '{}' changed or could not be read while it was read ({} bytes "
                                "expected)",
                                path.string(), size));
  }
  return text;
}

// A fortune file: fortunes separated by lines holding only "%"; joined by blank lines.
std::string fortunes_text(const std::string& raw) {
  std::string out;
  std::istringstream in(raw);
  std::string line;
  bool pending_break = false;
  while (std::getline(in, line)) {
    if (line == "%") {
      pending_break = true;
      continue;
    }
    if (pending_break && !out.empty()) out += "\n";
    pending_break = false;
    out += line;
    out += "\n";
  }
  return out;
}

// Calls emit(token) for every token of `text`, in order (levels: see the header).
template <typename Emit>
void tokenize(std::string_view text, TokenLevel level, Emit&& emit) {
  if (level == TokenLevel::character) {
    for (std::size_t i = 0; i < text.size(); ++i) emit(text.substr(i, 1));
    return;
  }
  std::string word;
  int newlines = 0;
  bool any = false;
  auto token = [&](std::string_view t) {
    emit(t);
    any = true;
  };
  auto flush = [&] {
    if (!word.empty()) token(word), word.clear();
  };
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '\'' || c >= 0x80) {  // UTF-8 bytes stay inside words
      if (newlines >= 2 && any) token("<eos>");
      newlines = 0;
      word += char(std::tolower(c));
      continue;
    }
    flush();
    if (c == '\n') {
      ++newlines;
    } else if (std::isgraph(c)) {
      if (newlines >= 2 && any) token("<eos>");
      newlines = 0;
      const char one = char(c);
      token(std::string_view(&one, 1));
    }
  }
  flush();
}

// Tokens as ids in order of first appearance, 4 bytes per token (a string per token
// would cost 32 bytes per character of a character-level corpus).
class Interner {
 public:
  Interner() { byte_ids_.fill(-1); }
  void add(std::string_view token) {
    if (token.size() != 1) {
      stream_.push_back(intern(token));
      return;
    }
    std::int32_t& id = byte_ids_[static_cast<unsigned char>(token[0])];
    if (id < 0) id = intern(token);
    stream_.push_back(id);
  }
  const std::vector<std::int32_t>& stream() const { return stream_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::int32_t intern(std::string_view token) {
    const auto [it, fresh] = ids_.try_emplace(std::string(token), std::int32_t(names_.size()));
    if (fresh) names_.emplace_back(token);
    return it->second;
  }
  std::array<std::int32_t, 256> byte_ids_;  // ids of one-byte tokens, -1 until seen
  std::unordered_map<std::string, std::int32_t> ids_;
  std::vector<std::string> names_;
  std::vector<std::int32_t> stream_;
};

}  // namespace

std::vector<fs::path> corpus_files(const std::string& path_in) {
  const fs::path path = path_in.empty() ? fs::path(kDefaultCorpusDir) : fs::path(path_in);
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    // Fortune data files have no extension; .dat (strfile index) and .u8 are not text.
    if (entry.is_regular_file() && !entry.is_symlink() && !entry.path().has_extension()) {
      files.push_back(entry.path());
    }
  }
  if (ec) throw DataError(fmt::format("corpus directory '{}' cannot be read: {}", path.string(), ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_text_source(const std::string& path_in) {
  const bool is_default = path_in.empty();
  const fs::path path = is_default ? fs::path(kDefaultCorpusDir) : fs::path(path_in);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw DataError(fmt::format(
        "corpus '{}' does not exist; {}", path.string(),
        is_default ? "install the Debian package that provides the default corpus "
                     "(apt-get install fortunes) or set data.corpus to a plain text file"
                   : "set data.corpus to a plain text file or a fortune directory"));
  }
  if (!fs::is_directory(path, ec)) return read_file(path, kMaxCorpusBytes);
  std::string text;
  std::uintmax_t read = 0;
  for (const auto& f : corpus_files(path.string())) {
    const std::string raw = read_file(f, kMaxCorpusBytes - read);
    read += raw.size();
    text += fortunes_text(raw) + "\n";
  }
  return text;
}

TextCorpus TextCorpus::from_text(std::string_view text, TokenLevel level, std::int64_t vocab_cap,
                                 double heldout_fraction, const std::string& source) {
  if (!(heldout_fraction > 0 && heldout_fraction <= 0.5)) {
    throw std::invalid_argument(fmt::format("data.heldout {} must be in (0, 0.5]", heldout_fraction));
  }
  if (vocab_cap == 1 || vocab_cap < 0) {
    throw std::invalid_argument(
        fmt::format("data.vocab_cap {} must be 0 (no cap) or >= 2 (<unk> plus one token)", vocab_cap));
  }
  Interner interner;
  tokenize(text, level, [&](std::string_view t) { interner.add(t); });
  const std::vector<std::int32_t>& tokens = interner.stream();
  const std::vector<std::string>& names = interner.names();
  const auto n_heldout = std::size_t(double(tokens.size()) * heldout_fraction);
  const auto n_train = tokens.size() - n_heldout;
  if (n_heldout < 2 || n_train < 2) {
    throw DataError(fmt::format(
        "corpus '{}' is empty or too small: {} {} token(s), need at least 2 for training and "
        "2 held out; give a larger plain text file in data.corpus",
        source, tokens.size(), level == TokenLevel::character ? "character" : "word"));
  }
  // Vocabulary: the training part's tokens, most frequent first, ties in byte order.
  std::vector<std::int64_t> counts(names.size(), 0);
  for (std::size_t i = 0; i < n_train; ++i) ++counts[std::size_t(tokens[i])];
  std::vector<std::int32_t> by_freq;
  for (std::size_t t = 0; t < names.size(); ++t)
    if (counts[t] > 0) by_freq.push_back(std::int32_t(t));
  std::sort(by_freq.begin(), by_freq.end(), [&](std::int32_t a, std::int32_t b) {
    return counts[std::size_t(a)] != counts[std::size_t(b)] ? counts[std::size_t(a)] > counts[std::size_t(b)]
                                                            : names[std::size_t(a)] < names[std::size_t(b)];
  });
  TextCorpus c;
  c.level_ = level;
  c.source_ = source;
  c.vocab_.push_back("<unk>");
  std::vector<std::int32_t> id_of(names.size(), 0);  // interned id -> vocabulary id (0: <unk>)
  for (const std::int32_t t : by_freq) {
    if (vocab_cap > 0 && std::int64_t(c.vocab_.size()) >= vocab_cap) break;
    if (names[std::size_t(t)] == "<unk>") continue;
    id_of[std::size_t(t)] = std::int32_t(c.vocab_.size());
    c.vocab_.push_back(names[std::size_t(t)]);
  }
  c.train_.reserve(n_train);
  c.heldout_.reserve(n_heldout);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    (i < n_train ? c.train_ : c.heldout_).push_back(id_of[std::size_t(tokens[i])]);
  }
  return c;
}

TextCorpus TextCorpus::load(const CorpusSpec& spec) {
  const std::string source = spec.path.empty() ? kDefaultCorpusDir : spec.path;
  return from_text(read_text_source(spec.path), spec.level, spec.vocab_cap,
                   spec.heldout_fraction, source);
}

std::string TextCorpus::decode(const std::vector<std::int32_t>& ids) const {
  std::string out;
  for (auto id : ids) {
    const auto& tok = vocab_.at(std::size_t(id));
    if (level_ == TokenLevel::word && !out.empty()) out += ' ';
    out += tok;
  }
  return out;
}

double unigram_perplexity(const std::vector<std::int32_t>& train,
                          const std::vector<std::int32_t>& heldout, std::int64_t vocab_size) {
  if (heldout.empty()) throw std::invalid_argument("unigram_perplexity: empty held-out tokens");
  std::vector<double> counts(std::size_t(vocab_size), 1.0);
  for (auto t : train) counts.at(std::size_t(t)) += 1.0;
  const double total = double(train.size()) + double(vocab_size);
  double nll = 0;
  for (auto t : heldout) nll -= std::log(counts.at(std::size_t(t)) / total);
  return std::exp(nll / double(heldout.size()));
}

}  // namespace pssim::models
