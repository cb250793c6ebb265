// Collective: runs an all-reduce Algorithm round after round over a Transport.
//
// Ranks are hosts; rank r contributes its input for its next round with contribute(r)
// (when its gradient is ready) and learns that it holds that round's result through
// Listener::on_done. Ranks move through rounds independently: a fast rank may start the
// next round while others finish this one.
//
// Rendezvous: a message starts moving only once its receiver has started the step it
// belongs to (MPI's protocol for large messages, and what collective libraries with
// pre-registered buffers do): a sender whose peer is still computing, or still in an
// earlier step, waits. So a rank never receives faster than its own schedule lets it.
//
// Chunks: with chunk_bytes set, every message is cut into C lanes, C = ceil(largest
// message / chunk_bytes); lane c runs the algorithm's steps on its share of every
// message, and a lane starts a step only after the lane before it has completed that
// step at the same rank. So chunks follow each other through the steps: a tree forwards
// chunk c while it receives chunk c+1 (pipelining); around a ring, lanes share each link
// with the next lane's previous step.
//
// Bytes: messages of reduce steps are counted in the transport's Push account, of gather
// steps in its Pull account (net::ByteAccount).
//
// Cost: O(1) work per message plus the algorithm's step(); memory O(ranks x lanes) plus
// the messages in flight.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/collective/algorithm.hpp"
#include "sim/core/simulator.hpp"
#include "sim/net/transport.hpp"

namespace pssim::collective {

class Collective : private net::MessageSink {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    /// Rank `rank` holds the result of its round `round` (0, 1, ...).
    virtual void on_done(std::size_t rank, std::int64_t round) = 0;
    /// A message of `bytes` from rank `from` to rank `to` was sent (`sent`) or delivered.
    virtual void on_message(std::size_t from, std::size_t to, Phase phase, double bytes, bool sent) = 0;
    /// Rank `rank` spent [start, end) in step `step` of round `round` (lane 0 only).
    virtual void on_step(std::size_t /*rank*/, std::int64_t /*round*/, std::size_t /*step*/, Phase, TimeNs /*start*/,
                         TimeNs /*end*/) {}
  };

  /// `hosts[r]` is rank r's host; `elements` the vector's length (4 bytes each).
  /// `chunk_bytes`: none for whole messages. Everything referenced must outlive this.
  Collective(Simulator& sim, net::Transport& transport, std::vector<net::NodeId> hosts,
             std::unique_ptr<Algorithm> algorithm, std::int64_t elements, std::optional<double> chunk_bytes,
             Listener& listener);

  /// Rank `rank`'s input for its next round is ready.
  void contribute(std::size_t rank);

  /// Cancels its messages in flight (the listener hears of each): before it is replaced.
  void abort() { transport_.cancel_sink(this); }

  std::size_t ranks() const { return hosts_.size(); }
  std::size_t lanes() const { return lanes_; }

 private:
  struct Lane {
    std::int64_t g = 0;  // global step: round * steps + step, being run or awaited
    std::int64_t round = 0;  // g / steps and g % steps, kept as g moves (no division per call)
    std::size_t step = 0;
    bool running = false;
    std::uint32_t sends_left = 0, receives = 0, arrived = 0;
    Phase phase = Phase::Reduce;
    TimeNs started = 0;
    std::vector<std::uint32_t> waiting;  // messages to this lane, until it starts their step
  };
  struct Rank {
    std::int64_t contributed = -1;  // last round whose input is ready
    std::size_t lanes_through = 0;  // lanes that completed the current round
    std::vector<Lane> lanes;
  };
  struct Message {
    std::uint32_t from, to, lane;
    std::int64_t to_g;
    Phase phase;
    double bytes;
  };

  void on_delivered(std::uint64_t tag) override;
  // A message the transport cancelled (a rank's host failed): reported to the listener as
  // no longer in flight; the collective waits for it forever, until its owner replaces it.
  void on_cancelled(std::uint64_t tag) override;
  void transmit(std::uint32_t tag);
  void advance(std::size_t rank, std::size_t lane);
  bool step_once(std::size_t rank, std::size_t lane);
  void start_step(std::size_t rank, std::size_t lane);
  void complete_step(std::size_t rank, std::size_t lane);
  std::int64_t lane_share(std::int64_t elements, std::size_t lane) const;

  Simulator& sim_;
  net::Transport& transport_;
  std::vector<net::NodeId> hosts_;
  std::unique_ptr<Algorithm> algorithm_;
  std::int64_t elements_;
  std::size_t lanes_ = 1;
  Listener& listener_;
  std::vector<Rank> ranks_;
  std::vector<std::size_t> steps_;  // per rank
  std::vector<Message> messages_;
  std::vector<std::uint32_t> free_messages_;
  Step plan_;  // scratch
};

}  // namespace pssim::collective
