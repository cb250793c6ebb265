#include "models/data/text_corpus.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

namespace pssim::models {
namespace fs = std::filesystem;

TokenLevel parse_token_level(std::string_view name) {
  if (name == "char" || name == "character") return TokenLevel::character;
  if (name == "word") return TokenLevel::word;
  throw std::invalid_argument(
      fmt::format("data.corpus.level '{}' is unknown; use 'char' or 'word'", name));
}

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(
        fmt::format("corpus file '{}' cannot be opened; check its permissions", path.string()));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
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

std::vector<std::string> tokenize(std::string_view text, TokenLevel level) {
  std::vector<std::string> tokens;
  if (level == TokenLevel::character) {
    tokens.reserve(text.size());
    for (char c : text) tokens.emplace_back(1, c);
    return tokens;
  }
  std::string word;
  int newlines = 0;
  auto flush = [&] {
    if (!word.empty()) tokens.push_back(std::move(word)), word.clear();
  };
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '\'' || c >= 0x80) {  // UTF-8 bytes stay inside words
      if (newlines >= 2 && !tokens.empty()) tokens.emplace_back("<eos>");
      newlines = 0;
      word += char(std::tolower(c));
      continue;
    }
    flush();
    if (c == '\n') {
      ++newlines;
    } else if (std::isgraph(c)) {
      if (newlines >= 2 && !tokens.empty()) tokens.emplace_back("<eos>");
      newlines = 0;
      tokens.emplace_back(1, char(c));
    }
  }
  flush();
  return tokens;
}

}  // namespace

std::string read_text_source(const std::string& path_in) {
  const bool is_default = path_in.empty();
  const fs::path path = is_default ? fs::path(kDefaultCorpusDir) : fs::path(path_in);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw std::runtime_error(fmt::format(
        "corpus '{}' does not exist; {}", path.string(),
        is_default ? "install the Debian package that provides the default corpus "
                     "(apt-get install fortunes) or set data.corpus.path to a plain text file"
                   : "set data.corpus.path to a plain text file or a fortune directory"));
  }
  if (!fs::is_directory(path, ec)) return read_file(path);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path)) {
    // Fortune data files have no extension; .dat (strfile index) and .u8 are not text.
    if (entry.is_regular_file() && !entry.is_symlink() && !entry.path().has_extension()) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& f : files) text += fortunes_text(read_file(f)) + "\n";
  return text;
}

TextCorpus TextCorpus::from_text(std::string_view text, TokenLevel level, std::int64_t vocab_cap,
                                 double heldout_fraction, const std::string& source) {
  if (!(heldout_fraction > 0 && heldout_fraction <= 0.5)) {
    throw std::invalid_argument(fmt::format(
        "data.corpus.heldout_fraction {} must be in (0, 0.5]", heldout_fraction));
  }
  if (vocab_cap == 1 || vocab_cap < 0) {
    throw std::invalid_argument(fmt::format(
        "data.corpus.vocab_cap {} must be 0 (no cap) or >= 2 (<unk> plus one token)", vocab_cap));
  }
  const auto tokens = tokenize(text, level);
  const auto n_heldout = std::size_t(double(tokens.size()) * heldout_fraction);
  const auto n_train = tokens.size() - n_heldout;
  if (n_heldout < 2 || n_train < 2) {
    throw std::runtime_error(fmt::format(
        "corpus '{}' is empty or too small: {} {} token(s), need at least 2 for training and "
        "2 held out; give a larger plain text file in data.corpus.path",
        source, tokens.size(), level == TokenLevel::character ? "character" : "word"));
  }
  std::unordered_map<std::string, std::int64_t> counts;
  for (std::size_t i = 0; i < n_train; ++i) ++counts[tokens[i]];
  std::vector<std::pair<std::string, std::int64_t>> by_freq(counts.begin(), counts.end());
  std::sort(by_freq.begin(), by_freq.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  TextCorpus c;
  c.level_ = level;
  c.source_ = source;
  c.vocab_.push_back("<unk>");
  std::unordered_map<std::string, std::int32_t> ids;
  for (const auto& [tok, cnt] : by_freq) {
    if (vocab_cap > 0 && std::int64_t(c.vocab_.size()) >= vocab_cap) break;
    if (tok == "<unk>") continue;
    ids.emplace(tok, std::int32_t(c.vocab_.size()));
    c.vocab_.push_back(tok);
  }
  auto id_of = [&](const std::string& t) {
    auto it = ids.find(t);
    return it == ids.end() ? 0 : it->second;
  };
  c.train_.reserve(n_train);
  c.heldout_.reserve(n_heldout);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    (i < n_train ? c.train_ : c.heldout_).push_back(id_of(tokens[i]));
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
