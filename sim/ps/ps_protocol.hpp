// PsProtocol: workers training data-parallel on a parameter vector cut into parts, each
// part kept by a parameter-server shard or replicated on every worker and all-reduced.
//
// The machinery shared by the schemes: workers hold a version of every part; a worker
// computes once the scheme's policy (scheme_policy.hpp) says the parts it holds allow its
// next iteration, then pushes one gradient part to every shard (and hands the all-reduced
// part, if any, to the collective). Shards answer with slices; the policy decides what an
// arriving push does (queued or collected), when a shard applies, and whom it answers.
//   PS schemes (sync, async, ssp): every part on a shard.
//   allreduce: one part, replicated and all-reduced (sync policy).
//   hybrid: the embedding rows on shards, everything else all-reduced (sync policy).
// Every shard sends version 0 to every worker at time 0; replicas start at version 0.
// Staleness of a gradient at a shard = the shard's version when it is applied - the
// version it was computed on.
//
// All-reduced part: the collective (sim/collective) times the exchange; the average of
// the workers' gradients (in worker order) is applied to the replica when the first
// worker holds the result (every input has arrived by then); a worker holds the new
// version when its own copy of the result is complete; the update of the part is counted,
// and its round ends, when the last one does.
//
// Math: with a GradientSource and a ParameterStore, messages carry what they stand for
// (a slice at a version, a worker's gradient part) and updates are real; without, the
// protocol only times things. Message sizes: 4 bytes per parameter of the part; with
// compression or sparse embedding rows, the sizes the math reports, or PsConfig's fixed
// sizes without math. Version 0 always goes out whole.
//
// Overlap and scheduling (PsConfig::overlap, schedule, partition_bytes; pieces.hpp): with
// any of them set, every message travels as pieces, one flow each, per layer of the shard
// (and at most partition_bytes each), in priority class = layer index under `priority`
// (class 0 otherwise); the message counts as arrived with its last piece. The iteration's
// compute is cut into layer steps (compute/layer_timeline.hpp). `backward`: a layer's
// pieces of every shard's push leave when its backward step ends (last layer first); the
// worker's compute ends with the first layer's backward step, as without overlap.
// `full`: besides, forward step l starts at max(end of step l-1, arrival of the last piece
// of layer l of the slices the computation uses, end of the worker's previous compute):
// the forward steps are laid out when the policy lets the worker compute (every slice it
// needs is in), which is never before they would have run, so the backward steps and
// pushes that follow are events in the future. The math is the same in every mode: the
// gradient of the same batch on the same slices. Time split under `full`: forward steps
// that ran while pieces were still arriving count as pulling, not computing.
//
// All-reduced part with overlap (PyTorch DDP): the layers are gathered into buckets of at
// least bucket_bytes, from the last layer back (a bucket ends once it holds that much);
// each bucket is all-reduced by a collective of its own, which a worker joins when the
// backward step of the bucket's first layer ends (the bucket's gradients are then all
// there). A worker holds the part's new version when it holds every bucket's result;
// under `full` its layer l may start forward once the bucket holding l is done there.
//
// Time split (WorkerTimeSplit): computing; pushing = gradient parts in flight, or
// messages the worker sent in the reduce steps of a collective; pulling = slices in
// flight to it, or messages to it in the gather steps; else blocked (down: host failed).
//
// Adaptive batches (PsConfig::adaptive_batch, compute/batch_balancer.hpp): a worker's
// computation takes the balancer's batch for its iteration (the gradient source draws that
// many samples; compute time scales with them); when it ends, its duration (simulated,
// speed changes and codec time included) is measured against its samples. A computation
// cancelled by a crash or abandoned is not measured.
//
// Failures (ps_dynamics.cpp; the transport cancels a failed host's messages first):
//   worker down  its computation is cancelled (never delivered late); nothing is sent to
//                it; after PsConfig::failure_timeout (detection) barriers stop counting
//                it: sync needs max(1, members - backup_workers) gradients, SSP a clock's
//                gradients from every member; async never waited. All-reduce: the ring
//                stalls until then, and is rebuilt over the live workers (unless a
//                rebuild since has left the worker out already) to run the open round
//                again.
//   worker up    it holds nothing: every shard sends it its current slice whole, it
//                computes on them and is a member again. All-reduce, before or after
//                the timeout: the ring is rebuilt at once over the live workers with it;
//                it gets a copy of the replica at the version the open round computes
//                on (untimed) and computes that round's gradient; what it had handed in
//                before its crash is discarded (rebuild_ring in ps_dynamics.cpp).
//   server down  each shard on the host loses its state since its last checkpoint (the
//                updates lost are counted); messages to it are not sent.
//   server up    after reading its checkpoint (bytes / checkpoint bandwidth), a shard is
//                at the checkpoint's version, with a new incarnation: gradients computed
//                on the lost state are dropped; it sends its slice to every live worker.
//   checkpoint   every PsConfig::checkpoint_every, each shard writes its slice
//                (bytes / bandwidth of its time: updates wait; one due while it applies
//                waits for the apply).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/collective/collective.hpp"
#include "sim/compute/batch_balancer.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/compute/compute_runner.hpp"
#include "sim/compute/layer_timeline.hpp"
#include "sim/protocol/protocol_config.hpp"
#include "sim/ps/pieces.hpp"
#include "sim/core/simulator.hpp"
#include "sim/net/transport.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/protocol/training_protocol.hpp"
#include "sim/protocol/worker_time_split.hpp"
#include "sim/training/gradient_source.hpp"
#include "sim/training/parameter_store.hpp"
#include "sim/training/parts.hpp"

