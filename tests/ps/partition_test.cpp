#include <catch2/catch.hpp>

#include "sim/ps/partition.hpp"

using namespace pssim::ps;

TEST_CASE("partition by bytes: contiguous, sizes differ by at most one", "[partition]") {
  const auto shards = partition_by_bytes(10, 3);
  REQUIRE(shards.size() == 3);
  CHECK(shards[0].params == 4);
  CHECK(shards[1].params == 3);
  CHECK(shards[2].params == 3);
  CHECK(shards[0].ranges[0].begin == 0);
  CHECK(shards[1].ranges[0].begin == 4);
  CHECK(shards[2].ranges[0].end == 10);
  CHECK(shards[0].bytes() == 16.0);
}

TEST_CASE("partition by layer deals whole layers round-robin", "[partition]") {
  // Layers 100, 10, 1000, 5 over 2 shards: shard 0 gets layers 0 and 2, shard 1 layers 1 and 3.
  const auto shards = partition_by_layer({100, 10, 1000, 5}, 2);
  CHECK(shards[0].params == 1100);
  CHECK(shards[1].params == 15);
  REQUIRE(shards[0].ranges.size() == 2);
  CHECK(shards[0].ranges[1].begin == 110);
  CHECK(shards[0].ranges[1].end == 1110);
  CHECK_THROWS(partition_by_layer({1, 2}, 3));
}

TEST_CASE("placement: round-robin and balanced by bytes", "[partition]") {
  CHECK(place_round_robin(5, 2) == std::vector<std::int64_t>{0, 1, 0, 1, 0});
  // Shards of 1100, 15, 500 and 600 params onto 2 hosts: 1100 -> host 0, 600 -> host 1,
  // 500 -> host 1 (600 < 1100), 15 -> host 1 (1100 < 1100? no: 1100 vs 1100: host 0 first).
  std::vector<Part> s = {{{}, 1100}, {{}, 15}, {{}, 500}, {{}, 600}};
  CHECK(place_balanced(s, 2) == std::vector<std::int64_t>{0, 0, 1, 1});
}
