#include "sim/scenario/config_node.hpp"

#include <fmt/format.h>

namespace pssim::scenario {

ConfigNode ConfigNode::null(SourceLocation loc) {
  ConfigNode n;
  n.location_ = std::move(loc);
  return n;
}

ConfigNode ConfigNode::scalar(std::string text, SourceLocation loc, bool quoted) {
  ConfigNode n;
  n.kind_ = Kind::Scalar;
  n.text_ = std::move(text);
  n.quoted_ = quoted;
  n.location_ = std::move(loc);
  return n;
}

ConfigNode ConfigNode::sequence(SourceLocation loc) {
  ConfigNode n;
  n.kind_ = Kind::Sequence;
  n.location_ = std::move(loc);
  return n;
}

ConfigNode ConfigNode::map(SourceLocation loc) {
  ConfigNode n;
  n.kind_ = Kind::Map;
  n.location_ = std::move(loc);
  return n;
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  for (const auto& e : entries_)
    if (e.key == key) return &e.value;
  return nullptr;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  for (auto& e : entries_)
    if (e.key == key) return &e.value;
  return nullptr;
}

const ConfigNode& ConfigNode::at(std::string_view key) const {
  if (const ConfigNode* n = find(key)) return *n;
  throw ScenarioError(location_, fmt::format("missing key '{}'", key));
}

ConfigNode& ConfigNode::set(std::string key, SourceLocation key_location, ConfigNode value) {
  for (auto& e : entries_)
    if (e.key == key) {
      e.value = std::move(value);
      return e.value;
    }
  entries_.push_back({std::move(key), std::move(key_location), std::move(value)});
  return entries_.back().value;
}

ConfigNode& ConfigNode::insert_after(std::string_view previous, std::string key, SourceLocation key_location,
                                     ConfigNode value) {
  auto it = entries_.begin();
  while (it != entries_.end() && it->key != previous) ++it;
  if (it != entries_.end()) ++it;
  return entries_.insert(it, {std::move(key), std::move(key_location), std::move(value)})->value;
}

std::string ConfigNode::describe() const {
  switch (kind_) {
    case Kind::Null: return "an empty value";
    case Kind::Sequence: return "a list";
    case Kind::Map: return "a mapping";
    case Kind::Scalar: break;
  }
  std::string shown = text_.size() > 40 ? text_.substr(0, 37) + "..." : text_;
  return fmt::format("'{}'", shown);
}

}  // namespace pssim::scenario
