#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <catch2/catch.hpp>

#include "sim/core/event_queue.hpp"

using pssim::EventCallback;
using pssim::EventId;
using pssim::EventQueue;
using pssim::TimeNs;

namespace {

// An event that appends its tag to a shared log: callbacks capture one pointer, so the
// per-event state lives in one of these.
struct Tagged {
  std::vector<int>* log;
  int tag;
  void fire() const { log->push_back(tag); }
};

// Pops and fires everything up to `limit`.
void drain(EventQueue& q, TimeNs limit = pssim::kTimeMax) {
  TimeNs t;
  EventCallback cb;
  while (q.pop_until(limit, t, cb)) cb();
}

}  // namespace

TEST_CASE("events pop in time order, ties in scheduling order", "[event_queue]") {
  EventQueue q;
  std::vector<int> log;
  std::deque<Tagged> events;
  // Tags 0..5 scheduled in this order; expected order by (time, tag): 5ns: 1,3,4; 7ns: 0,5; 9ns: 2
  const TimeNs times[] = {7, 5, 9, 5, 5, 7};
  for (int i = 0; i < 6; ++i) {
    const Tagged* e = &events.emplace_back(Tagged{&log, i});
    q.push(times[i], [e] { e->fire(); });
  }
  std::vector<TimeNs> fire_times;
  TimeNs t;
  EventCallback cb;
  while (q.pop_until(pssim::kTimeMax, t, cb)) {
    cb();
    fire_times.push_back(t);
  }
  CHECK(log == std::vector<int>{1, 3, 4, 0, 5, 2});
  CHECK(fire_times == std::vector<TimeNs>{5, 5, 5, 7, 7, 9});
  CHECK(q.empty());
}

