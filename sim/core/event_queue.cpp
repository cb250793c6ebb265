#include "sim/core/event_queue.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

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
  place({time, seq, callback});
  ++live_;
  return {time, seq};
}

void EventQueue::place(const Entry& e) {
  const int k = bucket_of(e.time, floor_);
  buckets_[k].push_back(e);
  if (k == 0) return;
  nonempty_ |= std::uint64_t{1} << (k - 1);
  bucket_min_[k] = std::min(bucket_min_[k], e.time);
}

bool EventQueue::in_bucket0(std::uint64_t seq) const {
  const auto& b0 = buckets_[0];
  for (std::size_t i = front0_; i < b0.size(); ++i)
    if (b0[i].seq == seq) return true;
  return false;
}

bool EventQueue::cancel(EventId id) {
  if (!id || id.seq >= next_seq_ || id.time < floor_) return false;
  if (id.time == floor_ && !in_bucket0(id.seq)) return false;  // already fired
  if (!cancelled_.insert(id.seq).second) return false;        // already cancelled
  --live_;
  if (cancelled_.size() > 1024 && cancelled_.size() > live_) compact();
  return true;
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
  floor_ = bucket_min_[k];
  auto& source = buckets_[k];
  bucket_min_[k] = kTimeMax;
  nonempty_ &= ~(std::uint64_t{1} << (k - 1));
  const auto at_floor = [this](const Entry& e) { return e.time == floor_; };
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
  return n;
}

bool EventQueue::pop_until(TimeNs limit, TimeNs& time, EventCallback& callback) {
  for (;;) {
    if (front0_ == buckets_[0].size() && !refill_bucket0(limit)) return false;
    const Entry& e = buckets_[0][front0_];
    if (e.time > limit) return false;
    ++front0_;
    if (!cancelled_.empty() && cancelled_.erase(e.seq) == 1) continue;
    time = e.time;
    callback = e.callback;
    --live_;
    return true;
  }
}

void EventQueue::compact() {
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
