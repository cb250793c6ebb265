// PsEngine: workers and parameter shards exchanging messages under a PS protocol.
//
// Workers compute on the parameter slices they hold and push one gradient slice to every
// shard; shards apply updates and send slices back. The protocols (see the scenario
// reference for the user's view):
//   sync  each shard collects one gradient per worker for its current version (all but
//         `backup_workers`: later ones are dropped), applies their average, and sends its
//         new slice to every worker. A worker starts when it holds a newer slice from
//         every shard than it last used (per-shard barrier, no global barrier).
//   async each gradient is applied on arrival (FIFO per shard); the shard then sends its
//         current slice back to that worker, which starts again once every shard answered.
//   ssp   shards apply one average per clock, as sync, over all workers; a worker starts
//         iteration c as soon as every shard is at version >= c - staleness, on the newest
//         slices it holds. staleness 0 is sync.
// Every shard sends version 0 to every worker at time 0. Staleness of a gradient at a
// shard = the shard's version when it is applied - the version it was computed on.
//
// Math: with a PsMath, every message carries what it stands for (a shard's slice at a
// version, or a worker's gradient part for that shard), workers compute real gradients on
// the slices they hold, and shards apply real updates (see ps_math.hpp); without one, the
// engine only times things. Message sizes: 4 bytes per parameter of the shard; with
// compression (compression.hpp), the sizes of the real encodings the math reports, or
// PsConfig's fixed sizes without math. Version 0 always goes out whole.
//
// The time split of each worker gives every instant to the first true of computing,
// pushing (own gradients in flight), pulling (slices in flight to it), blocked (waiting
// for others).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/net/transport.hpp"
#include "sim/ps/compute_model.hpp"
#include "sim/ps/observer.hpp"
#include "sim/ps/partition.hpp"
#include "sim/ps/ps_math.hpp"

namespace pssim::ps {

struct PsConfig {
  enum class Mode { Sync, Async, Ssp } mode = Mode::Sync;
  std::int64_t backup_workers = 0;         ///< sync
  std::int64_t staleness = 0;              ///< ssp
  double flops_per_iteration = 0;          ///< batch x FLOPs per sample
  std::optional<double> apply_bandwidth;   ///< bytes/s of slice a shard updates; none: free
  std::optional<std::int64_t> stop_updates;  ///< finished() once every shard has this many
  std::optional<std::int64_t> stop_samples;  ///< finished() once shard 0's updates covered this many samples
  /// Bytes of each shard's push and pull messages when the math does not give them (no
  /// math, or the direction is uncompressed); empty: 4 bytes per parameter. Version 0
  /// always goes out whole.
  std::vector<double> push_bytes, pull_bytes;
  /// Compression cost in seconds per element encoded or decoded, per direction (0: free or
  /// uncompressed). A worker's iteration takes (push + pull) x all parameters longer (it
  /// encodes its pushes and decodes its pulls); a shard's update (push x gradients + pull
  /// x messages it sends) x its parameters.
  double push_codec_seconds = 0, pull_codec_seconds = 0;
};

struct PsLayout {
  std::vector<net::NodeId> worker_hosts;  ///< one per worker
  std::vector<Shard> shards;
  std::vector<net::NodeId> shard_hosts;   ///< one per shard
};

struct WorkerStats {
  std::int64_t iterations = 0;  ///< computations finished
  TimeNs computing = 0, pushing = 0, pulling = 0, blocked = 0;
};

struct PsTotals {
  std::int64_t updates = 0;            ///< shard updates applied
  std::int64_t samples = 0;            ///< training samples in shard 0's updates (math only)
  std::int64_t gradients_applied = 0;  ///< gradient slices included in updates
  std::int64_t gradients_dropped = 0;
  std::int64_t rounds = 0;             ///< sync/ssp: clocks applied by every shard
  double push_bytes = 0;               ///< bytes of all push messages sent
  double pull_bytes = 0;               ///< bytes of all pull messages sent (version 0 included)
  std::vector<std::int64_t> staleness_histogram;  ///< [tau] = gradient slices with staleness tau
};

class PsEngine : private net::MessageSink {
 public:
  PsEngine(Simulator& sim, net::Transport& transport, ComputeModel& compute, PsConfig config, PsLayout layout,
           PsObserver* observer = nullptr, PsMath* math = nullptr);
  PsEngine(const PsEngine&) = delete;
  PsEngine& operator=(const PsEngine&) = delete;

  /// Schedules the initial broadcast (version 0 to every worker) at the current time.
  void start();
  /// True once a stop condition of the config holds, or the training loss diverged.
  bool finished() const { return finished_; }
  /// The update (1-based count of updates applied) whose gradient had a NaN or infinite
  /// loss, if one had.
  std::optional<std::int64_t> diverged_at() const { return diverged_at_; }
  /// Stops the workers (no new computation starts): for stop conditions decided outside.
  void stop() { finished_ = true; }
  /// Current slice of shard s (math only).
  const SliceRef& shard_slice(std::size_t s) const { return shards_[s].current; }
  /// Closes the workers' time accounting at the current time (call once, at the end).
  void finish();