namespace pssim::ps {

class SchemePolicy;

struct PsConfig {
  double flops_per_iteration = 0;          ///< batch x FLOPs per sample
  std::optional<double> apply_bandwidth;   ///< bytes/s of slice a shard updates; none: free
  protocol::StopLimits stop;
  /// Bytes of each shard's push and pull messages when the math does not give them (no
  /// math, or the direction is uncompressed); empty: 4 bytes per parameter. Version 0
  /// always goes out whole.
  std::vector<double> push_bytes, pull_bytes;
  /// Compression cost in seconds per element encoded or decoded, per direction (0: free or
  /// uncompressed). A worker's iteration takes (push + pull) x all parameters longer (it
  /// encodes its pushes and decodes its pulls); a shard's update (push x gradients + pull
  /// x messages it sends) x its parameters.
  double push_codec_seconds = 0, pull_codec_seconds = 0;
  bool has_rounds = true;  ///< reported by has_rounds() (the scheme registry's flag)
  // Dynamics.
  TimeNs failure_timeout = 0;              ///< from a worker's crash until barriers stop waiting for it
  std::optional<TimeNs> checkpoint_every;  ///< none: no checkpoints (a crash restarts from version 0)
  double checkpoint_bandwidth = 0;         ///< bytes/s of writing and reading a checkpoint; 0: instant
  bool abandon_stale = false;  ///< sync: a worker whose every part moved on abandons its computation
  /// Overlap of communication with computation and the scheduling of pieces (see the
  /// header comment); the defaults send whole messages after the whole computation.
  protocol::Overlap overlap = protocol::Overlap::None;
  protocol::Schedule schedule = protocol::Schedule::Fifo;
  std::optional<double> partition_bytes;
  /// The model's layers in forward order, with pieces: their parameter ranges and FLOPs
  /// (only the shares of the FLOPs matter). Empty: one layer holding everything.
  struct Layer {
    training::Range params;
    compute::LayerFlops flops;
  };
  std::vector<Layer> layers;
  /// All-reduced part with overlap: gradient buckets of at least this many bytes, filled
  /// with whole layers from the last (PyTorch DDP's bucket_cap_mb, 25 MiB by default).
  double bucket_bytes = 25.0 * 1024 * 1024;
  bool pieced() const {
    return overlap != protocol::Overlap::None || schedule != protocol::Schedule::Fifo || partition_bytes.has_value();
  }
  /// cluster.workers.batch: adaptive. Each computation's batch comes from a BatchBalancer
  /// (flops_per_iteration is then that of adaptive_batch->batch_size samples and scales
  /// with the batch); none: every batch is the configured one.
  std::optional<compute::AdaptiveBatchSpec> adaptive_batch;
};

/// The part all workers replicate and all-reduce (allreduce and hybrid).
struct AllReducedPart {
  training::Part part;
  collective::AlgorithmKind algorithm = collective::AlgorithmKind::Ring;
  std::size_t racks = 1;                ///< hierarchical: racks of equal size, in worker order
  std::optional<double> chunk_bytes;    ///< none: whole messages
};

struct PsLayout {
  std::vector<net::NodeId> worker_hosts;  ///< one per worker
  std::vector<training::Part> shards;     ///< parts kept by servers
  std::vector<net::NodeId> shard_hosts;   ///< one per shard
  std::optional<AllReducedPart> all_reduced;  ///< the last part, when present
};

/// The training math, or none for timing only (both or neither).
struct PsMath {
  training::GradientSource* gradients = nullptr;
  training::ParameterStore* store = nullptr;
};

class PsProtocol final : public protocol::TrainingProtocol,
                         private net::MessageSink,
                         private collective::Collective::Listener,
                         private compute::ComputeRunner::Listener {
 public:
  PsProtocol(Simulator& sim, net::Transport& transport, compute::ComputeModel& compute, PsConfig config,
             PsLayout layout, std::unique_ptr<SchemePolicy> policy, protocol::Observer* observer = nullptr,
             PsMath math = {});
  ~PsProtocol() override;
  PsProtocol(const PsProtocol&) = delete;
  PsProtocol& operator=(const PsProtocol&) = delete;

  void start() override;
  bool finished() const override { return finished_; }
  std::optional<std::int64_t> diverged_at() const override { return diverged_at_; }
  void stop() override { finished_ = true; }
  void finish() override { time_.close(sim_.now()); }
  const protocol::Totals& totals() const override { return totals_; }
  std::size_t workers() const override { return workers_.size(); }
  const protocol::WorkerStats& worker_stats(std::size_t w) const override { return time_.stats(w); }
  std::int64_t least_updates() const override;
  std::vector<training::SliceRef> current_parameters() const override;
  std::size_t shards() const override { return shards_.size(); }
  bool has_rounds() const override { return config_.has_rounds; }
  void worker_down(std::size_t w) override;
  void worker_up(std::size_t w) override;
  void server_down(net::NodeId host) override;
  void server_up(net::NodeId host) override;
  void set_worker_speed(std::size_t w, double factor) override { runner_.set_factor(w, factor); }
  const protocol::FailureTotals& failure_totals() const override { return failures_; }
  bool no_live_workers() const override { return live_workers_.empty(); }
  std::size_t timers_pending() const override { return config_.checkpoint_every ? 1 : 0; }

  std::size_t parts() const { return versions_.size(); }
  std::int64_t part_version(std::size_t p) const { return versions_[p]; }

 private:
  friend class SchemePolicy;

  struct Worker {
    PsProtocol* protocol = nullptr;
    std::size_t index = 0;
    net::NodeId host = 0;
    std::vector<std::int64_t> held;  // version of each part held (-1: none yet)
    std::vector<std::int64_t> used;  // versions the current/last computation used
    std::vector<training::SliceRef> held_slices;  // math: the slices held
    std::vector<training::SliceRef> used_slices;  // math, delay compensation only: the slices used
    std::uint64_t ticket = 0;        // math: the gradient being computed
    std::int64_t ready = 0;          // parts whose slice allows the next computation
    std::int64_t iteration = 0;      // computations started
    bool up = true;                  // its host is up
    bool member = true;              // counted in barriers (up, or down for less than failure_timeout)
    std::uint32_t crashes = 0;
    TimeNs down_since = 0;           // its last crash
    std::vector<std::uint16_t> held_incarnation, used_incarnation;  // per part: the shard's incarnation
    TimeNs compute_started = 0;
    // With overlap (PsConfig::pieced):
    std::vector<TimeNs> layer_arrival;   // full: when the last piece of each layer arrived
    TimeNs last_finish = 0;              // full: end of the previous computation
    std::vector<std::uint32_t> push_tags;          // backward: this iteration's push of each shard
    std::vector<double> push_sizes;                // backward: its bytes
    std::size_t backward_layer = 0;                // backward: the layer whose pieces left last
    bool contributed = false;                      // backward, buckets: this iteration's gradient is in
    std::vector<training::GradientRef> gradients;  // backward: this iteration's gradient parts
    std::int64_t batch = 0;          // adaptive batches: samples of the current/last computation
  };
  struct Shard {
    PsProtocol* protocol = nullptr;
    std::size_t index = 0;
    net::NodeId host = 0;
    double bytes = 0;                       // the slice, uncompressed
    double push_bytes = 0, pull_bytes = 0;  // a message without math (see PsConfig)
    std::int64_t params = 0;
    std::vector<Piece> pieces;              // with overlap: the pieces of its messages
    bool applying = false;
    TimeNs apply_started = 0;
    // Dynamics.
    bool up = true;
    EventId apply_event, checkpoint_event;  // pending ends of an apply / a checkpoint write or read
    bool checkpointing = false;      // writing (or reading back) its checkpoint: no update starts
    bool apply_waiting = false;      // an update is due once the checkpoint is written
    bool checkpoint_due = false;     // a checkpoint is due once the update is applied
    std::uint16_t incarnation = 0;   // restores so far: versions of a lost state are not this one's
    std::int64_t checkpoint_version = 0;       // the last checkpoint written (0: the initial parameters)
    training::SliceRef checkpoint_slice;       // math: its parameters
    std::int64_t writing_version = 0;          // the checkpoint being written
    training::SliceRef writing_slice;
  };
  struct Message {
    enum class Kind : std::uint8_t { Pull, Push } kind = Kind::Pull;
    std::int64_t worker = 0, shard = 0;
    std::int64_t version = 0;       // pull: version sent; push: version computed on
    std::int64_t clock = 0;         // push: the worker's iteration index
    training::SliceRef slice;       // math, pull: the slice sent
    training::GradientRef gradient; // math, push: the shard's part of the gradient
    training::SliceRef computed_on; // math, push with delay compensation: the slice it used
  };
  // A message in flight is kept as a 32-byte head, plus its three references in a
  // parallel table only with math (a sync round has 2 messages per worker and shard in
  // flight: 88 bytes each would be 0.7 kB per worker at 8 shards).
  struct MessageHead {
    std::uint32_t worker = 0, shard = 0;
    Message::Kind kind = Message::Kind::Pull;
    std::uint16_t incarnation = 0;  // of the shard's version (in the head's padding: still 32 bytes)
    std::int64_t version = 0, clock = 0;
  };
  struct MessageRefs {
    training::SliceRef slice;
    training::GradientRef gradient;
    training::SliceRef computed_on;
  };
  // The all-reduced part's state per round in progress.
  struct AllReduce {
    AllReduce() {}  // user-provided: clang 14 otherwise finds it not default constructible here
    std::size_t part = 0;
    std::int64_t elements = 0;
    std::unique_ptr<collective::Collective> collective;  // without overlap: the whole part
    // With overlap: one collective per bucket, and what each bucket covers.
    struct Bucket final : collective::Collective::Listener {
      PsProtocol* protocol = nullptr;
      std::size_t index = 0, first_layer = 0, last_layer = 0;  // layers first..last
      std::unique_ptr<collective::Collective> collective;
      void on_done(std::size_t rank, std::int64_t round) override { protocol->bucket_done(*this, rank, round); }
      void on_message(std::size_t from, std::size_t to, collective::Phase phase, double bytes, bool sent) override {
        protocol->on_message(from, to, phase, bytes, sent);
      }
      void on_step(std::size_t rank, std::int64_t round, std::size_t step, collective::Phase phase, TimeNs start,
                   TimeNs end) override {
        protocol->on_step(rank, round, step, phase, start, end);
      }
    };
    std::vector<std::unique_ptr<Bucket>> buckets;
    std::vector<std::int64_t> bucket_of_layer_start;  // per layer: the bucket whose first layer it is, or -1
    // Per round still open ([0] is round first_open): at most two are (a worker holding
    // round r's result may hand in round r+1's gradient before others hold r's).
    struct Round {
      std::int64_t done = 0;       // workers holding the result
      std::vector<std::uint32_t> buckets_done;  // with buckets: per worker, buckets it holds
      std::int64_t samples = 0;    // math: samples of the round's gradients
      double loss = 0;             // math: sum of their losses
      training::SliceRef result;   // math: the part after the round's update
    };
    std::deque<Round> rounds;
    std::int64_t first_open = 0;
    // Dynamics: the ring runs over `ranks` (workers, in order); its round 0 is round
    // `round_offset` of the protocol (it was rebuilt then).
    std::vector<std::size_t> ranks;
    std::vector<std::int64_t> rank_of;   // per worker: its rank, or -1
    std::int64_t round_offset = 0;
    std::vector<std::int64_t> contributed;  // per worker: last round it contributed to
    AllReducedPart spec;                    // to rebuild the ring
  };

  // net::MessageSink
  void on_delivered(std::uint64_t tag) override;
  void on_cancelled(std::uint64_t tag) override;
  // compute::ComputeRunner::Listener
  void on_computed(std::size_t w) override { finish_compute(workers_[w]); }
  // collective::Collective::Listener
  void on_done(std::size_t rank, std::int64_t round) override;
  void on_message(std::size_t from, std::size_t to, collective::Phase phase, double bytes, bool sent) override;
  void on_step(std::size_t rank, std::int64_t round, std::size_t step, collective::Phase phase, TimeNs start,
               TimeNs end) override;

  std::uint64_t new_message(Message m);
  void update_time(Worker& w) { time_.update(w.index, sim_.now()); }
  protocol::WorkerTimeSplit::Activity& activity(const Worker& w) { return time_.activity(w.index); }

  /// Sends message `tag` of `bytes` whole, or as shard s's pieces (those of `layer` only,
  /// when given) when pieced, its bytes counted in `account` (pushes, pulls).
  void send_message(net::NodeId src, net::NodeId dst, const Shard& s, double bytes, std::uint64_t tag,
                    net::ByteAccount account, std::optional<std::size_t> layer = std::nullopt);
  /// Overlap with an all-reduced part: its buckets over `layers`.
  void make_buckets(const std::vector<training::Range>& layers, const PsLayout& layout);
  /// Overlap: opens worker w's pushes of this iteration (the gradient, when math).
  void open_pushes(Worker& w);
  /// Overlap: layer l's backward step at worker w ended: its pieces leave.
  void push_layer(Worker& w, std::size_t layer);
  /// Overlap: the compute of worker w's iteration of `duration`, laid out in layer steps.
  void schedule_layers(Worker& w, TimeNs duration);
  void send_slice(Shard& s, std::size_t worker, training::SliceRef slice, double bytes);
  /// Shard s's current version to each of `workers`.
  void send_pulls(Shard& s, const std::vector<std::size_t>& workers);
  /// Worker w now holds `version` (and `slice`) of part p.
  void receive_part(Worker& w, std::size_t part, std::int64_t version, training::SliceRef slice);
  void receive_push(const Message& m);
  void try_start(Worker& w);
  void finish_compute(Worker& w);
  void contribute(Worker& w, std::int64_t clock, const training::GradientRef& gradient);
  /// With buckets: rank `rank` holds round `round`'s result of bucket b.
  void bucket_done(const AllReduce::Bucket& b, std::size_t rank, std::int64_t round);
  void begin_apply(Shard& s);
  void finish_apply(Shard& s);
  /// Bookkeeping of every update of part p: samples, totals, observer, stop limits.
  void updated(std::size_t part, protocol::UpdateRecord& u, std::int64_t samples);
  void record_staleness(std::int64_t tau);
  void note_loss(const training::GradientRef& g);
  void clock_applied(std::int64_t clock, std::int64_t dropped);
  void clock_applied(std::size_t part, std::int64_t clock, std::int64_t dropped);

  // ---- dynamics (ps_dynamics.cpp)
  void report_event(const char* kind, std::string target, double value, std::string note = {});
  std::string worker_name(std::size_t w) const;
  /// Drops w's running computation (crash, abandon); counts the time it had run.
  void abandon_compute(Worker& w);
  void detect_failure(Worker& w);
  void update_members();
  void rebuild_ring();
  void schedule_checkpoint();
  void begin_checkpoint(Shard& s);
  void finish_checkpoint(Shard& s);
  void restore_shard(Shard& s);
  /// Part p's slice went back to an earlier state: what workers hold of it no longer counts.
  void forget_part(Worker& w, std::size_t p);
  std::int64_t members() const { return members_; }
  const std::vector<std::size_t>& live_workers() const { return live_workers_; }

  Simulator& sim_;
  net::Transport& transport_;
  compute::ComputeModel& compute_;
  PsConfig config_;
  std::unique_ptr<SchemePolicy> policy_;
  protocol::Observer* observer_;
  PsMath math_;
  std::vector<Worker> workers_;
  protocol::WorkerTimeSplit time_;
  std::vector<Shard> shards_;
  std::optional<AllReduce> all_reduce_;
  std::vector<std::int64_t> versions_;        // per part
  std::vector<std::int64_t> counted_clock_;   // per part: the last clock it counted toward rounds
  std::vector<std::size_t> all_workers_;      // 0 .. N-1
  std::vector<std::size_t> live_workers_;     // workers whose host is up, in order
  std::int64_t members_ = 0;                  // workers counted in barriers
  compute::ComputeRunner runner_;
  std::optional<compute::BatchBalancer> balancer_;  // adaptive batches only
  protocol::FailureTotals failures_;
  double total_params_ = 0;
  std::vector<MessageHead> messages_;
  std::vector<MessageRefs> message_refs_;  // math only: same index as messages_
  std::vector<std::uint32_t> pieces_left_; // pieced only: same index as messages_
  std::vector<compute::LayerFlops> layer_flops_;  // pieced only: per layer
  std::vector<bool> layer_pushes_;                // pieced only: some shard has a piece of the layer
  std::vector<std::uint32_t> free_messages_;
  std::deque<std::int64_t> parts_done_per_clock_;  // open clocks: parts that applied clock c
  std::deque<std::int64_t> dropped_per_clock_;
  std::int64_t first_open_clock_ = 0;
  TimeNs last_round_end_ = 0;
  std::int64_t parts_at_stop_ = 0;
  bool finished_ = false;
  std::optional<std::int64_t> diverged_at_;
  protocol::Totals totals_;
};

}  // namespace pssim::ps
