// A MessageSink for network tests: when each tagged message arrived, or was cancelled.
#pragma once

#include <cstdint>
#include <map>

#include "sim/core/simulator.hpp"
#include "sim/net/transport.hpp"

namespace pssim::testing {

struct DeliveryRecorder : net::MessageSink {
  Simulator* sim;
  std::map<std::uint64_t, TimeNs> arrived, cancelled;  // tag -> simulated time
  explicit DeliveryRecorder(Simulator* s) : sim(s) {}
  void on_delivered(std::uint64_t tag) override { arrived[tag] = sim->now(); }
  void on_cancelled(std::uint64_t tag) override { cancelled[tag] = sim->now(); }
};

}  // namespace pssim::testing
