// The schema language of scenario files: what keys exist, their types, units, ranges,
// defaults and documentation.
//
// A Schema node is a scalar of some ValueType, a list of nodes, or a map of Fields. A map
// may be a *variant*: one of its keys (the discriminator, e.g. `kind`) selects an
// Alternative that adds its own fields, so `speed: {dist: lognormal, sigma: 0.3}` accepts
// `sigma` but `speed: {dist: constant, sigma: 0.3}` does not. The one schema drives
// validation (validate.hpp), the reference documentation (schema_markdown.hpp) and the
// resolved scenario written next to results, so the three cannot disagree.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pssim::scenario {

enum class ValueType {
  Count,      ///< whole number, optional K/M/G/T suffix
  Real,       ///< plain number
  Ratio,      ///< number or percentage
  Bool,
  String,     ///< free text
  Name,       ///< identifier: letters, digits, '.', '_', '-' (used in paths)
  Enum,       ///< one of Schema::choices
  Duration,   ///< value in seconds (parsed from 50us, 2ms ...), a whole number of ns
  FineDuration,  ///< value in seconds, may be below 1 ns (per-element costs: 0.25ns)
  Bandwidth,  ///< bytes per second
  Bytes,
  Flops,
  FlopRate,
  Path,       ///< a file system path, relative to the file that wrote it (scenario_paths.hpp)
  ModuleReference,  ///< "path/to/file.py:function", its path as a Path's
};

/// Human name of a type with its unit, for messages and docs ("bandwidth (e.g. 10Gbps)").
std::string describe_type(ValueType type);

struct Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

struct Field {
  std::string name;
  SchemaPtr schema;
  std::string doc;
  /// Value used when the key is absent, written as a user would write it ("10Gbps",
  /// "{}" for a section whose own keys all have defaults).
  std::optional<std::string> default_value;
  bool required = false;  ///< absent and no default: an error if required, else omitted
};

struct Alternative {
  std::string name;
  std::string doc;
  std::vector<Field> fields;
};

struct Schema {
  enum class Kind { Scalar, List, Map } kind = Kind::Scalar;

  // Scalar
  ValueType type = ValueType::String;
  std::vector<std::string> choices;  ///< Enum: allowed spellings
  /// Range in base units (seconds, bytes, bytes/s, FLOP, FLOP/s, plain numbers).
  std::optional<double> min, max;
  bool min_exclusive = false;

  // List
  SchemaPtr element;
  std::size_t min_items = 0;
  std::size_t max_items = std::numeric_limits<std::size_t>::max();

  // Map
  std::vector<Field> fields;  ///< for a variant: the fields shared by every alternative
  std::string discriminator;  ///< non-empty: variant map selected by this key
  std::string discriminator_doc;
  std::optional<std::string> default_alternative;
  std::vector<Alternative> alternatives;

  bool is_variant() const { return !discriminator.empty(); }
  const Alternative* find_alternative(const std::string& name) const;
  const Field* find_field(const std::string& name) const;  ///< shared fields only
};

// ---- Builders, so that the scenario schema reads as a table ------------------------------

/// A scalar of `type` with an optional range [min, max] in base units.
SchemaPtr scalar(ValueType type, std::optional<double> min = {}, std::optional<double> max = {});
/// A scalar with an exclusive lower bound (> min).
SchemaPtr scalar_above(ValueType type, double min, std::optional<double> max = {});
SchemaPtr enumeration(std::vector<std::string> choices);
SchemaPtr list_of(SchemaPtr element, std::size_t min_items = 0,
                  std::size_t max_items = std::numeric_limits<std::size_t>::max());
SchemaPtr map_of(std::vector<Field> fields);
/// A variant map: `discriminator` picks one of `alternatives`; `shared` fields apply to all.
SchemaPtr variant(std::string discriminator, std::string discriminator_doc,
                  std::optional<std::string> default_alternative, std::vector<Alternative> alternatives,
                  std::vector<Field> shared = {});

Field required(std::string name, SchemaPtr schema, std::string doc);
Field optional(std::string name, SchemaPtr schema, std::string default_value, std::string doc);
/// A key that may be absent with no default (the feature it controls is then off).
Field omittable(std::string name, SchemaPtr schema, std::string doc);
/// A nested section whose keys have their own defaults (absent = all defaults).
Field section(std::string name, SchemaPtr schema, std::string doc);

}  // namespace pssim::scenario
