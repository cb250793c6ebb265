#include <catch2/catch.hpp>

#include "sim/scenario/suggest.hpp"

using namespace pssim::scenario;

TEST_CASE("edit distance counts edits, with adjacent transpositions as one", "[suggest]") {
  CHECK(edit_distance("workers", "workers") == 0);
  CHECK(edit_distance("wokers", "workers") == 1);
  CHECK(edit_distance("wrokers", "workers") == 1);
  CHECK(edit_distance("count", "cuont") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("nearest name suggests only plausible misspellings", "[suggest]") {
  const std::vector<std::string> keys = {"count", "throughput", "speed", "noise"};
  CHECK(nearest_name("cuont", keys) == std::optional<std::string>("count"));
  CHECK(nearest_name("throughtput", keys) == std::optional<std::string>("throughput"));
  CHECK(nearest_name("Speed", keys) == std::optional<std::string>("speed"));
  CHECK_FALSE(nearest_name("bandwidth", keys).has_value());
  CHECK_FALSE(nearest_name("x", keys).has_value());
}

TEST_CASE("a name that differs only in case comes before a nearer edit", "[suggest]") {
  // As a unit: "10gbps" meant Gbps, though bps is one deletion away and Gbps one substitution.
  const std::vector<std::string> units = {"bps", "Kbps", "kbps", "Mbps", "Gbps", "Tbps", "GB/s"};
  CHECK(nearest_name("gbps", units) == std::optional<std::string>("Gbps"));
  CHECK(nearest_name("MBPS", units) == std::optional<std::string>("Mbps"));
  CHECK(nearest_name("Gbs", units) == std::optional<std::string>("Gbps"));
}
