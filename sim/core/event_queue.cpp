#include "sim/core/event_queue.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "sim/core/popped_prefix.hpp"

namespace pssim {

int EventQueue::bucket_of(TimeNs time, TimeNs floor) {
  const auto diff = static_cast<std::uint64_t>(time) ^ static_cast<std::uint64_t>(floor);
  return diff == 0 ? 0 : 64 - std::countl_zero(diff);
}

EventId EventQueue::push(TimeNs time, EventCallback callback) {
  if (time < floor_)
    throw std::invalid_argument("event scheduled at " + std::to_string(time) +
                                " ns, before the current time " + std::to_string(floor_) + " ns");
  const std::uint64_t seq = next_seq_++;
  const Entry e{time, seq, callback};
  const TimeNs delay = time - floor_;
  if (delay == 0 && radix_floor_ == floor_) place(e);  // bucket 0: appended in order, no move later
  else if (Lane* lane = lane_for(delay)) {
    if (lane->empty()) ++busy_lanes_;
    lane->items.push_back(e);
  } else {
    place(e);
  }
  ++live_;
  return {time, seq};
}

// The lane of `delay`; else, for a delay that repeats one of the last two the radix heap
// took, an empty lane given to it; else none (the radix heap takes it). Delays that never
// repeat (random compute times) so stay out of the lanes; two, because streams of two
// delays often alternate (a message's latency, then its transfer's end).
EventQueue::Lane* EventQueue::lane_for(TimeNs delay) {
  const bool repeated = delay == radix_delays_[0] || delay == radix_delays_[1];
  if (busy_lanes_ == 0 && !repeated) {  // the common case without lanes in use
    note_radix_delay(delay);
    return nullptr;
  }
  Lane* free = nullptr;
  for (Lane& lane : lanes_) {
    if (lane.delay == delay && !lane.empty()) return &lane;
    if (!free && lane.empty()) free = &lane;
  }
  if (!repeated) {
    note_radix_delay(delay);
    return nullptr;
  }
  if (free) free->delay = delay;
  return free;
}

void EventQueue::note_radix_delay(TimeNs delay) {
  if (delay == radix_delays_[0]) return;
  radix_delays_[1] = radix_delays_[0];
  radix_delays_[0] = delay;
}

// The lane whose front comes first (least time, then sequence number), or none.
EventQueue::Lane* EventQueue::first_lane() {
  Lane* best = nullptr;
  for (Lane& lane : lanes_) {
    if (lane.empty()) continue;
    if (!best || lane.first().time < best->first().time ||
        (lane.first().time == best->first().time && lane.first().seq < best->first().seq))
      best = &lane;
  }
  return best;
}

void EventQueue::place(const Entry& e) {
  const int k = bucket_of(e.time, radix_floor_);
  buckets_[k].push_back(e);
  if (k == 0) return;
  nonempty_ |= std::uint64_t{1} << (k - 1);
  bucket_min_[k] = std::min(bucket_min_[k], e.time);
}

// Whether the entry `seq`, at time floor_, has not been popped: it is in bucket 0 past
// its front, in the bucket that holds floor_ when the radix floor lags behind (nothing
// there has been popped), or at the front of a lane (entries at floor_ come first).
bool EventQueue::pending_at_floor(std::uint64_t seq) const {
  const int k = bucket_of(floor_, radix_floor_);
  const auto& bucket = buckets_[k];
  for (std::size_t i = k == 0 ? front0_ : 0; i < bucket.size(); ++i)
    if (bucket[i].seq == seq) return true;
  for (const Lane& lane : lanes_)
    for (std::size_t i = lane.front; i < lane.items.size() && lane.items[i].time == floor_; ++i)
      if (lane.items[i].seq == seq) return true;
  return false;
}

bool EventQueue::cancel(EventId id) {
  if (!id || id.seq >= next_seq_ || id.time < floor_) return false;
  if (id.time == floor_ && !pending_at_floor(id.seq)) return false;  // already fired
  if (!cancelled_.insert(id.seq).second) return false;        // already cancelled
  --live_;
  if (cancelled_.size() > 1024 && cancelled_.size() > live_) compact();
  return true;
}

// Bucket 0 holds entries at its floor; the lowest non-empty bucket above it holds the
// earliest of the others (bucket_min_ is exact: entries leave a bucket all at once).
bool EventQueue::may_have_event_by(TimeNs time) const {
  if (front0_ < buckets_[0].size() && buckets_[0][front0_].time <= time) return true;
  if (nonempty_ != 0 && bucket_min_[std::countr_zero(nonempty_) + 1] <= time) return true;
  if (busy_lanes_ > 0)
    for (const Lane& lane : lanes_)
      if (!lane.empty() && lane.first().time <= time) return true;
  return false;
}

// Makes bucket 0 hold the entries at the minimum time, if that minimum is <= limit.
// Returns false (changing nothing) otherwise or when the queue holds no entry.
bool EventQueue::refill_bucket0(TimeNs limit) {
  if (nonempty_ == 0) return false;
  const int k = std::countr_zero(nonempty_) + 1;
  if (bucket_min_[k] > limit) return false;
  auto& b0 = buckets_[0];
  b0.clear();
  if (b0.capacity() > kKeptCapacity) release_after_burst();
  front0_ = 0;
  radix_floor_ = bucket_min_[k];
  auto& source = buckets_[k];
  bucket_min_[k] = kTimeMax;
  nonempty_ &= ~(std::uint64_t{1} << (k - 1));
  const auto at_floor = [this](const Entry& e) { return e.time == radix_floor_; };
  if (source.size() > kKeptCapacity && std::all_of(source.begin(), source.end(), at_floor)) {
    b0.swap(source);  // a burst of simultaneous events moves as a whole: no copy
  } else {
    for (const Entry& e : source) place(e);  // every entry lands in a bucket below k
    source.clear();
  }
  // Entries reach bucket 0 from several histories; restore scheduling order.
  const auto by_seq = [](const Entry& a, const Entry& b) { return a.seq < b.seq; };
  if (!std::is_sorted(b0.begin(), b0.end(), by_seq)) std::sort(b0.begin(), b0.end(), by_seq);
  return true;
}

// Bucket 0 only grows beyond kKeptCapacity for a burst of simultaneous events (a million
// messages sent at once), and every bucket keeps the storage of the largest burst that
// passed through it: once such a burst has fired, bucket 0 gives its storage back, and
// so does every empty bucket holding more than kKeptCapacity and twice the live entries.
void EventQueue::release_after_burst() {
  std::vector<Entry>().swap(buckets_[0]);
  for (auto& b : buckets_)
    if (b.empty() && b.capacity() > kKeptCapacity && b.capacity() > 2 * live_) std::vector<Entry>().swap(b);
}

std::size_t EventQueue::reserved() const {
  std::size_t n = 0;
  for (const auto& b : buckets_) n += b.capacity();
  for (const Lane& lane : lanes_) n += lane.items.capacity();
  return n;
}

bool EventQueue::pop_until(TimeNs limit, TimeNs& time, EventCallback& callback) {
  for (;;) {
    bool in_bucket0 = front0_ < buckets_[0].size();
    Lane* lane = busy_lanes_ > 0 ? first_lane() : nullptr;
    bool from_lane = false;
    if (lane) {
      // The radix heap's candidate: bucket 0's front, or the earliest time of its lowest
      // bucket (refilled into bucket 0 only when it is taken or ties with the lane).
      TimeNs radix_time = kTimeMax;
      if (in_bucket0) radix_time = buckets_[0][front0_].time;
      else if (nonempty_ != 0) radix_time = bucket_min_[std::countr_zero(nonempty_) + 1];
      if (lane->first().time < radix_time) {
        from_lane = true;
      } else if (lane->first().time == radix_time) {
        if (radix_time > limit) return false;
        if (!in_bucket0) in_bucket0 = refill_bucket0(limit);  // to compare sequence numbers
        from_lane = !in_bucket0 || lane->first().seq < buckets_[0][front0_].seq;
      }
    }
    if (!from_lane && !in_bucket0 && !refill_bucket0(limit)) return false;
    const Entry& e = from_lane ? lane->first() : buckets_[0][front0_];
    if (e.time > limit) return false;
    if (from_lane) {
      ++lane->front;
      if (lane->empty()) --busy_lanes_;
    } else {
      ++front0_;
    }
    floor_ = e.time;
    const Entry popped = e;
    if (from_lane) trim(*lane);
    if (!cancelled_.empty() && cancelled_.erase(popped.seq) == 1) continue;
    time = popped.time;
    callback = popped.callback;
    --live_;
    return true;
  }
}

// A lane keeps its storage for the next entries, within bounds: an empty lane keeps at
// most kKeptCapacity, and one that never empties (a steady stream) drops its popped part
// once that is most of it, so its storage stays within twice its pending entries.
void EventQueue::trim(Lane& lane) {
  if (lane.empty()) {
    if (lane.items.capacity() > kKeptCapacity) std::vector<Entry>().swap(lane.items);
    else lane.items.clear();
    lane.front = 0;
  } else {
    drop_popped_prefix(lane.items, lane.front, kKeptCapacity);
  }
}

void EventQueue::compact() {
  for (Lane& lane : lanes_) {
    lane.items.erase(std::remove_if(lane.items.begin() + static_cast<std::ptrdiff_t>(lane.front), lane.items.end(),
                                    [this](const Entry& e) { return cancelled_.count(e.seq) == 1; }),
                     lane.items.end());
    trim(lane);
  }
  busy_lanes_ = static_cast<int>(std::count_if(lanes_.begin(), lanes_.end(), [](const Lane& l) { return !l.empty(); }));
  for (std::size_t k = 0; k < buckets_.size(); ++k) {
    auto& bucket = buckets_[k];
    const auto first = bucket.begin() + static_cast<std::ptrdiff_t>(k == 0 ? front0_ : 0);
    bucket.erase(std::remove_if(first, bucket.end(), [this](const Entry& e) { return cancelled_.count(e.seq) == 1; }),
                 bucket.end());
    if (k == 0) continue;
    // Keep bucket_min_ exact: a stale minimum would set floor_ to a time with no entry.
    bucket_min_[k] = kTimeMax;
    for (const Entry& e : bucket) bucket_min_[k] = std::min(bucket_min_[k], e.time);
    if (bucket.empty()) nonempty_ &= ~(std::uint64_t{1} << (k - 1));
  }
  cancelled_.clear();
}

}  // namespace pssim
