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
  // An answer counts when it is newer than what the worker last computed on: every answer
  // to a push is (the shard applied the push first), and a second slice of one part
  // (a restored shard's broadcast and its answer to a lost push) counts once.
  bool counts(const Worker& w, std::size_t part, std::int64_t before, std::int64_t version) const override {
    return before <= w.parts.used[part] && version > w.parts.used[part];
  }
  std::int64_t ready_after_start(const Worker&) const override { return 0; }
  void on_push(Shard& s, const Message& m) override;
  void begin_update(Shard& s, double& gradients, double& answers) override;
  std::int64_t apply(Shard& s, protocol::UpdateRecord& u) override;
  void after_update(Shard& s) override;
  void on_lost_push(Shard& s, const Message& m) override;
  void restored(Shard& s) override;

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
