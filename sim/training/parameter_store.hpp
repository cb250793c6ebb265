// ParameterStore: the update side of training math, in the protocols' terms.
//
// The store holds every part's current slice and applies updates to it: one averaged
// update per clock (sync, SSP, all-reduce) or one gradient at a time (async). A parameter
// server's shard is a part of the store; an all-reduced part is one replica that every
// worker holds (all replicas apply the same average to the same state, so one copy
// stands for all). ModelParameters implements it with models/ optimizers, tests with
// fakes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/training/slices.hpp"

namespace pssim::training {

class ParameterStore {
 public:
  virtual ~ParameterStore() = default;

  /// Part p's current slice (version 0 before any update).
  virtual SliceRef current(std::size_t part) const = 0;

  /// Adds worker w's gradient g (staleness tau) to part p's update for `clock`. An update
  /// sums its gradients in worker order, not arrival order, so the math does not depend on
  /// timing (sharding, placement and algorithms change time, not results).
  virtual void accumulate(std::size_t part, std::int64_t clock, std::size_t worker, const GradientRef& g,
                          std::int64_t tau) = 0;
  /// Applies the average of the `count` gradients given for `clock`; returns the new slice.
  virtual SliceRef apply_average(std::size_t part, std::int64_t clock, std::int64_t count) = 0;
  /// Applies worker w's gradient g alone (staleness tau), computed on `computed_on` (null
  /// unless needs_computed_on()); returns the new slice.
  virtual SliceRef apply_one(std::size_t part, std::size_t worker, const GradientRef& g, std::int64_t tau,
                             const SliceRef& computed_on) = 0;

  /// A part's answer to a pull: what the worker will hold, and the message's size
  /// (nullopt: the uncompressed slice).
  struct PullMessage {
    SliceRef held;
    std::optional<double> bytes;
  };
  /// The messages part p sends now, at its current version, to each of `workers` (never
  /// version 0, which goes out whole): the slice itself, or what the worker's last update
  /// prepared for it (a scheme whose workers get something of their own). Default: the slice.
  virtual std::vector<PullMessage> pull_messages(std::size_t part, const std::vector<std::size_t>& workers) {
    return std::vector<PullMessage>(workers.size(), PullMessage{current(part), std::nullopt});
  }

  /// True when apply_one needs the slice a gradient was computed on (delay compensation).
  virtual bool needs_computed_on() const { return false; }

  // ---- failures (dynamics)
  /// Forgets every gradient accumulated for part p (its shard lost them in a crash).
  virtual void discard_pending(std::size_t part) = 0;
  /// Forgets worker w's gradient accumulated for part p's `clock` (it left an all-reduce
  /// whose round runs again without it).
  virtual void discard(std::size_t part, std::int64_t clock, std::size_t worker) = 0;
  /// Part p goes back to `slice`, the state it had after `updates` updates (a checkpoint:
  /// the parameters and the update count, which schedules read; an optimizer's moments
  /// are not part of it and stay as they are).
  virtual void restore(std::size_t part, SliceRef slice, std::int64_t updates) = 0;
};

}  // namespace pssim::training
