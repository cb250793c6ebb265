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
// All-reduced part (all_reducer.hpp): the collective (sim/collective) times the exchange;
// the average of the workers' gradients (in worker order) is applied to the replica when
// the first worker holds the result (every input has arrived by then); a worker holds the
// new version when its own copy of the result is complete; the update of the part is
// counted, and its round ends, when the last one does.
//
// Math: with a GradientSource and a ParameterStore, messages carry what they stand for
// (a slice at a version, a worker's gradient part) and updates are real; without, the
// protocol only times things. Message sizes: 4 bytes per parameter of the part; with
// compression or sparse embedding rows, the sizes the math reports, or PsConfig's fixed
// sizes without math. Version 0 always goes out whole.
//
// Overlap and scheduling (PsConfig::overlap, schedule, partition_bytes; pieces.hpp; the
// timing is compute_timing.hpp's): with any of them set, every message travels as pieces,
// one flow each, per layer of the shard (and at most partition_bytes each), in priority
// class = layer index under `priority` (class 0 otherwise); the message counts as arrived
// with its last piece. The iteration's compute is cut into layer steps
// (compute/layer_timeline.hpp). `backward`: a layer's pieces of every shard's push leave
// when its backward step ends (last layer first); the worker's compute ends with the first
// layer's backward step, as without overlap. `full`: besides, forward step l starts at
// max(end of step l-1, arrival of the last piece of layer l of the slices the computation
// uses, end of the worker's previous compute): the forward steps are laid out when the
// policy lets the worker compute (every slice it needs is in), which is never before they
// would have run, so the backward steps and pushes that follow are events in the future.
// The math is the same in every mode: the gradient of the same batch on the same slices.
// Time split under `full`: forward steps that ran while pieces were still arriving count
// as pulling, not computing.
//
// All-reduced part with overlap (PyTorch DDP; all_reducer.hpp): the layers are gathered
// into buckets of at least bucket_bytes, from the last layer back (a bucket ends once it
// holds that much); each bucket is all-reduced by a collective of its own, which a worker
// joins when the backward step of the bucket's first layer ends (the bucket's gradients
// are then all there). A worker holds the part's new version when it holds every bucket's
// result; under `full` its layer l may start forward once the bucket holding l is done
// there.
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
//                before its crash is discarded (AllReducer::rebuild, all_reducer.cpp).
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
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/compute/batch_balancer.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/compute/compute_runner.hpp"
#include "sim/core/simulator.hpp"
#include "sim/net/transport.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/protocol/training_protocol.hpp"
#include "sim/protocol/worker_time_split.hpp"
#include "sim/ps/all_reducer.hpp"
#include "sim/ps/compute_timing.hpp"
#include "sim/ps/ledger.hpp"
#include "sim/ps/message_pool.hpp"
#include "sim/ps/ps_config.hpp"
#include "sim/ps/ps_state.hpp"
#include "sim/ps/scheme_policy.hpp"

