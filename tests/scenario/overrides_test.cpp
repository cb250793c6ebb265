#include <catch2/catch.hpp>

#include "sim/scenario/overrides.hpp"
#include "sim/scenario/yaml_loader.hpp"

using namespace pssim::scenario;

TEST_CASE("overrides set, add and replace keys at any depth", "[overrides]") {
  ConfigNode root = load_yaml_string("a: {b: 1, c: [x, y]}\n", "t.yaml");
  apply_override(root, "a.b=2");
  CHECK(root.at("a").at("b").text() == "2");
  CHECK(root.at("a").at("b").location().source == "<--set a.b=2>");
  CHECK(root.at("a").at("b").location().column == 5);
  apply_override(root, "a.c.1=z");
  CHECK(root.at("a").at("c").items()[1].text() == "z");
  apply_override(root, "new.deep.key=10Gbps");
  CHECK(root.at("new").at("deep").at("key").text() == "10Gbps");
  apply_override(root, "a={mode: ssp, staleness: 2}");
  CHECK(root.at("a").at("mode").text() == "ssp");
  CHECK(root.at("a").at("staleness").location().source == "<--set a={mode: ssp, staleness: 2}>");
  apply_override(root, "list=[1, 2]");
  CHECK(root.at("list").items().size() == 2);
}

TEST_CASE("malformed overrides are located errors", "[overrides]") {
  ConfigNode root = load_yaml_string("a: {b: 1, c: [x, y]}\nn: 3\n", "t.yaml");
  CHECK_THROWS_WITH(apply_override(root, "a.b"), Catch::Contains("path.to.key=value"));
  CHECK_THROWS_WITH(apply_override(root, "=3"), Catch::Contains("path.to.key=value"));
  CHECK_THROWS_WITH(apply_override(root, "a..b=3"), Catch::Contains("empty key"));
  CHECK_THROWS_WITH(apply_override(root, "n.x=3"), Catch::Contains("'n' holds a single value"));
  CHECK_THROWS_WITH(apply_override(root, "a.c.5=3"), Catch::Contains("past the end of a list of 2"));
  CHECK_THROWS_WITH(apply_override(root, "a.c.z=3"), Catch::Contains("index it with a number"));
  CHECK_THROWS_WITH(apply_override(root, "a.b=[1"), Catch::Contains("<--set a.b=[1>") && Catch::Contains("not valid YAML"));
}

TEST_CASE("a null override removes the key, as if the file had not written it", "[overrides]") {
  ConfigNode root = load_yaml_string("a: {b: 1, c: [x, y], d: {e: 2}}\nn: 3\n", "t.yaml");
  apply_override(root, "a.b=~");
  CHECK(root.at("a").find("b") == nullptr);
  apply_override(root, "a.d=null");
  CHECK(root.at("a").find("d") == nullptr);
  apply_override(root, "n=");
  CHECK(root.find("n") == nullptr);
  // Removing what is not there changes nothing, and makes no maps on the way.
  apply_override(root, "a.missing=~");
  apply_override(root, "x.y.z=~");
  CHECK(root.find("x") == nullptr);
  CHECK(root.at("a").entries().size() == 1);
  // A list keeps its items: a whole list is set instead.
  CHECK_THROWS_WITH(apply_override(root, "a.c.0=~"), Catch::Contains("cannot remove item 0 of the list 'a.c'"));
  // A quoted "~" is the text ~, not null.
  apply_override(root, "a.b='~'");
  CHECK(root.at("a").at("b").text() == "~");
}
