// EventQueue: the pending events of one simulation, in deterministic order.
//
// Order: by time, then by scheduling order (a 64-bit sequence number that never repeats),
// so events at equal times fire in the order they were scheduled.
//
// Structure: a radix heap (monotone priority queue) on the integer time. Bucket k > 0
// holds entries whose time first differs from `radix_floor_` at bit k-1; bucket 0 holds
// the entries whose time equals `radix_floor_`, sorted by sequence number. Popping
// refills bucket 0 by redistributing the lowest non-empty bucket, and every entry only
// ever moves to a lower bucket, so the amortized cost is O(log2 of the time span) per
// event with sequential memory access (measured >10 M events/s with 1 M pending, see
// bench/event_queue_bench.cpp). The price: times pushed may not be earlier than the last
// popped one, which a simulator guarantees anyway ("no scheduling in the past").
//
// Entries carry their callback inline, so popping touches only the (sequentially read)
// buckets; a side table per event would cost a cache miss per event at 1 M pending.
//
// Lanes: events scheduled with the same delay arrive in time order (the floor only moves
// forward), so an event whose delay (time - floor) is that of a lane is appended to it
// and leaves it from the front, without the radix heap's moves between buckets (about
// three per event at the all-reduce benchmark, where every message waits its route's
// latency). kLanes lanes; an empty lane is given to a delay that repeats one of the last two
// delays the radix heap took (a message's latency and its transfer's end alternate). A pop
// takes the least (time, sequence number) among the lanes' fronts and the radix heap's
// minimum, so the order is exactly as without lanes. The radix heap keeps its own floor
// (`radix_floor_`, the time of its bucket 0), which may lag behind floor_.
//
// Memory: the live entries (32 bytes each) and the storage buckets and lanes keep between
// uses (a lane: its pending entries and at most as many popped ones, or kKeptCapacity
// popped ones, whichever is more), bounded after a burst of simultaneous events: such a
// burst reaches bucket 0 whole (its storage is handed over, not copied), and once it has
// fired, bucket 0 and the empty buckets give back storage beyond 4,096 entries and twice
// the live entries.
//
// Cancel is O(1) expected: the event's sequence number goes into a hash set and the entry
// is dropped when it surfaces (or earlier, by an O(n) compaction, when cancelled entries
// outnumber live ones). Whether an id is still pending is decided exactly from its time:
// later than the floor means pending; equal means "still in bucket 0 or a lane"; earlier
// means gone.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "sim/core/event_callback.hpp"
#include "sim/core/time.hpp"

namespace pssim {

/// Handle of a scheduled event, for cancel(). A default-constructed id is never pending.
struct EventId {
  TimeNs time = 0;
  std::uint64_t seq = 0;  ///< 0: no event
  explicit operator bool() const { return seq != 0; }
};

class EventQueue {
 public:
  EventQueue() { bucket_min_.fill(kTimeMax); }

  /// Schedules `callback` at `time`. Precondition: time >= floor() (checked, throws
  /// std::invalid_argument). O(1).
  EventId push(TimeNs time, EventCallback callback);

  /// Cancels a pending event. Returns false if it already fired or was cancelled. O(1).
  bool cancel(EventId id);

  /// Removes the earliest pending event if its time is <= limit, storing its time and
  /// callback. Returns false, leaving the queue's order unchanged, when there is none.
  bool pop_until(TimeNs limit, TimeNs& time, EventCallback& callback);

  /// Whether an event is pending at or before `time`, as a bound: false only when none
  /// is; true may also mean a cancelled entry not yet dropped. O(lanes).
  bool may_have_event_by(TimeNs time) const;
  /// Sequence number of the last event pushed (0 before any): an event is the most recent
  /// one scheduled while its id's seq equals this.
  std::uint64_t last_seq() const { return next_seq_ - 1; }

  /// Number of pending (not cancelled) events.
  std::size_t size() const { return live_; }
  /// Entries the buckets have room for (32 bytes each): the queue's memory.
  std::size_t reserved() const;
  bool empty() const { return live_ == 0; }
  /// Time of the last popped event (0 before any pop): the earliest time push() accepts.
  TimeNs floor() const { return floor_; }

 private:
  struct Entry {
    TimeNs time;
    std::uint64_t seq;
    EventCallback callback;
  };

  // Entries of one delay, in time order; entries [front, size) are pending.
  struct Lane {
    TimeNs delay = 0;
    std::vector<Entry> items;
    std::size_t front = 0;
    bool empty() const { return front == items.size(); }
    const Entry& first() const { return items[front]; }
  };

  static int bucket_of(TimeNs time, TimeNs floor);
  void place(const Entry& e);
  Lane* lane_for(TimeNs delay);
  void note_radix_delay(TimeNs delay);
  Lane* first_lane();
  bool refill_bucket0(TimeNs limit);
  bool pending_at_floor(std::uint64_t seq) const;
  void trim(Lane& lane);
  void compact();
  void release_after_burst();

  static constexpr int kBuckets = 65;
  static constexpr int kLanes = 4;
  static constexpr std::size_t kKeptCapacity = 4096;  // entries a drained bucket may always keep
  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::array<TimeNs, kBuckets> bucket_min_;  // earliest time in each bucket (kTimeMax: none)
  std::uint64_t nonempty_ = 0;               // bit k set: bucket k (k >= 1) may hold entries
  std::size_t front0_ = 0;                   // next entry of bucket 0 to pop
  TimeNs radix_floor_ = 0;                   // time of bucket 0's entries; buckets are relative to it
  std::array<Lane, kLanes> lanes_;
  std::array<TimeNs, 2> radix_delays_{-1, -1};  // the last two delays of events without a lane
  int busy_lanes_ = 0;                       // lanes holding entries
  TimeNs floor_ = 0;
  std::uint64_t next_seq_ = 1;
  std::size_t live_ = 0;
  std::unordered_set<std::uint64_t> cancelled_;  // seqs of cancelled entries still in buckets
};

}  // namespace pssim
