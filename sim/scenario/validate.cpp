#include "sim/scenario/validate.hpp"

#include <cmath>
#include <fmt/format.h>

#include "sim/scenario/scenario_paths.hpp"
#include "sim/scenario/suggest.hpp"
#include "sim/scenario/units.hpp"

namespace pssim::scenario {
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string child_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string where_in(const std::string& path) { return path.empty() ? "at the top level" : "in " + path; }

std::string format_base(ValueType type, double v) {
  switch (type) {
    case ValueType::Count: return fmt::format("{}", static_cast<long long>(v));
    case ValueType::Duration:
    case ValueType::FineDuration: return fmt::format("{}s", v);
    case ValueType::Bandwidth: return fmt::format("{}B/s", v);
    case ValueType::Bytes: return fmt::format("{}B", v);
    case ValueType::Flops: return fmt::format("{}FLOP", v);
    case ValueType::FlopRate: return fmt::format("{}FLOPS", v);
    default: return fmt::format("{}", v);
  }
}

class Validator {
 public:
  std::vector<Diagnostic> problems;

  void error(const SourceLocation& loc, std::string message) { problems.push_back({loc, std::move(message)}); }

  // Location in the user's input nearest to the node being checked: errors inside a
  // section the user left out (filled from defaults) point at its closest written parent.
  std::vector<SourceLocation> written_;

  ConfigNode node(const ConfigNode& in, const Schema& schema, const std::string& path) {
    const bool written = in.location().line > 0;
    if (written) written_.push_back(in.location());
    ConfigNode out = dispatch(in, schema, path);
    if (written) written_.pop_back();
    return out;
  }

  SourceLocation blame(const ConfigNode& in) const {
    if (in.location().line > 0 || written_.empty()) return in.location();
    return written_.back();
  }

 private:
  ConfigNode dispatch(const ConfigNode& in, const Schema& schema, const std::string& path) {
    switch (schema.kind) {
      case Schema::Kind::Scalar: return scalar_node(in, schema, path);
      case Schema::Kind::List: return list_node(in, schema, path);
      case Schema::Kind::Map: return map_node(in, schema, path);
    }
    return in;
  }

  ConfigNode scalar_node(const ConfigNode& in, const Schema& schema, const std::string& path) {
    if (in.is_null()) {
      error(in.location(), fmt::format("{} has no value; expected a {}", path, describe_type(schema.type)));
      return in;
    }
    if (!in.is_scalar()) {
      error(in.location(), fmt::format("{} must be a {}, not {}", path,
                                       schema.type == ValueType::Enum ? "word (one of " + join(schema.choices) + ")"
                                                                      : describe_type(schema.type),
                                       in.describe()));
      return in;
    }
    const std::string& text = in.text();
    switch (schema.type) {
      case ValueType::String:
        return in;
      case ValueType::Path:
        if (text.empty()) {
          error(in.location(), fmt::format("{} is an empty path", path));
          return in;
        }
        return ConfigNode::scalar(resolve_scenario_path(text, in.location()), in.location(), in.quoted());
      case ValueType::ModuleReference: {
        const auto colon = text.rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == text.size() ||
            text.find_first_of("/.", colon) != std::string::npos) {
          error(in.location(), fmt::format("{} = '{}' is not a module reference: write path/to/file.py:function (a "
                                           "function of no arguments)",
                                           path, text));
          return in;
        }
        return ConfigNode::scalar(resolve_module_reference(text, in.location()), in.location(), in.quoted());
      }
      case ValueType::Name:
        if (!is_valid_name(text))
          error(in.location(), fmt::format("{} = '{}' is not a valid name (use letters, digits, '.', '_', '-'; at "
                                           "most 100 characters)",
                                           path, text));
        return in;
      case ValueType::Enum: {
        for (const auto& c : schema.choices)
          if (c == text) return in;
        std::string message = fmt::format("{} = '{}' is not one of: {}", path, text, join(schema.choices));
        if (auto near = nearest_name(text, schema.choices)) message += fmt::format("; did you mean '{}'?", *near);
        error(in.location(), message);
        return in;
      }
      default:
        break;
    }
    double value = 0;
    try {
      value = scalar_value(text, schema.type);
    } catch (const UnitError& e) {
      error(in.location(), fmt::format("{}: {}", path, e.what()));
      return in;
    }
    if (schema.min && (schema.min_exclusive ? !(value > *schema.min) : value < *schema.min))
      error(in.location(), fmt::format("{} = {} is out of range: must be {} {}", path, text,
                                       schema.min_exclusive ? "greater than" : "at least",
                                       format_base(schema.type, *schema.min)));
    else if (schema.max && value > *schema.max)
      error(in.location(), fmt::format("{} = {} is out of range: must be at most {}", path, text,
                                       format_base(schema.type, *schema.max)));
    return in;
  }

