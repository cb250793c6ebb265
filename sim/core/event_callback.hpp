// EventCallback: what an event does when it fires.
//
// A type-erased callable stored inline (no heap allocation per event) in 16 bytes: a
// function pointer and kStorageBytes = 8 bytes of captured state. It accepts any trivially
// copyable callable that small: a lambda capturing one pointer (`[this]`, `[worker]`).
// State that does not fit belongs in the object the lambda points to. The size is what
// keeps a queue entry at 32 bytes, which the event queue's speed depends on; the limits
// are checked at compile time.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace pssim {

class EventCallback {
 public:
  static constexpr std::size_t kStorageBytes = 8;

  EventCallback() = default;

  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EventCallback>>>
  EventCallback(F&& f) {  // NOLINT(google-explicit-constructor): lambdas convert implicitly
    using Fn = std::decay_t<F>;
    static_assert(std::is_invocable_r_v<void, Fn&>, "an event callback takes no arguments");
    static_assert(sizeof(Fn) <= kStorageBytes,
                  "event callback captures too much: capture one pointer to the state instead");
    static_assert(alignof(Fn) <= alignof(std::max_align_t) && alignof(Fn) <= 8,
                  "event callback is over-aligned");
    static_assert(std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>,
                  "event callback must be trivially copyable (capture pointers and numbers only)");
    ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
    invoke_ = [](void* storage) { (*std::launder(reinterpret_cast<Fn*>(storage)))(); };
  }

  explicit operator bool() const { return invoke_ != nullptr; }
  void operator()() { invoke_(storage_); }

 private:
  alignas(8) unsigned char storage_[kStorageBytes] = {};
  void (*invoke_)(void*) = nullptr;
};

}  // namespace pssim
