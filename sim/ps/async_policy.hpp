// async (ASP): each gradient is applied on arrival (FIFO per shard); the shard then sends
// its current slice back to that worker, which starts again once every shard answered.
// Staleness = updates the shard applied since the worker's copy.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/ps/scheme_policy.hpp"

namespace pssim::ps {

class AsyncPolicy final : public SchemePolicy {
 public:
  // Every answer counts: it follows one of the worker's pushes.
  bool counts(const Worker&, std::size_t, std::int64_t, std::int64_t) const override { return true; }
  std::int64_t ready_after_start(const Worker&) const override { return 0; }
  void on_push(Shard& s, const Message& m) override;
  void begin_update(Shard& s, double& gradients, double& answers) override;
  std::int64_t apply(Shard& s, protocol::UpdateRecord& u) override;
  void after_update(Shard& s) override;

 protected:
  void attached(std::size_t shards, std::size_t workers) override;

 private:
  struct Pending {
    std::int64_t worker = 0, used = 0;
    training::GradientRef gradient;
    training::SliceRef computed_on;
  };
  struct Queue {
    std::deque<Pending> waiting;
    Pending applying;
  };
  std::vector<Queue> queues_;  // per shard
};

}  // namespace pssim::ps
