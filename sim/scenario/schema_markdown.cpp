#include "sim/scenario/schema_markdown.hpp"

#include <cctype>
#include <map>
#include <string>
#include <vector>

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

// GitHub's anchor of a "## `path`" heading: lower case, punctuation other than '-' and '_'
// dropped, spaces as '-'.
std::string anchor(const std::string& path) {
  std::string a;
  for (char c : path) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') a += static_cast<char>(std::tolower(c));
    else if (c == ' ') a += '-';
  }
  return a;
}

// Sections are written depth first, each nested mapping after the table that holds it. A
// path reached from several variants (data.partition under three data kinds, the NICs
// under two topologies) is written once, where it first appears; the other tables refer
// to it. Should two variants ever give one path different contents, both are written,
// the later one headed with the variant it belongs to.
class Writer {
 public:
  std::string out;

  void section(const std::string& path, const Schema& schema, const std::string& doc, const std::string& variant = "") {
    std::string body;
    if (!doc.empty()) body += doc + "\n\n";
    std::vector<Nested> nested;
    table(body, path, schema.fields, schema.is_variant() ? &schema : nullptr, nested, "");
    // The same alternative under another path (compression.push and .pull share their
    // kinds) is written once; later paths list it in one line that refers to the first.
    std::map<std::string, std::string> referred;  // first path -> alternatives written there
    for (const auto& alt : schema.alternatives) {
      const std::string name = fmt::format("`{}: {}`", schema.discriminator, alt.name);
      std::string text = alt.doc + "\n\n";
      if (alt.fields.empty()) text += "No further keys.\n";
      else table(text, path, alt.fields, nullptr, nested, fmt::format("{}: {}", schema.discriminator, alt.name));
      const auto [first, fresh] = alternatives_.emplace(name + without_path(text, path), path);
      if (fresh) body += fmt::format("\n### {}\n\n{}", name, text);
      else referred[first->second] += (referred[first->second].empty() ? "" : ", ") + name;
    }
    for (const auto& [first, names] : referred)
      body += fmt::format("\n{}: as under [`{}`](#{}).\n", names, first, anchor(first));
    const std::string title = path.empty() ? "(top level)" : path;
    const auto seen = written_.find(title);
    if (seen != written_.end() && seen->second == body) return;
    out += seen == written_.end() ? fmt::format("\n## `{}`\n\n", title)
                                  : fmt::format("\n## `{}` (with `{}`)\n\n", title, variant);
    out += body;
    written_.emplace(title, std::move(body));
    for (const auto& n : nested) section(n.path, *n.schema, n.doc, n.variant);
  }

 private:
  struct Nested {
    std::string path;
    const Schema* schema;
    std::string doc, variant;
  };

  void table(std::string& body, const std::string& path, const std::vector<Field>& fields, const Schema* variant,
             std::vector<Nested>& nested, const std::string& alternative) {
    body += "| key | type | default | meaning |\n|---|---|---|---|\n";
    if (variant) {
      std::string words;
      for (const auto& a : variant->alternatives) words += (words.empty() ? "`" : ", `") + a.name + "`";
      body += fmt::format("| `{}` | one of {} | {} | {} |\n", variant->discriminator, words,
                          variant->default_alternative ? "`" + *variant->default_alternative + "`" : "required",
                          escape_cell(variant->discriminator_doc));
    }
    for (const auto& f : fields) {
      const std::string full = path.empty() ? f.name : path + "." + f.name;
      const Schema* element = f.schema->kind == Schema::Kind::List ? f.schema->element.get() : nullptr;
      std::string def = f.required ? "required" : f.default_value ? "`" + *f.default_value + "`" : "(unset)";
      if (f.schema->kind == Schema::Kind::Map) {
        def = (f.required ? "required, see " : "see ") + fmt::format("[`{}`](#{})", full, anchor(full));
        nested.push_back({full, f.schema.get(), f.doc, alternative});
      } else if (element && element->kind == Schema::Kind::Map) {
        nested.push_back({full + "[]", element, "Each item of `" + full + "`.", alternative});
      }
      body += fmt::format("| `{}` | {} | {} | {} |\n", f.name, escape_cell(type_text(*f.schema)), def,
                          escape_cell(f.doc));
    }
  }

  // An alternative's text with its own path taken out, to compare it across paths.
  static std::string without_path(std::string text, const std::string& path) {
    for (std::size_t at = text.find(path); at != std::string::npos; at = text.find(path, at)) text.erase(at, path.size());
    return text;
  }

  std::map<std::string, std::string> written_;       // path -> body written under it
  std::map<std::string, std::string> alternatives_;  // heading + text -> path it was written under
};

}  // namespace

std::string schema_markdown(const Schema& root, const std::string& title, const std::string& intro) {
  Writer w;
  w.out = fmt::format("# {}\n\n{}\n", title, intro);
  w.section("", root, "");
  return w.out;
}

}  // namespace pssim::scenario