  std::size_t workers() const { return workers_.size(); }
  std::size_t shards() const { return shards_.size(); }
  const WorkerStats& worker_stats(std::size_t w) const { return workers_[w].stats; }
  const PsTotals& totals() const { return totals_; }
  std::int64_t shard_version(std::size_t s) const { return shards_[s].version; }

 private:
  struct Worker {
    PsEngine* engine = nullptr;
    std::size_t index = 0;
    net::NodeId host = 0;
    std::vector<std::int64_t> held;  // version of each shard's slice held (-1: none yet)
    std::vector<std::int64_t> used;  // versions the current/last computation used
    std::vector<SliceRef> held_slices;  // math: the slices held
    std::vector<SliceRef> used_slices;  // math, delay compensation only: the slices used
    std::uint64_t ticket = 0;           // math: the gradient being computed
    std::int64_t ready = 0;          // shards whose slice allows the next computation
    std::int64_t iteration = 0;      // computations started
    bool computing = false;
    std::int64_t pushes_in_flight = 0, pulls_in_flight = 0;
    WorkerState state = WorkerState::Blocked;
    TimeNs state_since = 0;
    WorkerStats stats;
  };
  struct ShardState {
    PsEngine* engine = nullptr;
    std::size_t index = 0;
    net::NodeId host = 0;
    double bytes = 0;                   // the slice, uncompressed
    double push_bytes = 0, pull_bytes = 0;  // a message without math (see PsConfig)
    std::int64_t params = 0;
    std::int64_t version = 0;
    // sync / ssp: gradients collected per clock, from `version` on
    std::deque<std::int64_t> collected;
    std::deque<double> staleness_sum;
    std::deque<std::int64_t> staleness_max;
    std::deque<double> loss_sum;         // math: training losses of the collected gradients
    std::deque<std::int64_t> samples;    // math: their samples
    std::int64_t dropped_this_round = 0;
    // applying
    bool applying = false;
    struct Pending {
      std::int64_t worker, used;
      GradientRef gradient;
      SliceRef computed_on;
    };
    std::deque<Pending> async_queue;
    Pending applying_now;
    TimeNs apply_started = 0;
    SliceRef current;  // math: the slice at `version`
  };
  struct Message {
    enum class Kind : std::uint8_t { Pull, Push } kind = Kind::Pull;
    std::int64_t worker = 0, shard = 0;
    std::int64_t version = 0;  // pull: version sent; push: version computed on
    std::int64_t clock = 0;    // push: the worker's iteration index
    SliceRef slice;            // math, pull: the slice sent
    GradientRef gradient;      // math, push: the shard's part of the gradient
    SliceRef computed_on;      // math, push with delay compensation: the slice it used
  };

  // A message in flight is stored as a 32-byte head, plus its three references in a
  // parallel table only when there is math (2 messages per worker and shard are in
  // flight in a sync round: 88 bytes each was 0.7 kB per worker).
  struct StoredMessage {
    std::uint32_t worker = 0, shard = 0;
    Message::Kind kind = Message::Kind::Pull;
    std::int64_t version = 0, clock = 0;
  };
  struct StoredRefs {
    SliceRef slice;
    GradientRef gradient;
    SliceRef computed_on;
  };
  void on_delivered(std::uint64_t tag) override;
  std::uint64_t new_message(const Message& m);

  void set_flags(Worker& w);  // re-derives the state after a flag change (time split)
  void account(Worker& w);    // books the time since the last change to the current state
  void send_slice(ShardState& s, std::size_t worker, SliceRef slice, double bytes);
  void send_pulls(ShardState& s, const std::vector<std::size_t>& workers);  // the current version
  void receive_pull(const Message& m);
  void receive_push(const Message& m);
  void try_start(Worker& w);
  std::int64_t ssp_threshold(const Worker& w) const;
  void finish_compute(Worker& w);
  void begin_apply(ShardState& s);
  void finish_apply(ShardState& s);
  void record_staleness(std::int64_t tau);
  void note_loss(const GradientRef& g);
  void ensure_slot(ShardState& s, std::size_t slot);
  void clock_applied(std::int64_t clock, std::int64_t dropped);

  Simulator& sim_;
  net::Transport& transport_;
  ComputeModel& compute_;
  PsConfig config_;
  PsObserver* observer_;
  PsMath* math_;
  std::vector<Worker> workers_;
  std::vector<ShardState> shards_;
  std::vector<std::size_t> all_workers_;  // 0 .. N-1
  double total_params_ = 0;
  std::vector<StoredMessage> messages_;
  std::vector<StoredRefs> message_refs_;  // math only: same index as messages_
  std::vector<std::uint32_t> free_messages_;
  std::deque<std::int64_t> shards_done_per_clock_;  // sync/ssp: shards that applied clock c
  std::deque<std::int64_t> dropped_per_clock_;
  std::int64_t first_open_clock_ = 0;
  TimeNs last_round_end_ = 0;
  std::int64_t shards_at_stop_ = 0;
  bool finished_ = false;
  std::optional<std::int64_t> diverged_at_;
  PsTotals totals_;
};

}  // namespace pssim::ps
