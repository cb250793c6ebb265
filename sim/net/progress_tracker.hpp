// FlowNetwork::Progress: how a network's messages become flows of its solver and how their
// progress is tracked until they end, one implementation per sharing model:
//
//   GroupProgress  max-min sharing (MaxMinSolver): flows of one bottleneck share its level,
//                  so progress is tracked per bottleneck group (group_progress.hpp);
//   FlowProgress   general sharing (GeneralSharingSolver: the tcp model, priority
//                  classes): each flow at its own rate (flow_progress.hpp).
//
// A Progress owns the solver and is its listener. FlowNetwork keeps the messages, their
// start batches and deliveries, the byte counts and the utilization meters; it asks its
// Progress to start a flow, when the next one ends, which end now, and what a flow moved.
// Private to the network (nested in it: it reads the messages and meters).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sim/net/flow_network.hpp"

namespace pssim::net {

class FlowNetwork::Progress {
 public:
  virtual ~Progress() = default;

  virtual SharingSolver& solver() = 0;
  /// The pool has grown to hold message m (per-message state is sized).
  virtual void message_created(std::uint32_t /*m*/) {}
  /// Message m was sent with `options` (general sharing keeps its priority class).
  virtual void sent(std::uint32_t /*m*/, const SendOptions& /*options*/) {}
  /// Message m (Flowing, at now) becomes a flow of the solver: msg.flow and
  /// message_of_flow_ are set, the flow is counted on its forward route (count_start).
  virtual void start(std::uint32_t m) = 0;
  /// After a solve: when the next flow ends (kTimeMax: none is due).
  virtual TimeNs next_completion() = 0;
  /// At a completion event: appends (send order, message) of every flow ending now.
  virtual void collect_due(std::vector<std::pair<std::uint64_t, std::uint32_t>>& done) = 0;
  /// Message m's flow ended now, having moved all its bytes: the meters get its exact
  /// size, its forward route counts it (count_end), and it leaves the solver.
  virtual void end(std::uint32_t m) = 0;
  /// Bytes message m's flow (in progress) has moved by t.
  virtual double moved(std::uint32_t m, TimeNs t) const = 0;
  /// Whether r is on the forward route of message m's flow (its bytes count there).
  virtual bool forward(std::uint32_t m, ResourceId r) const = 0;
  /// Whether capacity changes and cancelled flows are followed (else they throw).
  virtual bool follows_dynamics() const = 0;
};

}  // namespace pssim::net
