// ComputeTiming: how a PS worker's computation is laid out in time, and when its gradient
// may leave. One strategy object the engine consults when a computation starts and ends
// and when parameters arrive, instead of overlap branches in its handlers; the semantics
// are stated in ps_protocol.hpp ("Overlap and scheduling").
//
//   WholeIteration  the iteration runs whole on the compute runner (its speed may change
//                   mid-way); the engine sends the gradient once it ends (overlap none).
//   LayerOverlap    the iteration is cut into layer steps (compute/layer_timeline.hpp):
//                   forward through the layers, then backward from the last; when the
//                   backward step of a layer that sends something ends, the listener is
//                   told (`backward`); under `full`, layer l's forward step also waits for
//                   the last piece of layer l's parameters and for the previous computation.
//
// Times are simulated ns; a layer index is in forward order.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/compute/compute_runner.hpp"
#include "sim/compute/layer_timeline.hpp"
#include "sim/core/simulator.hpp"

namespace pssim::ps {

class ComputeTiming {
 public:
  /// What a layered timing tells the engine (the whole iteration's end comes through the
  /// compute runner's listener instead).
  class Listener {
   public:
    /// Worker w's backward step of `layer` ended: that layer's gradient exists.
    virtual void layer_computed(std::size_t worker, std::size_t layer) = 0;
    /// Worker w's computation ended (after its layers' events).
    virtual void computed(std::size_t worker) = 0;

   protected:
    ~Listener() = default;
  };

  virtual ~ComputeTiming() = default;
  /// Worker w starts computing now, for `duration` (its whole iteration, at its usual speed).
  virtual void start(std::size_t worker, TimeNs duration) = 0;
  /// Worker w's computation ended now: true when its gradient left layer by layer while it
  /// ran, so that the engine sends nothing more for it.
  virtual bool finished(std::size_t worker) = 0;
  /// Layers first..last of the parameters it computes on next reached worker w now (the
  /// last piece of a layer of a pull; an all-reduced bucket's result).
  virtual void arrived(std::size_t /*worker*/, std::size_t /*first*/, std::size_t /*last*/) {}
};

class WholeIteration final : public ComputeTiming {
 public:
  explicit WholeIteration(compute::ComputeRunner& runner) : runner_(runner) {}
  void start(std::size_t worker, TimeNs duration) override { runner_.start(worker, duration); }
  bool finished(std::size_t) override { return false; }

 private:
  compute::ComputeRunner& runner_;
};

class LayerOverlap final : public ComputeTiming {
 public:
  /// `flops`: each layer's forward and backward shares; `sends`: per layer, whether its
  /// backward step sends something (a shard holds a piece of it, or an all-reduced bucket
  /// starts there); `full`: forward steps wait for their layer's parameters.
  LayerOverlap(Simulator& sim, Listener& listener, std::size_t workers, std::vector<compute::LayerFlops> flops,
               std::vector<bool> sends, bool full);
  void start(std::size_t worker, TimeNs duration) override;
  bool finished(std::size_t worker) override;
  void arrived(std::size_t worker, std::size_t first, std::size_t last) override;

 private:
  // A worker's layer steps. Its events point at it (stable: sized once).
  struct Lane {
    LayerOverlap* overlap = nullptr;
    std::size_t worker = 0;
    std::vector<TimeNs> layer_arrival;  // full: when the last piece of each layer arrived
    TimeNs last_finish = 0;             // full: end of the previous computation
    std::size_t backward_layer = 0;     // the sending layer whose backward step ended last
  };

  Simulator& sim_;
  Listener& listener_;
  std::vector<compute::LayerFlops> flops_;  // per layer
  std::vector<bool> sends_;                 // per layer
  bool full_;
  std::vector<Lane> lanes_;  // per worker
};

}  // namespace pssim::ps