  ConfigNode list_node(const ConfigNode& in, const Schema& schema, const std::string& path) {
    if (!in.is_sequence()) {
      error(in.location(), fmt::format("{} must be a list (e.g. [a, b]), not {}", path, in.describe()));
      return in;
    }
    const std::size_t n = in.items().size();
    if (n < schema.min_items || n > schema.max_items) {
      const std::string bound = n < schema.min_items ? fmt::format("at least {}", schema.min_items)
                                                     : fmt::format("at most {}", schema.max_items);
      error(in.location(), fmt::format("{} has {} items; it needs {}", path, n, bound));
      if (n > schema.max_items) return in;
    }
    ConfigNode out = ConfigNode::sequence(in.location());
    for (std::size_t i = 0; i < n; ++i)
      out.items().push_back(node(in.items()[i], *schema.element, fmt::format("{}[{}]", path, i)));
    return out;
  }

  void add_field(ConfigNode& out, const ConfigNode& in, const Field& field, const std::string& path) {
    const std::string child = child_path(path, field.name);
    for (const auto& e : in.entries())
      if (e.key == field.name) {
        out.set(e.key, e.key_location, node(e.value, *field.schema, child));
        return;
      }
    if (field.default_value) {
      SourceLocation loc{"default of " + child, 0, 0};
      // Sections default to "{}" (all their own defaults) and lists to "[]".
      ConfigNode value = field.schema->kind == Schema::Kind::Map    ? ConfigNode::map(loc)
                         : field.schema->kind == Schema::Kind::List ? ConfigNode::sequence(loc)
                                                                    : ConfigNode::scalar(*field.default_value, loc);
      out.set(field.name, loc, node(value, *field.schema, child));
    } else if (field.required) {
      error(blame(in), fmt::format("missing required key '{}' {}", field.name, where_in(path)));
    }
  }

