#include "sim/scenario/yaml_loader.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace pssim::scenario {
namespace {

// Finds the first byte sequence that is not valid UTF-8, or a control character YAML
// forbids; reports its line and column (columns count bytes, from 1).
void check_text(std::string_view text, const std::string& source) {
  int line = 1, column = 1;
  std::size_t i = 0;
  const auto fail = [&](const std::string& what) { throw ScenarioError({source, line, column}, what); };
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    if (c < 0x80) {
      if (c == '\n') {
        ++line;
        column = 1;
        ++i;
        continue;
      }
      if (c < 0x20 && c != '\t' && c != '\r') fail(fmt::format("control character 0x{:02x} is not allowed in YAML", c));
      if (c == 0x7f) fail("control character 0x7f is not allowed in YAML");
    } else {
      std::uint32_t code_point = 0;
      if ((c & 0xe0) == 0xc0) length = 2, code_point = c & 0x1f;
      else if ((c & 0xf0) == 0xe0) length = 3, code_point = c & 0x0f;
      else if ((c & 0xf8) == 0xf0) length = 4, code_point = c & 0x07;
      else fail(fmt::format("byte 0x{:02x} is not valid UTF-8 (save the file as UTF-8)", c));
      if (i + length > text.size()) fail("truncated UTF-8 sequence at the end of the file");
      for (std::size_t k = 1; k < length; ++k) {
        const auto cc = static_cast<unsigned char>(text[i + k]);
        if ((cc & 0xc0) != 0x80) fail(fmt::format("byte 0x{:02x} is not valid UTF-8 (save the file as UTF-8)", c));
        code_point = (code_point << 6) | (cc & 0x3f);
      }
      const bool overlong = (length == 2 && code_point < 0x80) || (length == 3 && code_point < 0x800) ||
                            (length == 4 && code_point < 0x10000);
      if (overlong || code_point > 0x10ffff || (code_point >= 0xd800 && code_point <= 0xdfff))
        fail(fmt::format("byte 0x{:02x} starts an invalid UTF-8 sequence (save the file as UTF-8)", c));
    }
    i += length;
    ++column;
  }
}

// yaml-cpp's own depth guard allows 2000 levels, enough to exhaust the stack of a
// sanitizer build. Flow collections nest deeply in few bytes, so counting brackets outside
// quotes and comments rejects such input before yaml-cpp recurses. (A heuristic: an
// apostrophe in a plain scalar hides brackets after it; the converter's own depth check
// and yaml-cpp's guard remain behind it.)
// Block nesting: each deeper indentation (and each "- " on a line) opens a level.
void check_block_depth(std::string_view text, const std::string& source) {
  std::vector<std::size_t> indents;
  int line = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(start, end - start);
    ++line;
    start = end + 1;
    std::size_t indent = l.find_first_not_of(' ');
    if (indent == std::string_view::npos || l[indent] == '#') continue;
    while (!indents.empty() && indents.back() > indent) indents.pop_back();
    if (indents.empty() || indents.back() < indent) indents.push_back(indent);
    std::size_t dashes = 0;
    for (std::size_t i = indent; i + 1 < l.size() && l[i] == '-' && (l[i + 1] == ' ' || l[i + 1] == '\t'); i += 2)
      ++dashes;
    if (indents.size() + dashes > static_cast<std::size_t>(kMaxDepth))
      throw ScenarioError({source, line, static_cast<int>(indent) + 1},
                          fmt::format("nesting deeper than {} levels; a scenario needs at most a few", kMaxDepth));
    if (end == text.size()) break;
  }
}

void check_flow_depth(std::string_view text, const std::string& source) {
  int depth = 0, line = 1, column = 0;
  char quote = 0;
  bool comment = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line, column = 0, comment = false;
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') comment = true;
    else if (c == '"' || c == '\'') quote = c;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        throw ScenarioError({source, line, column},
                            fmt::format("nesting deeper than {} levels; a scenario needs at most a few", kMaxDepth));
    } else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
}

std::size_t subtree_size(const ConfigNode& n) {
  std::size_t size = 1;
  for (const auto& item : n.items()) size += subtree_size(item);
  for (const auto& e : n.entries()) size += subtree_size(e.value);
  return size;
}

// Builds a ConfigNode tree from yaml-cpp's parser events. Building our tree directly
// (instead of YAML::Load + conversion) lets us bound the work done for aliases and
// read exactly one document: YAML::LoadAll loops forever on some invalid streams
// (yaml-cpp issue 1040, fixed after 0.7).
class TreeBuilder : public YAML::EventHandler {
 public:
  explicit TreeBuilder(const std::string& source) : source_(source) {}

