// AllReducer: the part of the parameters every worker replicates and all-reduces
// (allreduce: the whole model; hybrid: everything but the embedding rows the shards keep),
// a component the PS engine is composed with (ps_protocol.hpp states the semantics).
//
// A round's exchange is timed by a collective (sim/collective) over the live workers, or,
// with overlap, by one collective per gradient bucket (PyTorch DDP: layers gathered from
// the last back until a bucket holds bucket_bytes; a worker joins a bucket's collective
// when the backward step of its first layer ends). The average of the round's gradients
// (in worker order) is applied to the replica when the first worker holds the result;
// each worker holds the new version when its own copy is complete; the update counts,
// and the round ends, when the last one does. At most two rounds are open at once (a
// worker holding round r's result may hand in round r+1's gradient before the others
// hold r's).
//
// The engine hands in gradients (contribute, contribute_bucket) and learns of results
// through Replicas; the run's counts go to its Ledger. Time split: a worker is pushing
// while its messages of a reduce step are in flight, pulling while those of a gather step
// to it are. Bytes: the collectives' messages count in the transport's accounts (reduce
// steps Push, gather steps Pull). Failures: the ring runs over the live workers and is
// rebuilt when a failure is detected or a worker rejoins (rebuild()); a gradient for a
// round that is not open is an error (std::logic_error).
//
// Cost: O(1) per collective message and per worker's result, besides the collective's.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "sim/collective/collective.hpp"
#include "sim/core/simulator.hpp"
#include "sim/net/transport.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/protocol/worker_time_split.hpp"
#include "sim/ps/ledger.hpp"
#include "sim/ps/ps_config.hpp"
#include "sim/training/parameter_store.hpp"

namespace pssim::ps {

class AllReducer final : private collective::Collective::Listener {
 public:
  /// What the all-reducer asks of the engine that keeps the workers (PsProtocol).
  class Replicas {
   public:
    /// Worker w holds `version` of the part from now on (`slice`: math).
    virtual void deliver(std::size_t worker, std::int64_t version, training::SliceRef slice) = 0;
    /// With buckets: layers first..last of the part's next version reached worker w.
    virtual void layers_arrived(std::size_t worker, std::size_t first, std::size_t last) = 0;
    /// The version of the part worker w holds (-1: none).
    virtual std::int64_t version_held(std::size_t worker) const = 0;
    /// Worker w's next gradient is for round `round` (it was given the replica that round
    /// computes on).
    virtual void compute_for(std::size_t worker, std::int64_t round) = 0;
    /// The workers whose host is up, in order.
    virtual const std::vector<std::size_t>& live_workers() const = 0;

   protected:
    ~Replicas() = default;
  };
  /// What it runs on; everything referenced must outlive it.
  struct Context {
    Simulator& sim;
    net::Transport& transport;
    std::vector<net::NodeId> hosts;  ///< per worker
    protocol::WorkerTimeSplit& time;
    protocol::Observer* observer = nullptr;
    training::ParameterStore* store = nullptr;  ///< null: timing only
    Ledger& ledger;
  };

  /// Part `part` (the ledger's index), laid out as `spec`, over every worker.
  AllReducer(Context context, Replicas& replicas, std::size_t part, const AllReducedPart& spec);
  AllReducer(const AllReducer&) = delete;
  AllReducer& operator=(const AllReducer&) = delete;

  std::size_t part() const { return part_; }
  /// Overlap: the part's gradient goes in buckets of at least `bucket_bytes` over `layers`
  /// (forward order); marks in `layer_pushes` the layers whose backward step hands a bucket
  /// in (its first layer).
  void make_buckets(const std::vector<training::Range>& layers, double bucket_bytes, std::vector<bool>& layer_pushes);
  /// Every replica is at version 0.
  void start();
  /// Worker w hands in its gradient of the part for round `clock` (null without math); the
  /// whole part's collective starts on it (with buckets, contribute_bucket() does).
  void contribute(std::size_t worker, std::int64_t clock, const training::GradientRef& gradient);
  /// With buckets: whether `layer` is a bucket's first layer; worker w's input to that
  /// bucket's collective.
  bool starts_bucket(std::size_t layer) const { return !buckets_.empty() && bucket_of_layer_start_[layer] >= 0; }
  void contribute_bucket(std::size_t worker, std::size_t layer);
  /// Failures: whether worker w is a rank of the ring now; the ring rebuilt over the live
  /// workers (ps_dynamics.cpp says when).
  bool in_ring(std::size_t worker) const { return rank_of_[worker] >= 0; }
  void rebuild();

 private:
  // A bucket's collective and the layers it covers.
  struct Bucket final : collective::Collective::Listener {
    AllReducer* reducer = nullptr;
    std::size_t index = 0, first_layer = 0, last_layer = 0;  // layers first..last
    std::unique_ptr<collective::Collective> collective;
    void on_done(std::size_t rank, std::int64_t round) override { reducer->bucket_done(*this, rank, round); }
    void on_message(std::size_t from, std::size_t to, collective::Phase phase, double bytes, bool sent) override {
      reducer->on_message(from, to, phase, bytes, sent);
    }
    void on_step(std::size_t rank, std::int64_t round, std::size_t step, collective::Phase phase, TimeNs start,
                 TimeNs end) override {
      reducer->on_step(rank, round, step, phase, start, end);
    }
  };
  // A round still open.
  struct Round {
    std::int64_t done = 0;                    // workers holding the result
    std::vector<std::uint32_t> buckets_done;  // with buckets: per worker, buckets it holds
    std::int64_t samples = 0;                 // math: samples of the round's gradients
    double loss = 0;                          // math: sum of their losses
    training::SliceRef result;                // math: the part after the round's update
  };

  // collective::Collective::Listener
  void on_done(std::size_t rank, std::int64_t round) override;
  void on_message(std::size_t from, std::size_t to, collective::Phase phase, double bytes, bool sent) override;
  void on_step(std::size_t rank, std::int64_t round, std::size_t step, collective::Phase phase, TimeNs start,
               TimeNs end) override;
  /// With buckets: rank `rank` holds round `round`'s result of bucket b.
  void bucket_done(const Bucket& b, std::size_t rank, std::int64_t round);
  Round& round_slot(std::int64_t round);
  /// The oldest open round's update, complete everywhere: counted, and the round closed.
  void close_round(std::int64_t gradients);

  Context c_;
  Replicas& replicas_;
  std::size_t part_;
  AllReducedPart spec_;  // to rebuild the ring
  std::unique_ptr<collective::Collective> collective_;  // without buckets: the whole part
  std::vector<std::unique_ptr<Bucket>> buckets_;
  std::vector<std::int64_t> bucket_of_layer_start_;  // per layer: the bucket whose first layer it is, or -1
  std::deque<Round> rounds_;  // [0] is round first_open_
  std::int64_t first_open_ = 0;
  // The ring runs over `ranks_` (workers, in order); its round 0 is round `round_offset_`
  // of the part (it was rebuilt then).
  std::vector<std::size_t> ranks_;
  std::vector<std::int64_t> rank_of_;      // per worker: its rank, or -1
  std::int64_t round_offset_ = 0;
  std::vector<std::int64_t> contributed_;  // per worker: last round it handed a gradient in for
};

}  // namespace pssim::ps
