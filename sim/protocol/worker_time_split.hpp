// WorkerTimeSplit: each worker's time split into computing, pushing, pulling and blocked.
//
// A protocol keeps, per worker, whether it computes and how many of its messages are in
// flight each way (and whether its host is down); after every change it calls update(), which gives the time since the
// last change to the state that held (the first true of computing, pushing, pulling,
// blocked) and reports the finished span to the observer.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/protocol/training_protocol.hpp"

namespace pssim::protocol {

class WorkerTimeSplit {
 public:
  /// Every worker starts blocked at `now`.
  WorkerTimeSplit(std::size_t workers, TimeNs now, Observer* observer);

  struct Activity {
    bool computing = false;
    std::int64_t pushes_in_flight = 0;  ///< its gradients (or reduce-step messages) in flight
    std::int64_t pulls_in_flight = 0;   ///< parameters (or gather-step messages) in flight to it
    bool down = false;                  ///< its host has failed (before everything else)
  };
  Activity& activity(std::size_t w) { return workers_[w].activity; }
  /// Re-derives worker w's state from its activity at `now`.
  void update(std::size_t w, TimeNs now);
  /// Books every worker's time up to `now` (at the end of a run).
  void close(TimeNs now);

  std::size_t size() const { return workers_.size(); }
  const WorkerStats& stats(std::size_t w) const { return workers_[w].stats; }
  WorkerStats& stats(std::size_t w) { return workers_[w].stats; }

 private:
  struct Worker {
    Activity activity;
    WorkerState state = WorkerState::Blocked;
    TimeNs since = 0;
    WorkerStats stats;
  };
  void account(std::size_t w, TimeNs now);

  std::vector<Worker> workers_;
  Observer* observer_;
};

}  // namespace pssim::protocol
