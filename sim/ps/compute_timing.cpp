#include "sim/ps/compute_timing.hpp"

#include <algorithm>
#include <utility>

namespace pssim::ps {

LayerOverlap::LayerOverlap(Simulator& sim, Listener& listener, std::size_t workers,
                           std::vector<compute::LayerFlops> flops, std::vector<bool> sends, bool full)
    : sim_(sim), listener_(listener), flops_(std::move(flops)), sends_(std::move(sends)), full_(full), lanes_(workers) {
  for (std::size_t w = 0; w < workers; ++w) {
    lanes_[w].overlap = this;
    lanes_[w].worker = w;
    lanes_[w].layer_arrival.assign(flops_.size(), 0);
  }
}

void LayerOverlap::start(std::size_t worker, TimeNs duration) {
  Lane& lane = lanes_[worker];
  const std::vector<TimeNs> ends = compute::step_ends(duration, flops_);
  const std::size_t layers = flops_.size();
  const TimeNs now = sim_.now();
  TimeNs backward_start = now + ends[layers - 1];
  if (full_) {
    // Forward step l waits for the pieces of layer l (and for step l - 1). The policy let
    // the worker start only once every slice it needs is in, so this is never before now.
    TimeNs t = lane.last_finish, previous = 0;
    for (std::size_t l = 0; l < layers; ++l) {
      t = std::max(t, lane.layer_arrival[l]) + (ends[l] - previous);
      previous = ends[l];
    }
    backward_start = std::max(t, now);
  }
  Lane* p = &lane;
  // One event per layer that sends, in backward order (the last layer first); each takes
  // the next such layer from lane.backward_layer (events at one time run in schedule
  // order), so that an event captures one pointer.
  lane.backward_layer = layers;
  for (std::size_t j = 0; j < layers; ++j) {
    if (!sends_[layers - 1 - j]) continue;
    sim_.schedule_at(backward_start + (ends[layers + j] - ends[layers - 1]), [p] {
      do --p->backward_layer;
      while (!p->overlap->sends_[p->backward_layer]);
      p->overlap->listener_.layer_computed(p->worker, p->backward_layer);
    });
  }
  sim_.schedule_at(backward_start + (duration - ends[layers - 1]),
                   [p] { p->overlap->listener_.computed(p->worker); });
}

// The gradient left with the backward steps.
bool LayerOverlap::finished(std::size_t worker) {
  lanes_[worker].last_finish = sim_.now();
  return true;
}

void LayerOverlap::arrived(std::size_t worker, std::size_t first, std::size_t last) {
  if (!full_) return;
  for (std::size_t l = first; l <= last; ++l) lanes_[worker].layer_arrival[l] = sim_.now();
}

}  // namespace pssim::ps
