#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/schema_markdown.hpp"

using namespace pssim::scenario;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a section reached from several variants is written once", "[schema_markdown]") {
  // `nic` under two alternatives of `net`, and the same two-kind variant under `push` and
  // `pull`: one `net.nic` section, the kinds' tables once, under `push`.
  const auto nic = map_of({optional("bandwidth", scalar(ValueType::Bandwidth), "10Gbps", "Capacity.")});
  const auto codec = [] {
    return variant("kind", "Codec.", "none",
                   {{"none", "Nothing.", {}},
                    {"topk", "Largest.", {optional("ratio", scalar(ValueType::Ratio, 0, 1), "1%", "Share.")}}});
  };
  const auto root = map_of(
      {section("net",
               variant("topology", "Shape.", "star",
                       {{"star", "One switch.", {section("nic", nic, "The NIC.")}},
                        {"tree", "Racks.",
                         {section("nic", nic, "The NIC."), required("racks", scalar(ValueType::Count), "Racks.")}}}),
               "Network."),
       section("push", codec(), "Gradients."), section("pull", codec(), "Parameters.")});
  const std::string md = schema_markdown(*root, "T", "");
  CHECK(count(md, "## `net.nic`") == 1);
  CHECK(count(md, "see [`net.nic`](#netnic)") == 2);  // both topologies refer to it
  CHECK(count(md, "### `kind: topk`") == 1);
  CHECK(count(md, "| `ratio` |") == 1);
  CHECK(md.find("`kind: none`, `kind: topk`: as under [`push`](#push).") != std::string::npos);
  CHECK(md.find("## `pull`") != std::string::npos);
}

TEST_CASE("one path with different contents in two variants is written twice, labelled", "[schema_markdown]") {
  const auto small = map_of({optional("a", scalar(ValueType::Count), "1", "A.")});
  const auto large = map_of({optional("b", scalar(ValueType::Count), "2", "B.")});
  const auto root = map_of({section(
      "x", variant("kind", "K.", "p", {{"p", "P.", {section("opt", small, "Opt.")}}, {"q", "Q.", {section("opt", large, "Opt.")}}}),
      "X.")});
  const std::string md = schema_markdown(*root, "T", "");
  CHECK(count(md, "## `x.opt`\n") == 1);
  CHECK(count(md, "## `x.opt` (with `kind: q`)") == 1);
  CHECK(count(md, "| `b` |") == 1);
}
