// DelayTransport: a fake Transport for protocol tests. A message of b bytes arrives
// latency + b / bandwidth after it was sent, whatever else is in flight (no sharing), so
// expected times are sums a test can write down.
#pragma once

#include <array>
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
    send(src, dst, bytes, sink, tag, net::SendOptions{});
  }
  void send(net::NodeId src, net::NodeId dst, double bytes, net::MessageSink* sink, std::uint64_t tag,
            const net::SendOptions& options) override {
    sent.push_back({src, dst, bytes, sim_.now()});
    pending_.push_back({sink, tag, src, dst, bytes, options.account, this});  // a deque: addresses stay valid
    Pending* p = &pending_.back();
    sim_.schedule_after(latency_ + seconds_to_ns(bytes / bandwidth_), [p] {
      if (p->cancelled) return;
      p->delivered = true;
      p->transport->delivered_bytes_[static_cast<std::size_t>(p->account)] += p->bytes;
      p->sink->on_delivered(p->tag);
    });
  }
  /// Bytes of the messages of `account` delivered so far (each moves whole on delivery).
  double bytes_delivered(net::ByteAccount account) const { return delivered_bytes_[static_cast<std::size_t>(account)]; }

  // Cancels in send order, as FlowNetwork does.
  std::size_t cancel_host(net::NodeId host) override {
    return cancel_if([host](const Pending& p) { return p.src == host || p.dst == host; });
  }
  std::size_t cancel_sink(const net::MessageSink* sink) override {
    return cancel_if([sink](const Pending& p) { return p.sink == sink; });
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
    net::NodeId src, dst;
    double bytes;
    net::ByteAccount account;
    DelayTransport* transport;
    bool cancelled = false, delivered = false;
  };
  template <typename Match>
  std::size_t cancel_if(Match match) {
    std::vector<Pending*> hit;
    for (auto& p : pending_)
      if (!p.cancelled && !p.delivered && match(p)) hit.push_back(&p);
    for (Pending* p : hit) p->cancelled = true;
    for (Pending* p : hit) p->sink->on_cancelled(p->tag);
    return hit.size();
  }
  Simulator& sim_;
  double bandwidth_;
  TimeNs latency_;
  std::deque<Pending> pending_;
  std::array<double, 2> delivered_bytes_{};  // per net::ByteAccount
};

}  // namespace pssim::testing