// Random pushes (at now + delay(rng, a), a in 0..4 the action drawn), pops (some only up
// to a limit) and cancels, checked against a map keyed by (time, scheduling order): the
// order promised.
template <typename Delay>
void check_against_reference(Delay delay) {
  boost::random::mt19937_64 rng(42);
  EventQueue q;
  std::map<std::pair<TimeNs, std::uint64_t>, int> reference;
  std::vector<std::pair<EventId, std::pair<TimeNs, std::uint64_t>>> handles;
  std::vector<int> popped_tags;
  std::deque<Tagged> events;
  std::uint64_t order = 0;
  TimeNs now = 0;
  boost::random::uniform_int_distribution<int> action(0, 9);
  boost::random::uniform_int_distribution<TimeNs> limit_after(0, 50'000);
  for (int step = 0; step < 100000; ++step) {
    const int a = action(rng);
    if (a < 5) {
      const TimeNs t = now + delay(rng, a);
      const int tag = static_cast<int>(order);
      const Tagged* e = &events.emplace_back(Tagged{&popped_tags, tag});
      EventId id = q.push(t, [e] { e->fire(); });
      reference[{t, order}] = tag;
      handles.push_back({id, {t, order}});
      ++order;
    } else if (a < 7 && !handles.empty()) {
      boost::random::uniform_int_distribution<std::size_t> pick(0, handles.size() - 1);
      const auto& h = handles[pick(rng)];
      const bool was_pending = reference.erase(h.second) == 1;
      CHECK(q.cancel(h.first) == was_pending);
    } else {
      // Now and then only up to a limit, as Simulator::run_until does.
      const TimeNs limit = a == 9 ? now + limit_after(rng) : pssim::kTimeMax;
      TimeNs t;
      EventCallback cb;
      const bool got = q.pop_until(limit, t, cb);
      REQUIRE(got == (!reference.empty() && reference.begin()->first.first <= limit));
      if (got) {
        cb();
        const auto first = reference.begin();
        CHECK(t == first->first.first);
        CHECK(popped_tags.back() == first->second);
        now = t;
        reference.erase(first);
      }
    }
    REQUIRE(q.size() == reference.size());
  }
}

TEST_CASE("event queue agrees with a sorted reference under random pushes, pops and cancels",
          "[event_queue]") {
  // Times include many ties and wide jumps so that entries travel through many radix
  // buckets; the small delays also fill lanes.
  boost::random::uniform_int_distribution<TimeNs> small(0, 3), large(0, 1'000'000'000);
  check_against_reference([&](boost::random::mt19937_64& rng, int a) { return a < 3 ? small(rng) : large(rng); });
}

TEST_CASE("events of a few repeated delays (the queue's lanes) keep the exact order", "[event_queue]") {
  // Mostly the same few delays, as messages waiting their route's latency: more delays
  // than lanes, so lanes are taken and given up, and their entries tie with each other,
  // with delay-0 events and with random ones in the radix heap.
  const TimeNs delays[] = {0, 40'000, 40'000, 78'125, 20'000, 5, 40'000};
  boost::random::uniform_int_distribution<std::size_t> pick(0, std::size(delays) - 1);
  boost::random::uniform_int_distribution<TimeNs> any(0, 100'000);
  check_against_reference([&](boost::random::mt19937_64& rng, int a) { return a < 4 ? delays[pick(rng)] : any(rng); });
}

TEST_CASE("cancel is exact: once, never after firing, never a reused slot", "[event_queue]") {
  EventQueue q;
  int fired = 0;
  int* f = &fired;
  EventId a = q.push(10, [f] { *f += 1; });
  CHECK(q.cancel(a));
  CHECK_FALSE(q.cancel(a));  // already cancelled
  EventId b = q.push(20, [f] { *f += 10; });
  drain(q);
  CHECK(fired == 10);
  CHECK_FALSE(q.cancel(b));  // already fired
  // b's slot is free again; a new event may take it, and b's stale id must not cancel it.
  EventId c = q.push(30, [f] { *f += 100; });
  CHECK_FALSE(q.cancel(b));
  CHECK_FALSE(q.cancel(EventId{}));
  drain(q);
  CHECK(fired == 110);
  (void)c;
}

TEST_CASE("mass cancellation compacts without losing live events", "[event_queue]") {
  EventQueue q;
  std::vector<int> out;
  std::deque<Tagged> events;
  std::vector<EventId> ids;
  for (int i = 0; i < 5000; ++i) {
    const Tagged* e = &events.emplace_back(Tagged{&out, i});
    ids.push_back(q.push(1000 - i / 10, [e] { e->fire(); }));
  }
  for (int i = 0; i < 5000; ++i)
    if (i % 5 != 0) CHECK(q.cancel(ids[static_cast<std::size_t>(i)]));  // 4000 cancels: compaction runs
  CHECK(q.size() == 1000);
  drain(q);
  REQUIRE(out.size() == 1000);
  // Survivors are i % 5 == 0; time 1000 - i/10 decreases with i, ties in index order.
  std::vector<int> expected;
  for (int i = 0; i < 5000; i += 5) expected.push_back(i);
  std::stable_sort(expected.begin(), expected.end(), [](int x, int y) { return 1000 - x / 10 < 1000 - y / 10; });
  CHECK(out == expected);
}

TEST_CASE("pop_until leaves later events and accepts pushes between limit and them",
          "[event_queue]") {
  EventQueue q;
  int fired = 0;
  int* f = &fired;
  q.push(100, [f] { ++*f; });
  TimeNs t;
  EventCallback cb;
  CHECK_FALSE(q.pop_until(50, t, cb));
  q.push(60, [f] { *f += 10; });  // earlier than the pending event, later than the limit
  CHECK(q.pop_until(70, t, cb));
  CHECK(t == 60);
  cb();
  CHECK(fired == 10);
  CHECK(q.pop_until(100, t, cb));
  CHECK(t == 100);
}

TEST_CASE("pushing before the last popped time is rejected", "[event_queue]") {
  EventQueue q;
  q.push(100, [] {});
  drain(q);
  CHECK_THROWS_AS(q.push(99, [] {}), std::invalid_argument);
  CHECK_NOTHROW(q.push(100, [] {}));
}

TEST_CASE("bursts of simultaneous events keep their order and do not pile up storage", "[event_queue]") {
  // Ten rounds; in each, 60,000 events at one time (one pushed long before the others, so
  // that the burst reaches bucket 0 from two histories) and a few at other times. Every
  // event fires in scheduling order; afterwards the buckets keep room for less than two
  // bursts (each bucket a burst passed through would otherwise keep one).
  EventQueue q;
  std::vector<int> log;
  std::deque<Tagged> events;
  int tag = 0;
  const auto push = [&](TimeNs t) {
    const Tagged* e = &events.emplace_back(Tagged{&log, tag++});
    q.push(t, [e] { e->fire(); });
  };
  TimeNs now = 0;
  for (int round = 0; round < 10; ++round) {
    const TimeNs burst = now + 40'000 + 977 * round;
    push(burst);  // the early one
    push(now + 5);
    drain(q, now + 5);
    for (int i = 0; i < 60'000; ++i) push(burst);
    push(burst + 1);
    drain(q, burst + 1);
    now = burst + 1;
  }
  REQUIRE(log.size() == static_cast<std::size_t>(tag));
  // Per round: the early burst event, the +5 event, the 60,000, the +1 event: tags fire
  // in (time, tag) order, i.e. tag order except that the +5 event precedes the burst.
  std::vector<int> expected;
  for (int round = 0, base = 0; round < 10; ++round, base += 60'003) {
    expected.push_back(base + 1);
    expected.push_back(base);
    for (int i = 0; i < 60'000; ++i) expected.push_back(base + 2 + i);
    expected.push_back(base + 60'002);
  }
  CHECK(log == expected);
  CHECK(q.reserved() < 2 * 60'000);
}

TEST_CASE("a lane that never empties does not keep what it has popped", "[event_queue]") {
  // A steady stream at one delay (a message every 10 ns, each waiting 40 us): the lane
  // always holds ~4,000 pending events and never empties; over a million events its
  // storage must stay near what is pending, not grow with everything that passed.
  EventQueue q;
  const TimeNs delay = 40'000;
  TimeNs now = 0;
  for (TimeNs t = 0; t < delay; t += 10) q.push(t + delay, [] {});
  std::size_t largest = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    TimeNs t;
    EventCallback cb;
    REQUIRE(q.pop_until(pssim::kTimeMax, t, cb));
    REQUIRE(t >= now);
    now = t;
    q.push(now + delay, [] {});
    largest = std::max(largest, q.reserved());
  }
  CHECK(q.size() == 4'000);
  CHECK(largest < 8 * 4'096);  // a few times what is pending (vectors grow by doubling); untrimmed: > 1 M
}

TEST_CASE("may_have_event_by is exact without cancellations, and last_seq names the last push",
          "[event_queue]") {
  // Delays repeat (lanes) and jump (radix buckets); after each step, for times around
  // the earliest pending one, the answer is whether a pending event is at or before it.
  EventQueue q;
  std::multiset<TimeNs> pending;
  boost::random::mt19937_64 rng(11);
  const TimeNs delays[] = {0, 40'000, 78'125, 40'000, 78'125};
  boost::random::uniform_int_distribution<std::size_t> pick(0, std::size(delays) - 1);
  boost::random::uniform_int_distribution<TimeNs> any(0, 1'000'000);
  boost::random::uniform_int_distribution<int> action(0, 9);
  std::vector<int> log;
  Tagged tag{&log, 0};
  TimeNs now = 0;
  CHECK_FALSE(q.may_have_event_by(pssim::kTimeMax));
  CHECK(q.last_seq() == 0);
  for (int i = 0; i < 20'000; ++i) {
    if (action(rng) < 6 || pending.empty()) {
      const TimeNs time = now + (action(rng) < 7 ? delays[pick(rng)] : any(rng));
      const EventId id = q.push(time, [&tag] { tag.fire(); });
      CHECK(id.seq == q.last_seq());
      pending.insert(time);
    } else {
      TimeNs t;
      EventCallback cb;
      REQUIRE(q.pop_until(pssim::kTimeMax, t, cb));
      REQUIRE(t == *pending.begin());
      pending.erase(pending.begin());
      now = t;
    }
    const TimeNs earliest = pending.empty() ? pssim::kTimeMax : *pending.begin();
    for (const TimeNs probe : {now, earliest - 1, earliest, earliest + 1}) {
      if (probe < now) continue;
      CHECK(q.may_have_event_by(probe) == (!pending.empty() && earliest <= probe));
    }
  }
}
