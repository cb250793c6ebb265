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
};

}  // namespace pssim::net
