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

class Transport {
 public:
  virtual ~Transport() = default;
  /// Sends `bytes` (>= 0) from host `src` to host `dst`; sink->on_delivered(tag) follows
  /// when the last byte has arrived (never before send() returns).
  virtual void send(NodeId src, NodeId dst, double bytes, MessageSink* sink, std::uint64_t tag) = 0;
};

}  // namespace pssim::net
