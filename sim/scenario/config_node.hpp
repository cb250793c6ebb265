// ConfigNode: a YAML document as a plain tree that remembers where every value came from.
//
// The scenario pipeline works on this tree: the loader builds it from a file, overrides
// edit it, the validator checks it against the schema and fills in defaults, and the
// writer prints the resolved result. Keeping our own tree (instead of yaml-cpp's nodes)
// gives every key and value a source location, including values set on the command line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario_error.hpp"

namespace pssim::scenario {

class ConfigNode;

struct MapEntry;

class ConfigNode {
 public:
  enum class Kind { Null, Scalar, Sequence, Map };

  static ConfigNode null(SourceLocation loc);
  static ConfigNode scalar(std::string text, SourceLocation loc, bool quoted = false);
  static ConfigNode sequence(SourceLocation loc);
  static ConfigNode map(SourceLocation loc);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_sequence() const { return kind_ == Kind::Sequence; }
  bool is_map() const { return kind_ == Kind::Map; }
  const SourceLocation& location() const { return location_; }

  /// Scalar text exactly as written (without quotes).
  const std::string& text() const { return text_; }
  /// True when the scalar was quoted in YAML: it is then a string, never a number.
  bool quoted() const { return quoted_; }

  const std::vector<ConfigNode>& items() const { return items_; }
  std::vector<ConfigNode>& items() { return items_; }
  const std::vector<MapEntry>& entries() const;
  std::vector<MapEntry>& entries();

  /// Map lookup; nullptr when absent. O(number of keys).
  const ConfigNode* find(std::string_view key) const;
  ConfigNode* find(std::string_view key);
  /// Map lookup of a key that must exist (the validator guarantees required keys);
  /// throws ScenarioError at this node's location otherwise.
  const ConfigNode& at(std::string_view key) const;
  /// Adds or replaces a map entry, keeping file order for existing keys.
  ConfigNode& set(std::string key, SourceLocation key_location, ConfigNode value);
  /// Adds a new map entry right after the entry `previous` (at the end if absent).
  ConfigNode& insert_after(std::string_view previous, std::string key, SourceLocation key_location, ConfigNode value);

  /// "a sequence", "a mapping", "the number 3", ... for error messages.
  std::string describe() const;

 private:
  Kind kind_ = Kind::Null;
  SourceLocation location_;
  std::string text_;
  bool quoted_ = false;
  std::vector<ConfigNode> items_;
  std::vector<MapEntry> entries_;
};

struct MapEntry {
  std::string key;
  SourceLocation key_location;
  ConfigNode value;
};

inline const std::vector<MapEntry>& ConfigNode::entries() const { return entries_; }
inline std::vector<MapEntry>& ConfigNode::entries() { return entries_; }

}  // namespace pssim::scenario
