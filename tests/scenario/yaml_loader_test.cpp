#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/yaml_loader.hpp"

using namespace pssim::scenario;

namespace {
// The single diagnostic of a failing load, as "line:col: message".
std::string load_error(const std::string& text) {
  try {
    load_yaml_string(text, "t.yaml");
  } catch (const ScenarioError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    const auto& d = e.diagnostics()[0];
    return std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " + d.message;
  }
  FAIL("no error for: " << text);
  return "";
}
}  // namespace

TEST_CASE("the tree keeps keys in file order with their positions", "[yaml]") {
  const auto root = load_yaml_string("name: x\ncluster:\n  workers: {count: 4}\nlist: [1, 2]\n", "t.yaml");
  REQUIRE(root.is_map());
  REQUIRE(root.entries().size() == 3);
  CHECK(root.entries()[0].key == "name");
  CHECK(root.entries()[1].key_location.line == 2);
  CHECK(root.entries()[1].key_location.column == 1);
  const ConfigNode& count = root.at("cluster").at("workers").at("count");
  CHECK(count.text() == "4");
  CHECK(count.location().line == 3);
  CHECK(count.location().column == 20);
  CHECK(root.at("list").items().size() == 2);
  CHECK(load_yaml_string("a: '16'\n", "t").at("a").quoted());
  CHECK_FALSE(load_yaml_string("a: 16\n", "t").at("a").quoted());
}

TEST_CASE("malformed input gives one located error", "[yaml]") {
  CHECK(load_error("") == "0:0: file is empty; a scenario is a mapping of keys such as 'name:' and 'cluster:'");
  CHECK_THAT(load_error("a: [1, 2\n"), Catch::StartsWith("2:1: not valid YAML"));
  CHECK_THAT(load_error("a: 1\na: 2\n"), Catch::StartsWith("2:1: duplicate key 'a' (first given at line 1)"));
  CHECK_THAT(load_error("a: 1\n---\nb: 2\n"), Catch::StartsWith("3:1: a second YAML document"));
  CHECK(load_yaml_string("a: 1\n---\n", "t").at("a").text() == "1");  // a trailing empty document is fine
  CHECK(load_error(",") == "1:1: not valid YAML: no value could be read here");  // yaml-cpp 0.7 loops on this
  CHECK(load_error("\n  ,\n") == "2:3: not valid YAML: no value could be read here");
  CHECK(load_error("~\n") == "0:0: file is empty; a scenario is a mapping of keys such as 'name:' and 'cluster:'");
  CHECK_THAT(load_error("a: 1\nb: \xff\n"), Catch::StartsWith("2:4: byte 0xff is not valid UTF-8"));
  CHECK_THAT(load_error("a: \xc0\xaf\n"), Catch::StartsWith("1:4:") && Catch::Contains("UTF-8"));
  CHECK_THAT(load_error("a: x\x01y\n"), Catch::StartsWith("1:5: control character 0x01"));
  CHECK_THAT(load_error("[1, 2]: x\n"), Catch::Contains("a key must be a plain name"));
}

TEST_CASE("deep nesting and alias bombs are refused before they cost memory or stack", "[yaml]") {
  std::string deep_flow(10000, '[');
  CHECK_THAT(load_error("a: " + deep_flow), Catch::Contains("nesting deeper than 64 levels"));
  std::string deep_block;
  for (int i = 0; i < 10000; ++i) deep_block += "- ";
  deep_block += "x\n";
  CHECK_THAT(load_error(deep_block), Catch::Contains("deeper"));
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 12; ++i)
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" + std::to_string(i - 1) + ", *a" +
              std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + "]\n";
  CHECK_THAT(load_error(laughs), Catch::Contains("more than 200000 values"));
}

TEST_CASE("files: missing, directory and byte-order mark", "[yaml]") {
  CHECK_THROWS_WITH(load_yaml_file("/nonexistent/x.yaml"), Catch::Contains("/nonexistent/x.yaml: error: no such file"));
  CHECK_THROWS_WITH(load_yaml_file(PSSIM_SOURCE_DIR "/tests/scenario"), Catch::Contains("is a directory"));
  CHECK(load_yaml_string("\xEF\xBB\xBFname: x\n", "t").at("name").text() == "x");
}
