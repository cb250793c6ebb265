// The scheme registry as a whole: every entry complete, names unique, and what tools read
// of it. Per-scheme behaviour is tested with each scheme (tests/schemes/<name>_test.cpp,
// tests/ps, tests/experiment); no test here lists the schemes by name.
#include <set>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "sim/schemes/registry.hpp"

using namespace pssim;

TEST_CASE("every entry is whole: name, label, documentation, keys read, a factory and rules", "[schemes]") {
  std::set<std::string> names;
  REQUIRE_FALSE(schemes::all().empty());
  for (const auto& s : schemes::all()) {
    INFO(s.name);
    CHECK(names.insert(s.name).second);
    CHECK_FALSE(s.label.empty());
    CHECK_FALSE(s.doc.empty());
    CHECK(s.read != nullptr);
    CHECK(s.create != nullptr);
    CHECK(s.worker_rule != nullptr);
    CHECK(s.server_rule != nullptr);
    for (const auto& f : s.fields) CHECK_FALSE(f.doc.empty());
    CHECK(&schemes::find(s.name) == &s);
  }
  CHECK(&schemes::default_scheme() == &schemes::all().front());
}

TEST_CASE("the protocol schema offers exactly the registry's schemes", "[schemes]") {
  const auto schema = schemes::protocol_schema();
  REQUIRE(schema->alternatives.size() == schemes::all().size());
  for (std::size_t i = 0; i < schemes::all().size(); ++i) CHECK(schema->alternatives[i].name == schemes::all()[i].name);
  CHECK_THROWS_WITH(schemes::find("no-such-scheme"), Catch::Contains("unknown protocol mode 'no-such-scheme'") &&
                                                         Catch::Contains(schemes::all().back().name));
}

TEST_CASE("names_where joins the names of the schemes with a capability", "[schemes]") {
  CHECK(schemes::names_where([](const schemes::Scheme&) { return false; }).empty());
  const auto& only = schemes::all().front();
  CHECK(schemes::names_where([&](const schemes::Scheme& s) { return &s == &only; }) == only.name);
  if (schemes::all().size() >= 2) {
    const auto& a = schemes::all()[0];
    const auto& b = schemes::all()[1];
    CHECK(schemes::names_where([&](const schemes::Scheme& s) { return &s == &a || &s == &b; }, "or") ==
          a.name + " or " + b.name);
  }
}

TEST_CASE("the JSON for tools names every scheme with its label, layout and capabilities", "[schemes]") {
  const std::string json = schemes::schemes_json();
  CHECK_THAT(json, Catch::Contains("\"default\": \"" + schemes::default_scheme().name + "\""));
  for (const auto& s : schemes::all()) {
    INFO(s.name);
    const auto at = json.find("\"name\": \"" + s.name + "\"");
    REQUIRE(at != std::string::npos);
    const std::string entry = json.substr(at, json.find("\"worker_crashes\"", at) - at);
    CHECK_THAT(entry, Catch::Contains("\"label\": \"" + s.label + "\""));
    CHECK_THAT(entry, Catch::Contains(std::string("\"layout\": \"") + schemes::to_string(s.layout) + "\""));
    CHECK_THAT(entry, Catch::Contains(std::string("\"has_rounds\": ") + (s.capabilities.has_rounds ? "true" : "false")));
    CHECK_THAT(entry, Catch::Contains(std::string("\"server_crashes\": ") +
                                      (s.capabilities.no_server_crashes.empty() ? "true" : "false")));
  }
}