  std::optional<ConfigNode>& root() { return root_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { add(ConfigNode::null(where(mark)), anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw ScenarioError(where(mark), "alias to an unknown anchor");
    count(subtree_size(it->second), mark);
    add(it->second, YAML::NullAnchor);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    add(ConfigNode::scalar(value, where(mark), tag == "!"), anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(ConfigNode::sequence(where(mark)), anchor, mark);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(ConfigNode::map(where(mark)), anchor, mark);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    ConfigNode node;
    YAML::anchor_t anchor;
    bool have_key = false;
    std::string key;
    SourceLocation key_location;
  };

  SourceLocation where(const YAML::Mark& m) const {
    if (m.is_null()) return {source_, 0, 0};
    return {source_, m.line + 1, m.column + 1};
  }

  void count(std::size_t n, const YAML::Mark& mark) {
    nodes_ += n;
    if (nodes_ > kMaxNodes)
      throw ScenarioError(where(mark),
                          fmt::format("more than {} values (recursive aliases?); a scenario is much smaller", kMaxNodes));
  }

  void open(ConfigNode node, YAML::anchor_t anchor, const YAML::Mark& mark) {
    count(1, mark);
    if (stack_.size() >= static_cast<std::size_t>(kMaxDepth))
      throw ScenarioError(where(mark), fmt::format("nesting deeper than {} levels; a scenario needs at most a few", kMaxDepth));
    stack_.push_back({std::move(node), anchor, false, {}, {}});
  }

  void close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    add(std::move(frame.node), frame.anchor);
  }

  void add(ConfigNode node, YAML::anchor_t anchor) {
    if (node.is_null() || node.is_scalar()) nodes_ += 1;
    if (anchor != YAML::NullAnchor) anchors_[anchor] = node;
    if (stack_.empty()) {
      if (!root_) root_ = std::move(node);
      return;
    }
    Frame& parent = stack_.back();
    if (parent.node.is_sequence()) {
      parent.node.items().push_back(std::move(node));
      return;
    }
    if (!parent.have_key) {
      if (!node.is_scalar()) throw ScenarioError(node.location(), "a key must be a plain name, not a list or mapping");
      parent.key = node.text();
      parent.key_location = node.location();
      parent.have_key = true;
      return;
    }
    for (const auto& existing : parent.node.entries())
      if (existing.key == parent.key)
        throw ScenarioError(parent.key_location, fmt::format("duplicate key '{}' (first given at line {})", parent.key,
                                                             existing.key_location.line));
    parent.node.entries().push_back({parent.key, parent.key_location, std::move(node)});
    parent.have_key = false;
  }

  const std::string& source_;
  std::vector<Frame> stack_;
  std::optional<ConfigNode> root_;
  std::map<YAML::anchor_t, ConfigNode> anchors_;
  std::size_t nodes_ = 0;
};

// Position of the first character that is neither blank, a comment, nor a document marker.
SourceLocation first_content(std::string_view text, const std::string& source) {
  int line = 1;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(start, end - start);
    const std::size_t c = l.find_first_not_of(" \t\r");
    if (c != std::string_view::npos && l[c] != '#' && l.substr(c, 3) != "---" && l.substr(c, 3) != "...")
      return {source, line, static_cast<int>(c) + 1};
    ++line;
    start = end + 1;
  }
  return {source, 0, 0};
}

}  // namespace

ConfigNode load_yaml_string(std::string_view text, const std::string& source) {
  if (text.size() > kMaxFileBytes)
    throw ScenarioError({source, 0, 0}, fmt::format("file is {} bytes; a scenario may be at most {} bytes", text.size(),
                                                    kMaxFileBytes));
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte-order mark
  check_text(text, source);
  check_block_depth(text, source);
  check_flow_depth(text, source);
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  TreeBuilder first(source);
  try {
    parser.HandleNextDocument(first);
    if (first.root() && !first.root()->is_null()) {
      TreeBuilder second(source);
      if (parser.HandleNextDocument(second) && second.root() && !second.root()->is_null())
        throw ScenarioError(second.root()->location(), "a second YAML document; a scenario file holds exactly one");
    }
  } catch (const YAML::Exception& e) {
    SourceLocation loc{source, 0, 0};
    if (!e.mark.is_null()) loc = {source, e.mark.line + 1, e.mark.column + 1};
    throw ScenarioError(loc, fmt::format("not valid YAML: {}", e.msg));
  }
  if (!first.root() || first.root()->is_null()) {
    // An empty document, or one that is only "~" / "null", is empty; anything else that
    // yields no value is text yaml-cpp skipped without complaint (a stray ',').
    const SourceLocation content = first_content(text, source);
    if (content.line > 0) {
      std::string_view rest = text;
      std::size_t line_start = 0;
      for (int l = 1; l < content.line; ++l) line_start = rest.find('\n', line_start) + 1;
      const std::string_view token = rest.substr(line_start + static_cast<std::size_t>(content.column) - 1, 4);
      const bool null_word = token.substr(0, 1) == "~" || token == "null" || token == "Null" || token == "NULL";
      if (!null_word) throw ScenarioError(content, "not valid YAML: no value could be read here");
    }
    throw ScenarioError({source, 0, 0}, "file is empty; a scenario is a mapping of keys such as 'name:' and 'cluster:'");
  }
  return std::move(*first.root());
}

ConfigNode load_yaml_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw ScenarioError({path, 0, 0}, "no such file (check the path; scenarios live in scenarios/)");
  if (fs::is_directory(status)) throw ScenarioError({path, 0, 0}, "is a directory, not a scenario file");
  if (!fs::is_regular_file(status)) throw ScenarioError({path, 0, 0}, "is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxFileBytes)
    throw ScenarioError({path, 0, 0},
                        fmt::format("file is {} bytes; a scenario may be at most {} bytes", size, kMaxFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError({path, 0, 0}, fmt::format("cannot open: {}", std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ScenarioError({path, 0, 0}, "read error");
  return load_yaml_string(buffer.str(), path);
}

}  // namespace pssim::scenario
