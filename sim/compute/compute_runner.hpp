// ComputeRunner: the workers' computations in progress, at speeds that may change.
//
// A computation is given its duration at the worker's usual speed (ComputeModel's
// draw: throughput, persistent factor, noise). The runner scales it by the worker's
// dynamic factor (1 until set_factor: a worker_speed event, a Markov straggler state):
// at factor f it takes duration / f. A factor change mid-computation applies to the rest:
// work left (in ns at factor 1) = (end - now) x f_old; new end = now + work left / f_new.
// cancel() drops a computation (its host failed, or the protocol abandons it): no
// callback follows. With factor 1 throughout, a computation ends exactly `duration`
// after start, through one event scheduled as start() is called (so runs without
// dynamics keep their event order).
#pragma once

#include <cstddef>
#include <vector>

#include "sim/core/simulator.hpp"

namespace pssim::compute {

class ComputeRunner {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    /// Worker w's computation ended.
    virtual void on_computed(std::size_t w) = 0;
  };

  ComputeRunner(Simulator& sim, std::size_t workers, Listener& listener);
  ComputeRunner(const ComputeRunner&) = delete;
  ComputeRunner& operator=(const ComputeRunner&) = delete;

  /// Starts worker w's computation of `duration` ns at factor 1 (none may be running).
  void start(std::size_t w, TimeNs duration);
  /// Drops worker w's running computation, if any; returns the time it had run.
  TimeNs cancel(std::size_t w);
  /// Worker w runs at `factor` (> 0) times its usual speed from now on.
  void set_factor(std::size_t w, double factor);
  double factor(std::size_t w) const { return workers_[w].factor; }
  bool running(std::size_t w) const { return static_cast<bool>(workers_[w].event); }

 private:
  struct Worker {
    ComputeRunner* runner = nullptr;
    std::size_t index = 0;
    double factor = 1;
    EventId event;       // the end of the running computation
    TimeNs started = 0;  // when it started
    TimeNs since = 0;    // when `left` was last brought up to date
    double left = 0;     // ns of work at factor 1 left at `since`
  };
  void schedule(Worker& w);
  void done(Worker& w);

  Simulator& sim_;
  Listener& listener_;
  std::vector<Worker> workers_;
};

}  // namespace pssim::compute