namespace pssim::ps {

// The engine. Its parts, each in a file of its own: the state of workers and shards
// (ps_state.hpp), the messages in flight (message_pool.hpp), the run's counts (ledger.hpp),
// the scheme's policy (scheme_policy.hpp), the timing of a computation (compute_timing.hpp)
// and the all-reduced part (all_reducer.hpp). The engine moves messages between them and
// implements the narrow interfaces its parts call back through.
class PsProtocol final : public protocol::TrainingProtocol,
                         private PolicyEngine,
                         private AllReducer::Replicas,
                         private ComputeTiming::Listener,
                         private net::MessageSink,
                         private compute::ComputeRunner::Listener {
 public:
  PsProtocol(Simulator& sim, net::Transport& transport, compute::ComputeModel& compute, PsConfig config,
             PsLayout layout, std::unique_ptr<SchemePolicy> policy, protocol::Observer* observer = nullptr,
             PsMath math = {});
  ~PsProtocol() override;
  PsProtocol(const PsProtocol&) = delete;
  PsProtocol& operator=(const PsProtocol&) = delete;

  void start() override;
  bool finished() const override { return ledger_.finished(); }
  std::optional<std::int64_t> diverged_at() const override { return ledger_.diverged_at(); }
  void stop() override { ledger_.stop(); }
  void finish() override { time_.close(sim_.now()); }
  const protocol::Totals& totals() const override { return ledger_.totals(); }
  std::size_t workers() const override { return workers_.size(); }
  const protocol::WorkerStats& worker_stats(std::size_t w) const override { return time_.stats(w); }
  std::int64_t least_updates() const override { return ledger_.least_version(); }
  std::vector<training::SliceRef> current_parameters() const override;
  std::size_t shards() const override { return shards_.size(); }
  bool has_rounds() const override { return config_.has_rounds; }
  void worker_down(std::size_t w) override;
  void worker_up(std::size_t w) override;
  void server_down(net::NodeId host) override;
  void server_up(net::NodeId host) override;
  void set_worker_speed(std::size_t w, double factor) override { runner_.set_factor(w, factor); }
  const protocol::FailureTotals& failure_totals() const override { return ledger_.failures(); }
  bool no_live_workers() const override { return live_workers_.empty(); }
  std::size_t timers_pending() const override { return config_.checkpoint_every ? 1 : 0; }

  std::size_t parts() const { return ledger_.parts(); }
  std::int64_t part_version(std::size_t p) const { return ledger_.version(p); }

 private:
  // PolicyEngine (workers() above)
  TimeNs now() const override { return sim_.now(); }
  const std::vector<std::size_t>& live_workers() const override { return live_workers_; }
  std::int64_t members() const override { return members_; }
  training::ParameterStore* store() const override { return math_.store; }
  Ledger& ledger() override { return ledger_; }
  void report(const protocol::GradientRecord& g) override {
    if (observer_) observer_->on_gradient(g);
  }
  void begin_apply(Shard& s) override;
  void send_pulls(Shard& s, const std::vector<std::size_t>& workers) override;
  // AllReducer::Replicas (live_workers() above)
  void deliver(std::size_t worker, std::int64_t version, training::SliceRef slice) override {
    receive_part(workers_[worker], all_reducer_->part(), version, std::move(slice));
  }
  void layers_arrived(std::size_t worker, std::size_t first, std::size_t last) override {
    timing_->arrived(worker, first, last);
  }
  std::int64_t version_held(std::size_t worker) const override {
    return workers_[worker].parts.held[all_reducer_->part()];
  }
  void compute_for(std::size_t worker, std::int64_t round) override { workers_[worker].compute.iteration = round; }
  // ComputeTiming::Listener
  void layer_computed(std::size_t worker, std::size_t layer) override;
  void computed(std::size_t worker) override { finish_compute(workers_[worker]); }
  // net::MessageSink
  void on_delivered(std::uint64_t tag) override;
  void on_cancelled(std::uint64_t tag) override;
  // compute::ComputeRunner::Listener
  void on_computed(std::size_t w) override { finish_compute(workers_[w]); }

  void update_time(Worker& w) { time_.update(w.index, sim_.now()); }
  protocol::WorkerTimeSplit::Activity& activity(const Worker& w) { return time_.activity(w.index); }

  // ---- messages
  /// Sends message `tag` of `bytes` whole, or as shard s's pieces (those of `layer` only,
  /// when given) when pieced, its bytes counted in `account` (pushes, pulls).
  void send_message(net::NodeId src, net::NodeId dst, const Shard& s, double bytes, std::uint64_t tag,
                    net::ByteAccount account, std::optional<std::size_t> layer = std::nullopt);
  /// Worker w's push to shard s for `clock` (the gradient part, when math), in flight but
  /// not yet sent; `bytes` is set to its size.
  std::uint64_t new_push(Worker& w, const Shard& s, std::int64_t clock, const training::GradientRef& gradient,
                         double& bytes);
  void send_slice(Shard& s, std::size_t worker, training::SliceRef slice, double bytes);
  /// Worker w now holds `version` (and `slice`) of part p.
  void receive_part(Worker& w, std::size_t part, std::int64_t version, training::SliceRef slice);
  void receive_push(const Message& m);

  // ---- computing
  void try_start(Worker& w);
  /// The gradient parts of worker w's computation (math; empty without).
  std::vector<training::GradientRef> gradient_parts(const Worker& w);
  void finish_compute(Worker& w);
  /// Overlap: opens worker w's pushes of this iteration, to be sent layer by layer.
  void open_layer_pushes(Worker& w);

  // ---- applying updates
  void finish_apply(Shard& s);

  // ---- dynamics (ps_dynamics.cpp)
  void report_event(const char* kind, std::string target, double value, std::string note = {});
  std::string worker_name(std::size_t w) const;
  /// Drops w's running computation (crash, abandon); counts the time it had run.
  void abandon_compute(Worker& w);
  void detect_failure(Worker& w);
  void update_members();
  void schedule_checkpoint();
  void begin_checkpoint(Shard& s);
  void finish_checkpoint(Shard& s);
  void restore_shard(Shard& s);
  /// Part p's slice went back to an earlier state: what workers hold of it no longer counts.
  void forget_part(Worker& w, std::size_t p);

  Simulator& sim_;
  net::Transport& transport_;
  compute::ComputeModel& compute_;
  PsConfig config_;
  std::unique_ptr<SchemePolicy> policy_;
  protocol::Observer* observer_;
  PsMath math_;
  Ledger ledger_;
  std::vector<Worker> workers_;
  protocol::WorkerTimeSplit time_;
  std::vector<Shard> shards_;
  std::unique_ptr<AllReducer> all_reducer_;  // null without an all-reduced part
  std::vector<std::size_t> live_workers_;    // workers whose host is up, in order
  std::int64_t members_ = 0;                 // workers counted in barriers
  compute::ComputeRunner runner_;
  std::unique_ptr<ComputeTiming> timing_;
  std::optional<compute::BatchBalancer> balancer_;  // adaptive batches only
  double total_params_ = 0;
  MessagePool messages_;
};

}  // namespace pssim::ps
