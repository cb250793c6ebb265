#include <cstdint>
#include <queue>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <catch2/catch.hpp>

#include "sim/core/run_heap.hpp"

using pssim::RunHeap;

namespace {

// A key with a payload the order ignores, so that equal keys can be told apart.
struct Item {
  std::int64_t key;
  std::uint32_t id;
  bool operator>(const Item& o) const { return key > o.key; }
};

struct ByKeyThenId {
  bool operator()(const Item& a, const Item& b) const { return a.key != b.key ? a.key > b.key : a.id > b.id; }
};

// Pushes and pops at random against std::priority_queue; pushes are mostly in order
// (`in_order_percent`), the rest anywhere. Equal keys may come out in either order, so
// the check compares keys, and that every id comes out exactly once.
void check_against_reference(int in_order_percent, std::uint32_t seed) {
  boost::random::mt19937 rng(seed);
  boost::random::uniform_int_distribution<int> percent(0, 99), spread(0, 50);
  RunHeap<Item> q;
  std::priority_queue<Item, std::vector<Item>, ByKeyThenId> reference;
  std::vector<int> seen;
  std::int64_t clock = 0;  // pushes "in order" go at or after the last popped key
  std::uint32_t next_id = 0;
  for (int i = 0; i < 20000; ++i) {
    if (reference.empty() || percent(rng) < 55) {
      const std::int64_t key = percent(rng) < in_order_percent ? clock + 1000 + spread(rng) : clock + spread(rng);
      q.push({key, next_id});
      reference.push({key, next_id});
      seen.push_back(0);
      ++next_id;
    } else {
      REQUIRE(!q.empty());
      REQUIRE(q.size() == reference.size());
      REQUIRE(q.top().key == reference.top().key);
      ++seen[q.top().id];
      clock = q.top().key;
      q.pop();
      reference.pop();
    }
  }
  while (!reference.empty()) {
    REQUIRE(q.top().key == reference.top().key);
    ++seen[q.top().id];
    q.pop();
    reference.pop();
  }
  CHECK(q.empty());
  CHECK(q.size() == 0);
  for (int count : seen) REQUIRE(count == 1);
}

}  // namespace

TEST_CASE("a run heap pops like a binary heap, whatever the push order", "[run_heap]") {
  SECTION("mostly in order (the run)") { check_against_reference(95, 1); }
  SECTION("half in order") { check_against_reference(50, 2); }
  SECTION("rarely in order (mostly the heap)") { check_against_reference(5, 3); }
}

TEST_CASE("a run heap takes the lesser of the run's front and the heap's top", "[run_heap]") {
  RunHeap<Item> q;
  q.push({10, 0});
  q.push({20, 1});
  q.push({15, 2});  // out of order: the heap
  q.push({5, 3});   // out of order: the heap, and now the least
  std::vector<std::int64_t> keys;
  for (; !q.empty(); q.pop()) keys.push_back(q.top().key);
  CHECK(keys == std::vector<std::int64_t>{5, 10, 15, 20});
}

TEST_CASE("a run that never empties keeps its storage bounded and its order", "[run_heap]") {
  // A steady stream: every pop is followed by a later push, so the run is never empty
  // and only compaction bounds what it holds.
  RunHeap<Item> q;
  for (std::uint32_t i = 0; i < 100; ++i) q.push({i, i});
  for (std::uint32_t i = 100; i < 200000; ++i) {
    REQUIRE(q.top().key == static_cast<std::int64_t>(i) - 100);
    q.pop();
    q.push({i, i});
    REQUIRE(q.size() == 100);
  }
  CHECK(q.capacity() <= 4096);
}
