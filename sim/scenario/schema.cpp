#include "sim/scenario/schema.hpp"

namespace pssim::scenario {

std::string describe_type(ValueType type) {
  switch (type) {
    case ValueType::Count: return "whole number (e.g. 16, 25M)";
    case ValueType::Real: return "number";
    case ValueType::Ratio: return "fraction (e.g. 0.01 or 1%)";
    case ValueType::Bool: return "true/false";
    case ValueType::String: return "text";
    case ValueType::Name: return "name (letters, digits, . _ -)";
    case ValueType::Enum: return "one of the listed words";
    case ValueType::Duration: return "duration (e.g. 50us, 2ms, 120s)";
    case ValueType::FineDuration: return "duration, fractions of a ns allowed (e.g. 0.5ns, 2ns)";
    case ValueType::Bandwidth: return "bandwidth (e.g. 10Gbps, 1.25GB/s)";
    case ValueType::Bytes: return "size (e.g. 4.8MB, 512KiB)";
    case ValueType::Flops: return "operations (e.g. 4GFLOP)";
    case ValueType::FlopRate: return "throughput (e.g. 2TFLOPS)";
    case ValueType::Path: return "file path";
    case ValueType::ModuleReference: return "module reference (path/to/file.py:function)";
  }
  return "value";
}

const Alternative* Schema::find_alternative(const std::string& name) const {
  for (const auto& a : alternatives)
    if (a.name == name) return &a;
  return nullptr;
}

const Field* Schema::find_field(const std::string& name) const {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

SchemaPtr scalar(ValueType type, std::optional<double> min, std::optional<double> max) {
  auto s = std::make_shared<Schema>();
  s->kind = Schema::Kind::Scalar;
  s->type = type;
  s->min = min;
  s->max = max;
  return s;
}

SchemaPtr scalar_above(ValueType type, double min, std::optional<double> max) {
  auto s = std::make_shared<Schema>(*scalar(type, min, max));
  s->min_exclusive = true;
  return s;
}

SchemaPtr enumeration(std::vector<std::string> choices) {
  auto s = std::make_shared<Schema>();
  s->kind = Schema::Kind::Scalar;
  s->type = ValueType::Enum;
  s->choices = std::move(choices);
  return s;
}

SchemaPtr list_of(SchemaPtr element, std::size_t min_items, std::size_t max_items) {
  auto s = std::make_shared<Schema>();
  s->kind = Schema::Kind::List;
  s->element = std::move(element);
  s->min_items = min_items;
  s->max_items = max_items;
  return s;
}

SchemaPtr map_of(std::vector<Field> fields) {
  auto s = std::make_shared<Schema>();
  s->kind = Schema::Kind::Map;
  s->fields = std::move(fields);
  return s;
}

SchemaPtr variant(std::string discriminator, std::string discriminator_doc,
                  std::optional<std::string> default_alternative, std::vector<Alternative> alternatives,
                  std::vector<Field> shared) {
  auto s = std::make_shared<Schema>();
  s->kind = Schema::Kind::Map;
  s->discriminator = std::move(discriminator);
  s->discriminator_doc = std::move(discriminator_doc);
  s->default_alternative = std::move(default_alternative);
  s->alternatives = std::move(alternatives);
  s->fields = std::move(shared);
  return s;
}

Field required(std::string name, SchemaPtr schema, std::string doc) {
  return {std::move(name), std::move(schema), std::move(doc), std::nullopt, true};
}

Field optional(std::string name, SchemaPtr schema, std::string default_value, std::string doc) {
  return {std::move(name), std::move(schema), std::move(doc), std::move(default_value), false};
}

Field omittable(std::string name, SchemaPtr schema, std::string doc) {
  return {std::move(name), std::move(schema), std::move(doc), std::nullopt, false};
}

Field section(std::string name, SchemaPtr schema, std::string doc) {
  return {std::move(name), std::move(schema), std::move(doc), std::string("{}"), false};
}

}  // namespace pssim::scenario
