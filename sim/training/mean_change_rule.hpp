// MeanChangeRule: what workers push is the change of their parameters over their local
// steps (LocalStepsRule); an update adds the mean change to the part: FedAvg with a server
// rate of 1, no optimizer at the servers (local SGD).
#pragma once

#include <stdexcept>

#include "sim/training/server_rule.hpp"

namespace pssim::training {

class MeanChangeRule final : public ServerRule {
 public:
  void apply_mean(const PartUpdate& u, std::vector<float>& mean) override {
    for (std::size_t i = 0; i < u.next.size(); ++i) u.next[i] = u.now[i] + mean[i];
  }
  /// Changes are averaged over a round, never added alone.
  void apply_one(const PartUpdate&, std::size_t, std::vector<float>&, const SliceRef&) override {
    throw std::logic_error("parameter changes are averaged over a round: no update by one alone");
  }
};

}  // namespace pssim::training
