// FlowProgress: flows under general sharing (the tcp model, priority classes), tracked one
// by one (a FlowNetwork::Progress, progress_tracker.hpp).
//
// A message's flow is built with its shape: under tcp its weight 1 / (route latency +
// weight_s / bandwidth per link), its window cap and, with cross-traffic, the reverse
// route's directions at coefficient crosstraffic (its ACKs); its priority class as sent.
// Flows of one bottleneck no longer share one rate, so each keeps its bytes left and its
// speed (payload: the rate x bandwidth_factor under tcp), and a heap of finish times is
// updated for the flows whose rate changed: O(log F) per change. Byte counts and meters
// count payload on the forward route only. Capacity changes and cancellations are not
// followed (the scenario layer refuses them with tcp or priority scheduling).
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "sim/net/general_sharing.hpp"
#include "sim/net/progress_tracker.hpp"

namespace pssim::net {

class FlowNetwork::FlowProgress final : public FlowNetwork::Progress, private SharingSolver::Listener {
 public:
  FlowProgress(FlowNetwork& network, std::vector<double> capacities);

  SharingSolver& solver() override { return solver_; }
  void message_created(std::uint32_t m) override;
  void sent(std::uint32_t m, const SendOptions& options) override { state_[m].priority = options.priority; }
  void start(std::uint32_t m) override;
  TimeNs next_completion() override;
  void collect_due(std::vector<std::pair<std::uint64_t, std::uint32_t>>& done) override;
  void end(std::uint32_t m) override;
  double moved(std::uint32_t m, TimeNs t) const override { return net_.messages_pool_[m].bytes - left_at(m, t); }
  bool forward(std::uint32_t m, ResourceId r) const override;
  bool follows_dynamics() const override { return false; }

 private:
  struct State {
    double left = 0;          // bytes still to move at `since`
    double speed = 0;         // bytes/s of payload
    TimeNs since = 0;
    std::uint32_t epoch = 0;  // invalidates stale entries of due_
    std::uint32_t priority = 0;
    std::uint8_t hops = 0;    // the forward route: the first `hops` resources of the flow's route
  };
  struct Due {
    TimeNs time;
    std::uint32_t message, epoch;
    bool operator>(const Due& o) const { return time != o.time ? time > o.time : message > o.message; }
  };

  // SharingSolver::Listener
  void rate_changed(SharingSolver::FlowId f, double old_rate, double new_rate) override;
  double left_at(std::uint32_t m, TimeNs t) const;  // bytes of m still to move at t

  FlowNetwork& net_;
  GeneralSharingSolver solver_;
  std::vector<State> state_;  // per message
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
};

}  // namespace pssim::net
