#include "sim/compute/compute_runner.hpp"

#include <cmath>
#include <stdexcept>

namespace pssim::compute {

ComputeRunner::ComputeRunner(Simulator& sim, std::size_t workers, Listener& listener)
    : sim_(sim), listener_(listener), workers_(workers) {
  for (std::size_t w = 0; w < workers; ++w) workers_[w].runner = this, workers_[w].index = w;
}

void ComputeRunner::start(std::size_t index, TimeNs duration) {
  Worker& w = workers_.at(index);
  if (w.event) throw std::logic_error("a worker computes one thing at a time");
  w.started = w.since = sim_.now();
  w.left = static_cast<double>(duration);
  if (w.factor == 1) {  // the exact duration, as without dynamics
    Worker* p = &w;
    w.event = sim_.schedule_after(duration, [p] { p->runner->done(*p); });
    return;
  }
  schedule(w);
}

void ComputeRunner::schedule(Worker& w) {
  Worker* p = &w;
  const double ns = std::nearbyint(w.left / w.factor);
  w.event = sim_.schedule_after(seconds_to_ns(ns / 1e9), [p] { p->runner->done(*p); });
}

void ComputeRunner::done(Worker& w) {
  w.event = {};
  listener_.on_computed(w.index);
}

TimeNs ComputeRunner::cancel(std::size_t index) {
  Worker& w = workers_.at(index);
  if (!w.event) return 0;
  sim_.cancel(w.event);
  w.event = {};
  return sim_.now() - w.started;
}

void ComputeRunner::set_factor(std::size_t index, double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) throw std::invalid_argument("a speed factor must be positive");
  Worker& w = workers_.at(index);
  if (w.event) {
    const TimeNs now = sim_.now();
    w.left = std::max(0.0, w.left - static_cast<double>(now - w.since) * w.factor);
    w.since = now;
    sim_.cancel(w.event);
    w.factor = factor;
    schedule(w);
    return;
  }
  w.factor = factor;
}

}  // namespace pssim::compute