  ConfigNode map_node(const ConfigNode& in_raw, const Schema& schema, const std::string& path) {
    ConfigNode in = in_raw.is_null() ? ConfigNode::map(in_raw.location()) : in_raw;
    if (!in.is_map()) {
      std::string message = fmt::format("{} must be a mapping of keys, not {}", path.empty() ? "the scenario" : path,
                                        in.describe());
      // `protocol: async` for `protocol: {mode: async}`: a variant's alternative, written alone.
      if (schema.is_variant() && in.is_scalar() && schema.find_alternative(in.text()))
        message += fmt::format("; write {}: {{{}: {}}}", path, schema.discriminator, in.text());
      error(in.location(), message);
      return in;
    }
    ConfigNode out = ConfigNode::map(in.location());
    const Alternative* chosen = nullptr;
    if (schema.is_variant()) {
      std::vector<std::string> names;
      for (const auto& a : schema.alternatives) names.push_back(a.name);
      const Field selector{schema.discriminator, enumeration(names), schema.discriminator_doc,
                           schema.default_alternative, !schema.default_alternative.has_value()};
      const std::size_t before = problems.size();
      add_field(out, in, selector, path);
      if (problems.size() == before)
        if (const ConfigNode* picked = out.find(schema.discriminator)) chosen = schema.find_alternative(picked->text());
      if (!chosen) return out;  // unknown alternative: reported; its keys cannot be checked
    }
    std::vector<std::string> allowed;
    if (schema.is_variant()) allowed.push_back(schema.discriminator);
    for (const auto& f : schema.fields) allowed.push_back(f.name);
    if (chosen)
      for (const auto& f : chosen->fields) allowed.push_back(f.name);

    for (const auto& e : in.entries()) {
      bool known = false;
      for (const auto& a : allowed) known = known || a == e.key;
      if (known) continue;
      std::string message = fmt::format("unknown key '{}' {}", e.key, where_in(path));
      const Alternative* owner = nullptr;
      for (const auto& alt : schema.alternatives)
        for (const auto& f : alt.fields)
          if (f.name == e.key && !owner) owner = &alt;
      if (owner)
        message = fmt::format("key '{}' {} applies only when {} is '{}' (here it is '{}')", e.key, where_in(path),
                              schema.discriminator, owner->name, chosen->name);
      else if (auto near = nearest_name(e.key, allowed))
        message += fmt::format("; did you mean '{}'?", *near);
      else
        message += fmt::format(" (known keys: {})", join(allowed));
      error(e.key_location, message);
    }
    for (const auto& f : schema.fields) add_field(out, in, f, path);
    if (chosen)
      for (const auto& f : chosen->fields) add_field(out, in, f, path);
    return out;
  }
};

ScenarioError located(const ConfigNode& node, const std::exception& e) {
  return ScenarioError(node.location(), e.what());
}

const std::string& require_scalar(const ConfigNode& node) {
  if (!node.is_scalar()) throw ScenarioError(node.location(), "expected a single value, found " + node.describe());
  return node.text();
}

template <typename Parse>
auto parse_at(const ConfigNode& node, Parse parse) {
  const std::string& text = require_scalar(node);
  try {
    return parse(text);
  } catch (const UnitError& e) {
    throw located(node, e);
  }
}

}  // namespace

bool is_valid_name(const std::string& s) {
  if (s.empty() || s.size() > 100 || s == "." || s == "..") return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

double scalar_value(std::string_view text, ValueType type) {
  switch (type) {
    case ValueType::Count: return static_cast<double>(parse_count(text));
    case ValueType::Real: return parse_number(text);
    case ValueType::Ratio: return parse_ratio(text);
    case ValueType::Bool: return parse_bool(text) ? 1.0 : 0.0;
    case ValueType::Duration: return to_seconds(parse_duration(text));
    case ValueType::FineDuration: return parse_fine_duration(text);
    case ValueType::Bandwidth: return parse_bandwidth(text);
    case ValueType::Bytes: return parse_bytes(text);
    case ValueType::Flops: return parse_flops(text);
    case ValueType::FlopRate: return parse_flop_rate(text);
    default: return 0.0;
  }
}

ConfigNode validate(const ConfigNode& input, const Schema& schema) {
  Validator v;
  ConfigNode resolved = v.node(input, schema, "");
  if (!v.problems.empty()) throw ScenarioError(std::move(v.problems));
  return resolved;
}

std::int64_t as_count(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_count(t); }); }
double as_real(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_ratio(t); }); }
bool as_bool(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_bool(t); }); }
TimeNs as_duration(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_duration(t); }); }
double as_seconds(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_fine_duration(t); }); }
double as_bandwidth(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_bandwidth(t); }); }
double as_bytes(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_bytes(t); }); }
double as_flops(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_flops(t); }); }
double as_flop_rate(const ConfigNode& node) { return parse_at(node, [](auto& t) { return parse_flop_rate(t); }); }
const std::string& as_text(const ConfigNode& node) { return require_scalar(node); }

}  // namespace pssim::scenario
