#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/validate.hpp"
#include "sim/scenario/yaml_loader.hpp"

using namespace pssim::scenario;

namespace {

const Schema& test_schema() {
  static const SchemaPtr schema = map_of({
      required("name", scalar(ValueType::Name), "name"),
      section("box", map_of({required("count", scalar(ValueType::Count, 1, 100), "count"),
                             optional("link", scalar_above(ValueType::Bandwidth, 0), "10Gbps", "bw"),
                             optional("mode", enumeration({"fast", "slow"}), "fast", "mode"),
                             optional("sizes", list_of(scalar(ValueType::Bytes), 0, 3), "[]", "sizes")}),
              "box"),
      section("dist", variant("kind", "k", "constant",
                              {{"constant", "c", {optional("factor", scalar(ValueType::Real, 0), "1", "f")}},
                               {"lognormal", "l", {required("sigma", scalar(ValueType::Real, 0), "s")}}}),
              "dist"),
  });
  return *schema;
}

ConfigNode check(const std::string& text) { return validate(load_yaml_string(text, "t.yaml"), test_schema()); }

std::vector<std::string> errors(const std::string& text) {
  try {
    check(text);
  } catch (const ScenarioError& e) {
    std::vector<std::string> out;
    for (const auto& d : e.diagnostics())
      out.push_back(std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " + d.message);
    return out;
  }
  return {};
}

}  // namespace

TEST_CASE("defaults are filled in, in schema order", "[validate]") {
  const ConfigNode r = check("box: {count: 3}\nname: x\n");
  REQUIRE(r.entries().size() == 3);
  CHECK(r.entries()[0].key == "name");
  CHECK(r.at("box").at("link").text() == "10Gbps");
  CHECK(r.at("box").at("link").location().line == 0);  // a default, not from the file
  CHECK(r.at("box").at("mode").text() == "fast");
  CHECK(r.at("box").at("sizes").is_sequence());
  CHECK(r.at("dist").at("kind").text() == "constant");
  CHECK(as_real(r.at("dist").at("factor")) == 1.0);
  CHECK(as_bandwidth(r.at("box").at("link")) == Approx(1.25e9));
}

TEST_CASE("every problem is reported with its position", "[validate]") {
  CHECK(errors("name: x\nbox: {cuont: 3}\n") ==
        std::vector<std::string>{"2:7: unknown key 'cuont' in box; did you mean 'count'?",
                                 "2:6: missing required key 'count' in box"});
  CHECK(errors("name: x\nbox: {count: -1}\n") ==
        std::vector<std::string>{"2:14: box.count = -1 is out of range: must be at least 1"});
  CHECK(errors("name: x\nbox: {count: 1000000000000}\n") ==
        std::vector<std::string>{"2:14: box.count = 1000000000000 is out of range: must be at most 100"});
  CHECK(errors("name: x\nbox: {count: 2, link: 10}\n")[0] ==
        "2:23: box.link: '10' has no unit; write a bandwidth with its unit, such as 10Gbps or 1.25GB/s");
  CHECK(errors("name: x\nbox: {count: 2, mode: fsat}\n")[0] ==
        "2:23: box.mode = 'fsat' is not one of: fast, slow; did you mean 'fast'?");
  CHECK(errors("name: x\nbox: {count: [1]}\n")[0] == "2:14: box.count must be a whole number (e.g. 16, 25M), not a list");
  CHECK(errors("name: x\nbox: 3\n")[0] == "2:6: box must be a mapping of keys, not '3'");
  CHECK(errors("name: x\nbox: {count: 2, sizes: [1B, 2B, 3B, 4B]}\n")[0] == "2:24: box.sizes has 4 items; it needs at most 3");
  CHECK(errors("name: x\nbox: {count: 2, sizes: [1B, 2]}\n")[0] ==
        "2:29: box.sizes[1]: '2' has no unit; write a size with its unit, such as 4.8MB or 512KiB");
  CHECK(errors("box: {count: 2}\n")[0] == "1:1: missing required key 'name' at the top level");
  CHECK(errors("name: 'a b'\nbox: {count: 2}\n")[0] ==
        "1:7: name = 'a b' is not a valid name (use letters, digits, '.', '_', '-'; at most 100 characters)");
  CHECK(errors("name: x\nbox: {count: 2}\nbxo: 1\n")[0] == "3:1: unknown key 'bxo' at the top level; did you mean 'box'?");
  CHECK(errors("name: x\nbox: {count: 2}\nzzz: 1\n")[0] ==
        "3:1: unknown key 'zzz' at the top level (known keys: name, box, dist)");
  CHECK(errors("name: x\nbox: {count: 1e999}\n")[0] == "2:14: box.count: '1e999' is out of range; expected a whole number such as 16 or 25M");
}

TEST_CASE("variants accept only the keys of the chosen alternative", "[validate]") {
  const ConfigNode r = check("name: x\nbox: {count: 1}\ndist: {kind: lognormal, sigma: 0.5}\n");
  CHECK(as_real(r.at("dist").at("sigma")) == 0.5);
  CHECK(r.at("dist").find("factor") == nullptr);
  CHECK(errors("name: x\nbox: {count: 1}\ndist: {sigma: 0.5}\n") ==
        std::vector<std::string>{"3:8: key 'sigma' in dist applies only when kind is 'lognormal' (here it is 'constant')"});
  CHECK(errors("name: x\nbox: {count: 1}\ndist: {kind: lognormal}\n") ==
        std::vector<std::string>{"3:7: missing required key 'sigma' in dist"});
  CHECK(errors("name: x\nbox: {count: 1}\ndist: {kind: lognormla}\n")[0] ==
        "3:14: dist.kind = 'lognormla' is not one of: constant, lognormal; did you mean 'lognormal'?");
}
