// The state a PsProtocol keeps of its workers and shards, and the messages between them:
// what the engine and its scheme policy (scheme_policy.hpp) share. Each type groups its
// fields by concern; a field's comment says which runs use it. Versions are counts of a
// part's updates (-1: none held); times are simulated ns.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/event_queue.hpp"
#include "sim/core/time.hpp"
#include "sim/net/topology.hpp"
#include "sim/ps/pieces.hpp"
#include "sim/training/slices.hpp"

namespace pssim::ps {

class PsProtocol;

struct Worker {
  /// Its engine: the one pointer an event about this worker captures.
  PsProtocol* engine = nullptr;
  std::size_t index = 0;
  net::NodeId host = 0;

  /// What it holds of each part, and what its computation under way (or its last) used.
  struct Parts {
    std::vector<std::int64_t> held;  ///< version of each part held (-1: none yet)
    std::vector<std::int64_t> used;  ///< versions the current/last computation used
    std::vector<training::SliceRef> held_slices;  ///< math: the slices held
    std::vector<training::SliceRef> used_slices;  ///< math, delay compensation only: the slices used
    /// Per part: the incarnation of the shard whose version it holds (used); a shard
    /// restored from a checkpoint starts a new one (server crashes).
    std::vector<std::uint16_t> held_incarnation, used_incarnation;
    std::int64_t ready = 0;  ///< parts whose slice allows the next computation (the policy counts)
  } parts;

  /// Its computations.
  struct Computing {
    std::uint64_t ticket = 0;    ///< math: the gradient being computed
    std::int64_t iteration = 0;  ///< computations started (the next one's clock)
    TimeNs started = 0;          ///< of the current/last one
    std::int64_t batch = 0;      ///< adaptive batches: samples of the current/last one
  } compute;

  /// Its host's failures (dynamics).
  struct Liveness {
    bool up = true;          ///< its host is up
    bool member = true;      ///< counted in barriers (up, or down for less than failure_timeout)
    std::uint32_t crashes = 0;
    TimeNs down_since = 0;   ///< its last crash
  } life;

  /// Overlap only: this iteration's pushes, which leave layer by layer.
  struct LayerPushes {
    std::vector<std::uint32_t> tags;  ///< per shard: its message (opened with the first layer)
    std::vector<double> bytes;        ///< per shard: its size
    bool reduced = false;             ///< the all-reduced part's gradient was handed in
  } layer_pushes;
};

struct Shard {
  /// Its engine: the one pointer an event about this shard captures.
  PsProtocol* engine = nullptr;
  std::size_t index = 0;
  net::NodeId host = 0;
  double bytes = 0;                       ///< the slice, uncompressed
  double push_bytes = 0, pull_bytes = 0;  ///< a message without math (see PsConfig)
  std::int64_t params = 0;
  std::vector<Piece> pieces;              ///< pieced runs: the pieces of its messages

  // Its updates.
  bool applying = false;
  TimeNs apply_started = 0;
  EventId apply_event;  ///< the pending end of an apply

  // Failures (dynamics).
  bool up = true;
  std::uint16_t incarnation = 0;  ///< restores so far: versions of a lost state are not this one's
  /// Its checkpoints: written every PsConfig::checkpoint_every, read back after a crash.
  struct Checkpoint {
    EventId event;             ///< the pending end of a write or a read
    bool busy = false;         ///< writing (or reading back): no update starts
    bool apply_waiting = false;  ///< an update is due once the checkpoint is written
    bool due = false;          ///< a checkpoint is due once the update is applied
    std::int64_t version = 0;  ///< the last one written (0: the initial parameters)
    training::SliceRef slice;  ///< math: its parameters
    std::int64_t writing_version = 0;  ///< the one being written
    training::SliceRef writing_slice;
  } checkpoint;
};

/// A message between a worker and a shard, as delivered (MessagePool keeps it in flight).
struct Message {
  enum class Kind : std::uint8_t { Pull, Push } kind = Kind::Pull;
  std::int64_t worker = 0, shard = 0;
  std::int64_t version = 0;        ///< pull: version sent; push: version computed on
  std::int64_t clock = 0;          ///< push: the worker's iteration index
  training::SliceRef slice;        ///< math, pull: the slice sent
  training::GradientRef gradient;  ///< math, push: the shard's part of the gradient
  training::SliceRef computed_on;  ///< math, push with delay compensation: the slice it used
};

}  // namespace pssim::ps
