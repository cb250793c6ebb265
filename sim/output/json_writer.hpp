// A small streaming JSON writer for summaries (objects, arrays, numbers, strings).
//
// Numbers use the shortest text that reads back to the same double; NaN and infinities,
// which JSON cannot represent, are written as null. Output is indented two spaces and
// deterministic (keys in insertion order).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pssim::output {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// Key of the next value inside an object.
  JsonWriter& key(std::string_view k);

  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& null();
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }

  /// The document; all objects and arrays must be closed.
  std::string str() const;

 private:
  void before_value();
  void newline();
  void close(char bracket);
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

/// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

}  // namespace pssim::output
