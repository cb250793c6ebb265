// Transport: the one interface through which protocols use the network.
//
// "Send these bytes from host A to host B and tell me when they have arrived." FlowNetwork
// implements it with the max-min flow model; tests substitute fakes.
#pragma once

#include <cstdint>

#include "sim/net/topology.hpp"

namespace pssim::net {

/// Receives message arrivals. `tag` is the sender's own identification of the message.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual void on_delivered(std::uint64_t tag) = 0;
};

/// How a message is sent, beyond its size (pieces of overlapped and priority-scheduled
/// messages: sim/ps/pieces.hpp).
struct SendOptions {
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
  /// The same with options; a transport without classes or trains (test fakes) ignores them.
  virtual void send(NodeId src, NodeId dst, double bytes, MessageSink* sink, std::uint64_t tag,
                    const SendOptions& /*options*/) {
    send(src, dst, bytes, sink, tag);
  }
};

}  // namespace pssim::net
