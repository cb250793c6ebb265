// JobPool: runs independent computations (gradients, evaluation chunks) on worker
// threads while the simulation goes on, deterministically.
//
// A job's result depends only on its inputs, and callers consume results in the order of
// the simulation, so outputs are identical for any number of threads. `threads` counts the
// caller: the pool starts threads - 1 helpers, and a caller that waits for a job runs
// queued jobs itself instead of idling (with threads = 1, jobs run inline, lazily, when
// their result is first needed).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace pssim::parallel {

/// The system would not start the threads a pool asked for: a limit of the machine
/// (processes, memory), not a fault of the inputs.
class ThreadsRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class JobPool {
 public:
  /// The thread a job runs on: 0 for the caller, 1 .. threads-1 for helpers. Jobs use it
  /// to pick per-thread buffers.
  using Job = std::function<void(unsigned thread)>;
  class Ticket;

  /// Starts threads - 1 helpers. Throws ThreadsRefused, saying how many could be started,
  /// when the system refuses a thread; the helpers already started are stopped first.
  explicit JobPool(unsigned threads);
  ~JobPool();
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  unsigned threads() const { return threads_; }
  /// Queues a job. Exceptions it throws are rethrown by wait().
  std::shared_ptr<Ticket> submit(Job job);
  /// Returns once the ticket's job has run, running queued jobs meanwhile.
  void wait(const std::shared_ptr<Ticket>& ticket);
  /// True once the ticket's job has run (or was discarded).
  bool done(const std::shared_ptr<Ticket>& ticket) const;
  /// Drops a job that has not started; returns false when it is running (wait() for it
  /// before freeing what it uses).
  bool discard(const std::shared_ptr<Ticket>& ticket);

  class Ticket {
    friend class JobPool;
    Job job_;
    enum class State { Queued, Running, Done } state_ = State::Queued;
    std::exception_ptr error_;
  };

 private:
  void helper_loop(unsigned thread);
  void stop_helpers();
  void run(const std::shared_ptr<Ticket>& t, unsigned thread, std::unique_lock<std::mutex>& lock);

  unsigned threads_;
  mutable std::mutex mutex_;
  std::condition_variable work_, finished_;
  std::deque<std::shared_ptr<Ticket>> queue_;
  std::vector<std::thread> helpers_;
  bool stopping_ = false;
};

}  // namespace pssim::parallel
