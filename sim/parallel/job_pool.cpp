#include "sim/parallel/job_pool.hpp"

#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace pssim::parallel {

JobPool::JobPool(unsigned threads) : threads_(threads == 0 ? 1 : threads) {
  try {
    helpers_.reserve(threads_ - 1);
    for (unsigned t = 1; t < threads_; ++t) helpers_.emplace_back([this, t] { helper_loop(t); });
  } catch (const std::exception& e) {
    // The helpers started so far must be joined: a joinable std::thread destroyed by the
    // unwinding would call std::terminate.
    const std::size_t started = helpers_.size();
    stop_helpers();
    throw ThreadsRefused(fmt::format("cannot start {} threads: the system refused after {} ({}); use fewer "
                                         "threads (--threads) or raise the limit on processes or memory",
                                         threads_, started + 1, e.what()));
  }
}

JobPool::~JobPool() { stop_helpers(); }

void JobPool::stop_helpers() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (auto& h : helpers_) h.join();
  helpers_.clear();
}

bool JobPool::done(const std::shared_ptr<Ticket>& ticket) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return ticket->state_ == Ticket::State::Done;
}

bool JobPool::discard(const std::shared_ptr<Ticket>& ticket) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (ticket->state_ != Ticket::State::Queued) return ticket->state_ == Ticket::State::Done;
  for (auto it = queue_.begin(); it != queue_.end(); ++it)
    if (*it == ticket) {
      queue_.erase(it);
      break;
    }
  ticket->job_ = nullptr;
  ticket->state_ = Ticket::State::Done;
  return true;
}

std::shared_ptr<JobPool::Ticket> JobPool::submit(Job job) {
  auto t = std::make_shared<Ticket>();
  t->job_ = std::move(job);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(t);
  }
  work_.notify_one();
  return t;
}

// Runs `t` with the lock released; `lock` is held on entry and on return.
void JobPool::run(const std::shared_ptr<Ticket>& t, unsigned thread, std::unique_lock<std::mutex>& lock) {
  t->state_ = Ticket::State::Running;
  lock.unlock();
  std::exception_ptr error;
  try {
    t->job_(thread);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  t->job_ = nullptr;  // free what the job captured
  t->error_ = error;
  t->state_ = Ticket::State::Done;
  finished_.notify_all();
}

void JobPool::helper_loop(unsigned thread) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    auto t = queue_.front();
    queue_.pop_front();
    run(t, thread, lock);
  }
}

void JobPool::wait(const std::shared_ptr<Ticket>& ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (ticket->state_ != Ticket::State::Done) {
    if (ticket->state_ == Ticket::State::Queued) {
      // Run the awaited job itself first: no point waiting for a helper to pick it up.
      for (auto it = queue_.begin(); it != queue_.end(); ++it)
        if (*it == ticket) {
          queue_.erase(it);
          break;
        }
      run(ticket, 0, lock);
    } else if (!queue_.empty()) {
      auto t = queue_.front();
      queue_.pop_front();
      run(t, 0, lock);
    } else {
      finished_.wait(lock);
    }
  }
  if (ticket->error_) std::rethrow_exception(ticket->error_);
}

}  // namespace pssim::parallel
