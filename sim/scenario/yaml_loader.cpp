#include "sim/scenario/yaml_loader.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>
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

struct Converter {
  const std::string& source;
  std::size_t nodes = 0;

  SourceLocation where(const YAML::Mark& m) const {
    if (m.is_null()) return {source, 0, 0};
    return {source, m.line + 1, m.column + 1};
  }

  ConfigNode convert(const YAML::Node& node, int depth) {
    const SourceLocation loc = where(node.Mark());
    if (++nodes > kMaxNodes)
      throw ScenarioError(loc, fmt::format("more than {} values (recursive aliases?); a scenario is much smaller", kMaxNodes));
    if (depth > kMaxDepth)
      throw ScenarioError(loc, fmt::format("nesting deeper than {} levels; a scenario needs at most a few", kMaxDepth));
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: return ConfigNode::null(loc);
      case YAML::NodeType::Scalar: return ConfigNode::scalar(node.Scalar(), loc, node.Tag() == "!");
      case YAML::NodeType::Sequence: {
        ConfigNode seq = ConfigNode::sequence(loc);
        for (const auto& item : node) seq.items().push_back(convert(item, depth + 1));
        return seq;
      }
      case YAML::NodeType::Map: {
        ConfigNode map = ConfigNode::map(loc);
        for (const auto& kv : node) {
          const SourceLocation key_loc = where(kv.first.Mark());
          if (!kv.first.IsScalar())
            throw ScenarioError(key_loc, "a key must be a plain name, not a list or mapping");
          const std::string key = kv.first.Scalar();
          for (const auto& existing : map.entries())
            if (existing.key == key)
              throw ScenarioError(key_loc, fmt::format("duplicate key '{}' (first given at line {})", key,
                                                       existing.key_location.line));
          map.entries().push_back({key, key_loc, convert(kv.second, depth + 1)});
        }
        return map;
      }
    }
    throw ScenarioError(loc, "unsupported YAML node");
  }
};

}  // namespace

ConfigNode load_yaml_string(std::string_view text, const std::string& source) {
  if (text.size() > kMaxFileBytes)
    throw ScenarioError({source, 0, 0}, fmt::format("file is {} bytes; a scenario may be at most {} bytes", text.size(),
                                                    kMaxFileBytes));
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte-order mark
  check_text(text, source);
  check_block_depth(text, source);
  check_flow_depth(text, source);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    SourceLocation loc{source, 0, 0};
    if (!e.mark.is_null()) loc = {source, e.mark.line + 1, e.mark.column + 1};
    throw ScenarioError(loc, fmt::format("not valid YAML: {}", e.msg));
  }
  if (documents.size() > 1)
    throw ScenarioError({source, 0, 0}, fmt::format("holds {} YAML documents; a scenario file holds exactly one",
                                                    documents.size()));
  if (documents.empty() || documents[0].IsNull())
    throw ScenarioError({source, 0, 0}, "file is empty; a scenario is a mapping of keys such as 'name:' and 'cluster:'");
  Converter converter{source};
  try {
    return converter.convert(documents[0], 0);
  } catch (const YAML::Exception& e) {
    throw ScenarioError({source, e.mark.line + 1, e.mark.column + 1}, fmt::format("not valid YAML: {}", e.msg));
  }
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
