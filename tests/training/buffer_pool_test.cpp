#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/training/buffer_pool.hpp"

using pssim::training::BufferPool;

namespace {
// Counts live objects, to see which ones the pool deletes.
struct Counted {
  static inline int live = 0;
  Counted() { ++live; }
  ~Counted() { --live; }
};
}  // namespace

TEST_CASE("buffer pool recycles up to max_free objects and deletes the rest", "[buffer_pool]") {
  int made = 0;
  std::vector<std::shared_ptr<Counted>> survivors;
  {
    BufferPool<Counted> pool(2, [&made] { ++made; return new Counted; });
    std::vector<std::shared_ptr<Counted>> held;
    for (int i = 0; i < 5; ++i) held.push_back(pool.get());
    CHECK(made == 5);
    const Counted* first = held[0].get();
    held.clear();  // two go back to the pool, three are deleted
    CHECK(Counted::live == 2);
    auto a = pool.get(), b = pool.get(), c = pool.get();
    CHECK(made == 6);  // two recycled, one new
    CHECK((a.get() == first || b.get() == first));
    // Objects may outlive their pool: their deleter then deletes them.
    survivors = {a, b, c};
  }
  CHECK(Counted::live == 3);
  survivors.clear();
  CHECK(Counted::live == 0);
}
