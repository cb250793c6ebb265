// RunHeap: a min-priority queue for keys that mostly arrive in increasing order.
//
// A push that is not less than the last one kept in order is appended to a sorted run
// (O(1)); any other push goes to a binary heap. top() is the lesser of the run's front
// and the heap's top, so elements come out in increasing order, exactly as from one binary
// heap over the same strict weak order (equal elements in an unspecified order, as there).
// Around an all-reduce ring every flow's end time is later than all others (it starts
// last and every flow lasts as long), so the flow network's queue of end times never
// sifts; a full max-min solve queues resources in increasing order of mostly equal shares.
//
// T needs `bool operator>(const T&) const` (a strict weak order: "comes out later").
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "sim/core/popped_prefix.hpp"

namespace pssim {

template <typename T>
class RunHeap {
 public:
  bool empty() const { return head_ == run_.size() && heap_.empty(); }
  std::size_t size() const { return run_.size() - head_ + heap_.size(); }
  /// Elements its storage has room for (its memory, in elements).
  std::size_t capacity() const { return run_.capacity() + heap_.capacity(); }

  /// The least element; the queue must not be empty.
  const T& top() const { return from_run() ? run_[head_] : heap_.front(); }

  void push(const T& x) {
    if (head_ == run_.size() || !(run_.back() > x)) {
      run_.push_back(x);
    } else {
      heap_.push_back(x);
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
    }
  }

  /// Empties the queue, keeping its storage.
  void clear() {
    run_.clear();
    head_ = 0;
    heap_.clear();
  }

  /// Removes top(); the queue must not be empty.
  void pop() {
    if (!from_run()) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      heap_.pop_back();
      return;
    }
    if (++head_ == run_.size()) {
      run_.clear();
      head_ = 0;
    } else {
      drop_popped_prefix(run_, head_, kCompactAt);  // a run that never empties stays bounded
    }
  }

 private:
  static constexpr std::size_t kCompactAt = 1024;

  bool from_run() const { return head_ != run_.size() && (heap_.empty() || !(run_[head_] > heap_.front())); }

  std::vector<T> run_;  // sorted; run_[head_] is its least element
  std::size_t head_ = 0;
  std::vector<T> heap_;  // binary min-heap of the pushes that came out of order
};

}  // namespace pssim
