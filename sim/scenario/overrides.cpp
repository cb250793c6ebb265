#include "sim/scenario/overrides.hpp"

#include <charconv>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/scenario/yaml_loader.hpp"

namespace pssim::scenario {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '.') {
      parts.emplace_back(path.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

// Re-anchors every location of a parsed override value to the override text, so errors
// show the override and the column of the value within it.
void relocate(ConfigNode& node, const std::string& source, int column_offset) {
  auto fix = [&](SourceLocation& loc) {
    loc = {source, 1, (loc.line <= 1 ? loc.column : 1) + column_offset};
  };
  SourceLocation loc = node.location();
  fix(loc);
  ConfigNode copy = node;
  switch (node.kind()) {
    case ConfigNode::Kind::Null: copy = ConfigNode::null(loc); break;
    case ConfigNode::Kind::Scalar: copy = ConfigNode::scalar(node.text(), loc, node.quoted()); break;
    case ConfigNode::Kind::Sequence: {
      copy = ConfigNode::sequence(loc);
      for (auto item : node.items()) {
        relocate(item, source, column_offset);
        copy.items().push_back(std::move(item));
      }
      break;
    }
    case ConfigNode::Kind::Map: {
      copy = ConfigNode::map(loc);
      for (auto e : node.entries()) {
        relocate(e.value, source, column_offset);
        fix(e.key_location);
        copy.entries().push_back(std::move(e));
      }
      break;
    }
  }
  node = std::move(copy);
}

// What YAML reads as null ("~", "null", an empty value), tested on the text: the YAML
// loader takes a lone null for an empty file.
bool is_null_word(std::string_view text) {
  const auto first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
  if (first == std::string_view::npos) return true;
  const std::string_view word = text.substr(first, last - first + 1);
  return word == "~" || word == "null" || word == "Null" || word == "NULL";
}

// Removes `key` from `map` (nothing when absent).
void remove_key(ConfigNode& map, const std::string& key) {
  std::erase_if(map.entries(), [&](const MapEntry& e) { return e.key == key; });
}

}  // namespace

void apply_override(ConfigNode& root, std::string_view assignment) {
  const std::string source = fmt::format("<--set {}>", assignment);
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw ScenarioError({source, 1, 1}, "an override is written path.to.key=value (e.g. cluster.workers.count=32)");
  const std::string_view path = assignment.substr(0, eq);
  const std::string_view value_text = assignment.substr(eq + 1);
  ConfigNode value = ConfigNode::null({source, 1, static_cast<int>(eq) + 2});
  if (!is_null_word(value_text)) {
    // A plain value parses as itself; YAML syntax allows lists and mappings on the line.
    value = load_yaml_string(value_text, source);
    relocate(value, source, static_cast<int>(eq) + 1);
  }
  set_at_path(root, path, std::move(value), {source, 1, 1});
}

void set_at_path(ConfigNode& root, std::string_view path, ConfigNode value, const SourceLocation& where) {
  const auto parts = split_path(path);
  for (const auto& p : parts)
    if (p.empty()) throw ScenarioError(where, fmt::format("empty key in path '{}'", path));
  ConfigNode* node = &root;
  int column = where.column;  // of the current path segment: errors point at it
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& key = parts[i];
    const bool last = i + 1 == parts.size();
    const SourceLocation key_loc{where.source, where.line, column};
    if (node->is_sequence()) {
      std::size_t index = 0;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
      if (ec != std::errc() || end != key.data() + key.size())
        throw ScenarioError(key_loc, fmt::format("'{}' is a list; index it with a number, not '{}'",
                                                 fmt::join(parts.begin(), parts.begin() + static_cast<long>(i), "."), key));
      if (index >= node->items().size())
        throw ScenarioError(key_loc, fmt::format("index {} is past the end of a list of {} items", index,
                                                 node->items().size()));
      if (last && value.is_null())
        throw ScenarioError(key_loc, fmt::format("cannot remove item {} of the list '{}': set the whole list "
                                                 "instead",
                                                 index, fmt::join(parts.begin(), parts.begin() + static_cast<long>(i),
                                                                  ".")));
      node = &node->items()[index];
      if (last) *node = value;
    } else {
      if (last && value.is_null()) {
        if (node->is_map()) remove_key(*node, key);
        return;  // nothing to remove under a null or a scalar
      }
      if (node->is_null()) *node = ConfigNode::map(key_loc);
      if (!node->is_map())
        throw ScenarioError(key_loc, fmt::format("cannot set '{}': '{}' holds a single value, not keys", path,
                                                 fmt::join(parts.begin(), parts.begin() + static_cast<long>(i), ".")));
      ConfigNode* child = node->find(key);
      if (last) {
        node->set(key, key_loc, value);
      } else {
        if (!child && value.is_null()) return;  // nothing to remove: make no maps for it
        node = child ? child : &node->set(key, key_loc, ConfigNode::map(key_loc));
      }
    }
    column += static_cast<int>(key.size()) + 1;
  }
}

}  // namespace pssim::scenario
