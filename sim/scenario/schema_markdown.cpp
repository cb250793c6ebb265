#include "sim/scenario/schema_markdown.hpp"

#include <fmt/format.h>

namespace pssim::scenario {
namespace {

std::string escape_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string range_text(const Schema& s) {
  auto show = [&](double v) {
    switch (s.type) {
      case ValueType::Duration:
      case ValueType::FineDuration: return fmt::format("{}s", v);
      case ValueType::Count: return fmt::format("{}", static_cast<long long>(v));
      default: return fmt::format("{}", v);
    }
  };
  if (s.min && s.max)
    return s.min_exclusive ? fmt::format("> {}, ≤ {}", show(*s.min), show(*s.max))
                           : fmt::format("{} … {}", show(*s.min), show(*s.max));
  if (s.min) return fmt::format("{} {}", s.min_exclusive ? ">" : "≥", show(*s.min));
  if (s.max) return fmt::format("≤ {}", show(*s.max));
  return "";
}

std::string type_text(const Schema& s) {
  switch (s.kind) {
    case Schema::Kind::Map: return s.is_variant() ? "mapping (variant)" : "mapping";
    case Schema::Kind::List: {
      std::string t = "list of " + type_text(*s.element);
      if (s.min_items > 0) t += fmt::format(", ≥ {} items", s.min_items);
      return t;
    }
    case Schema::Kind::Scalar: break;
  }
  if (s.type == ValueType::Enum) {
    std::string words;
    for (const auto& c : s.choices) words += (words.empty() ? "`" : ", `") + c + "`";
    return "one of " + words;
  }
  std::string t = describe_type(s.type);
  const std::string r = range_text(s);
  return r.empty() ? t : t + ", " + r;
}

class Writer {
 public:
  std::string out;

  void section(const std::string& path, const Schema& schema, const std::string& doc) {
    out += fmt::format("\n## `{}`\n\n", path.empty() ? "(top level)" : path);
    if (!doc.empty()) out += doc + "\n\n";
    std::vector<std::pair<std::string, const Schema*>> nested;
    std::vector<std::string> nested_docs;
    table(path, schema.fields, schema.is_variant() ? &schema : nullptr, nested, nested_docs);
    for (const auto& alt : schema.alternatives) {
      out += fmt::format("\n### `{}: {}`\n\n{}\n\n", schema.discriminator, alt.name, alt.doc);
      if (alt.fields.empty()) {
        out += "No further keys.\n";
        continue;
      }
      table(path, alt.fields, nullptr, nested, nested_docs);
    }
    for (std::size_t i = 0; i < nested.size(); ++i) section(nested[i].first, *nested[i].second, nested_docs[i]);
  }

 private:
  void table(const std::string& path, const std::vector<Field>& fields, const Schema* variant,
             std::vector<std::pair<std::string, const Schema*>>& nested, std::vector<std::string>& nested_docs) {
    out += "| key | type | default | meaning |\n|---|---|---|---|\n";
    if (variant) {
      std::vector<std::string> names;
      std::string words;
      for (const auto& a : variant->alternatives) words += (words.empty() ? "`" : ", `") + a.name + "`";
      out += fmt::format("| `{}` | one of {} | {} | {} |\n", variant->discriminator, words,
                         variant->default_alternative ? "`" + *variant->default_alternative + "`" : "required",
                         escape_cell(variant->discriminator_doc));
    }
    for (const auto& f : fields) {
      const std::string full = path.empty() ? f.name : path + "." + f.name;
      const Schema* element = f.schema->kind == Schema::Kind::List ? f.schema->element.get() : nullptr;
      std::string def = f.required ? "required" : f.default_value ? "`" + *f.default_value + "`" : "(unset)";
      if (f.schema->kind == Schema::Kind::Map) {
        def = f.required ? "required" : "see section";
        nested.emplace_back(full, f.schema.get());
        nested_docs.push_back(f.doc);
      } else if (element && element->kind == Schema::Kind::Map) {
        nested.emplace_back(full + "[]", element);
        nested_docs.push_back("Each item of `" + full + "`.");
      }
      out += fmt::format("| `{}` | {} | {} | {} |\n", f.name, escape_cell(type_text(*f.schema)), def,
                         escape_cell(f.doc));
    }
  }
};

}  // namespace

std::string schema_markdown(const Schema& root, const std::string& title, const std::string& intro) {
  Writer w;
  w.out = fmt::format("# {}\n\n{}\n", title, intro);
  w.section("", root, "");
  return w.out;
}

}  // namespace pssim::scenario
