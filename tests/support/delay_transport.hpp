// DelayTransport: a fake Transport for protocol tests. A message of b bytes arrives
// latency + b / bandwidth after it was sent, whatever else is in flight (no sharing), so
// expected times are sums a test can write down.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/net/transport.hpp"

namespace pssim::testing {

class DelayTransport : public net::Transport {
 public:
  DelayTransport(Simulator& sim, double bandwidth, TimeNs latency) : sim_(sim), bandwidth_(bandwidth), latency_(latency) {}

  void send(net::NodeId src, net::NodeId dst, double bytes, net::MessageSink* sink, std::uint64_t tag) override {
    sent.push_back({src, dst, bytes, sim_.now()});
    pending_.push_back({sink, tag});  // a deque: the address stays valid for the event
    const Pending* p = &pending_.back();
    sim_.schedule_after(latency_ + seconds_to_ns(bytes / bandwidth_), [p] { p->sink->on_delivered(p->tag); });
  }

  struct Sent {
    net::NodeId src, dst;
    double bytes;
    TimeNs at;
  };
  std::vector<Sent> sent;

 private:
  struct Pending {
    net::MessageSink* sink;
    std::uint64_t tag;
  };
  Simulator& sim_;
  double bandwidth_;
  TimeNs latency_;
  std::deque<Pending> pending_;
};

}  // namespace pssim::testing
