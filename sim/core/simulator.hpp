// Simulator: the clock and the event loop of one simulation.
//
// A Simulator is an ordinary object with no global or static state: any number of them can
// live in one process, each used by one thread at a time. Events scheduled for the same
// time fire in the order they were scheduled, so a run is a deterministic function of
// its inputs. Simulated time (TimeNs, integer nanoseconds) only moves forward.
#pragma once

#include <cstdint>

#include "sim/core/event_queue.hpp"
#include "sim/core/random_streams.hpp"
#include "sim/core/time.hpp"

namespace pssim {

class Simulator {
 public:
  /// `seed` roots every named random stream of this simulation (see RandomStreams).
  explicit Simulator(std::uint64_t seed = 0) : random_(seed) {}
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  TimeNs now() const { return now_; }

  /// Schedules `callback` at absolute time `time` >= now(). O(1).
  /// Throws std::invalid_argument for a time in the past.
  EventId schedule_at(TimeNs time, EventCallback callback);
  /// Schedules `callback` `delay` >= 0 nanoseconds from now. Throws std::invalid_argument
  /// for a negative delay and std::overflow_error when now() + delay exceeds kTimeMax.
  EventId schedule_after(TimeNs delay, EventCallback callback);
  /// Cancels a pending event; false when it already fired or was cancelled. O(1).
  bool cancel(EventId id) { return queue_.cancel(id); }

  /// Runs until no event is pending or stop() is called.
  void run() { run_until(kTimeMax); }
  /// Runs every event with time <= `limit`, then advances the clock to `limit` (unless
  /// stop() was called, which leaves the clock at the last event).
  void run_until(TimeNs limit);
  /// Runs until `done()` is true (checked before the first event and after each one),
  /// no event is pending, or stop() is called. Returns done()'s last value.
  template <typename Predicate>
  bool run_until_condition(Predicate&& done) {
    stop_requested_ = false;
    bool finished = done();
    while (!finished && !stop_requested_ && step(kTimeMax)) finished = done();
    return finished;
  }
  /// Ends the current run_* call after the event that calls it.
  void stop() { stop_requested_ = true; }

  /// Fires the earliest pending event if its time is <= limit. Returns false if none.
  bool step(TimeNs limit);

  /// Events in the queue (starts a FlowNetwork batched into one event count once).
  std::size_t pending() const { return queue_.size(); }
  std::uint64_t events_executed() const { return events_executed_; }

  // For a model that does an event's work in line, exactly where that event would have
  // fired (FlowNetwork's start batches), and counts it as the event it replaces, so that
  // events_executed() does not depend on the shortcut.
  /// True when `id` is the last event scheduled, by anyone (it may have fired since:
  /// the caller knows).
  bool last_scheduled(EventId id) const { return id && queue_.last_seq() == id.seq; }
  /// True when no event is pending at now(): one scheduled now with delay 0 would fire
  /// next. May say false for a cancelled event not yet dropped.
  bool nothing_else_now() const { return !queue_.may_have_event_by(now_); }
  /// Counts work done in line as one executed event.
  void count_inline_event() { ++events_executed_; }
  const RandomStreams& random() const { return random_; }

 private:
  EventQueue queue_;
  TimeNs now_ = 0;
  std::uint64_t events_executed_ = 0;
  bool stop_requested_ = false;
  RandomStreams random_;
};

}  // namespace pssim
