// Transport: the one interface through which protocols use the network.
//
// "Send these bytes from host A to host B and tell me when they have arrived." FlowNetwork
// implements it with the max-min flow model; tests substitute fakes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/net/topology.hpp"

namespace pssim::net {

/// Receives message arrivals. `tag` is the sender's own identification of the message.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual void on_delivered(std::uint64_t tag) = 0;
  /// The message `tag` was cancelled (Transport::cancel_host / cancel_sink): it will never
  /// be delivered. Default: nothing (a sink that keeps no state per message).
  virtual void on_cancelled(std::uint64_t /*tag*/) {}
};

/// Which of a network's two byte counts a message's bytes go to (FlowNetwork::bytes_moved):
/// Push for what travels toward an aggregation (gradients to a shard, the reduce steps of
/// a collective), Pull for what comes back (parameters to a worker, gather steps).
enum class ByteAccount : std::uint8_t { Push, Pull };

/// How a message is sent, beyond its size (pieces of overlapped and priority-scheduled
/// messages: sim/ps/pieces.hpp).
struct SendOptions {
  ByteAccount account = ByteAccount::Push;
  /// Priority class: at a link shared with messages of other classes, lower classes take
  /// the bandwidth first (a network built with NetworkModel::priorities).
  std::uint32_t priority = 0;
  /// The message follows another one of the same connection back to back: the route's
  /// latency was paid by the first of the train, so it enters the network as a flow at once.
  bool follows = false;
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Sends `bytes` (>= 0) from host `src` to host `dst`; sink->on_delivered(tag) follows
  /// when the last byte has arrived (never before send() returns).
  virtual void send(NodeId src, NodeId dst, double bytes, MessageSink* sink, std::uint64_t tag) = 0;
  /// Cancels every message from or to `host` not yet delivered (a host going down): none
  /// of them is delivered; each sink's on_cancelled(tag) is called, in send order, before
  /// this returns. Returns how many were cancelled.
  virtual std::size_t cancel_host(NodeId host) = 0;
  /// The same for every message of `sink` not yet delivered (a collective torn down).
  virtual std::size_t cancel_sink(const MessageSink* sink) = 0;
  /// The same with options; a transport without classes or trains (test fakes) ignores them.
  virtual void send(NodeId src, NodeId dst, double bytes, MessageSink* sink, std::uint64_t tag,
                    const SendOptions& /*options*/) {
    send(src, dst, bytes, sink, tag);
  }
};

}  // namespace pssim::net
