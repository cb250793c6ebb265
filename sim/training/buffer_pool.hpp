// BufferPool: recycles large, equally sized objects (parameter slices, gradient parts)
// handed out as shared_ptr, so that a new version or gradient reuses memory that is
// already mapped instead of page-faulting a fresh allocation.
//
// get() returns an object whose deleter gives it back to the pool; the pool keeps at most
// `max_free` returned objects and deletes the rest. The cap matters: a pool that kept
// everything it ever saw would hold the peak count of its kind forever (in async
// training, every worker's first gradient in flight at once), and the peaks of different
// kinds would add up. Thread-safe. Objects may outlive the pool: their deleter then just
// deletes them. Contents of a recycled object are whatever its last user left.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace pssim::training {

template <typename T>
class BufferPool {
 public:
  /// `make` creates a new object when none is free.
  BufferPool(std::size_t max_free, std::function<T*()> make)
      : state_(std::make_shared<State>()), make_(std::move(make)) {
    state_->max_free = max_free;
  }
  ~BufferPool() {
    if (!state_) return;  // moved from
    const std::lock_guard<std::mutex> lock(state_->mutex);
    state_->alive = false;
    for (T* t : state_->free) delete t;
    state_->free.clear();
  }
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  BufferPool(BufferPool&&) = default;

  std::shared_ptr<T> get() {
    T* t = nullptr;
    {
      const std::lock_guard<std::mutex> lock(state_->mutex);
      if (!state_->free.empty()) t = state_->free.back(), state_->free.pop_back();
    }
    if (!t) t = make_();
    return {t, [state = state_](T* b) {
              const std::lock_guard<std::mutex> lock(state->mutex);
              if (state->alive && state->free.size() < state->max_free) state->free.push_back(b);
              else delete b;
            }};
  }

 private:
  struct State {
    std::mutex mutex;
    std::vector<T*> free;
    std::size_t max_free = 0;
    bool alive = true;
  };
  std::shared_ptr<State> state_;
  std::function<T*()> make_;
};

}  // namespace pssim::training
