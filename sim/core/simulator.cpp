#include "sim/core/simulator.hpp"

#include <stdexcept>
#include <string>

namespace pssim {

EventId Simulator::schedule_at(TimeNs time, EventCallback callback) {
  if (time < now_)
    throw std::invalid_argument("cannot schedule an event in the past (at " + std::to_string(time) +
                                " ns, now " + std::to_string(now_) + " ns)");
  return queue_.push(time, callback);
}

EventId Simulator::schedule_after(TimeNs delay, EventCallback callback) {
  if (delay < 0) throw std::invalid_argument("negative event delay " + std::to_string(delay) + " ns");
  if (delay > kTimeMax - now_) throw std::overflow_error("event time beyond the simulator's range");
  return queue_.push(now_ + delay, callback);
}

bool Simulator::step(TimeNs limit) {
  TimeNs time;
  EventCallback callback;
  if (!queue_.pop_until(limit, time, callback)) return false;
  now_ = time;
  ++events_executed_;
  callback();
  return true;
}

void Simulator::run_until(TimeNs limit) {
  stop_requested_ = false;
  while (!stop_requested_ && step(limit)) {
  }
  if (!stop_requested_ && limit != kTimeMax && limit > now_) now_ = limit;
}

}  // namespace pssim
