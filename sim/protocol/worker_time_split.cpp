#include "sim/protocol/worker_time_split.hpp"

namespace pssim::protocol {

WorkerTimeSplit::WorkerTimeSplit(std::size_t workers, TimeNs now, Observer* observer)
    : workers_(workers), observer_(observer) {
  for (auto& w : workers_) w.since = now;
}

void WorkerTimeSplit::account(std::size_t index, TimeNs now) {
  Worker& w = workers_[index];
  const TimeNs spent = now - w.since;
  if (spent == 0) return;
  switch (w.state) {
    case WorkerState::Computing: w.stats.computing += spent; break;
    case WorkerState::Pushing: w.stats.pushing += spent; break;
    case WorkerState::Pulling: w.stats.pulling += spent; break;
    case WorkerState::Blocked: w.stats.blocked += spent; break;
    case WorkerState::Down: w.stats.down += spent; break;
  }
  if (observer_) observer_->on_worker_state(static_cast<std::int64_t>(index), w.state, w.since, now);
  w.since = now;
}

void WorkerTimeSplit::update(std::size_t index, TimeNs now) {
  Worker& w = workers_[index];
  const Activity& a = w.activity;
  const WorkerState next = a.down                   ? WorkerState::Down
                           : a.computing            ? WorkerState::Computing
                           : a.pushes_in_flight > 0 ? WorkerState::Pushing
                           : a.pulls_in_flight > 0  ? WorkerState::Pulling
                                                    : WorkerState::Blocked;
  if (next == w.state) return;
  account(index, now);
  w.state = next;
}

void WorkerTimeSplit::close(TimeNs now) {
  for (std::size_t w = 0; w < workers_.size(); ++w) account(w, now);
}

}  // namespace pssim::protocol
