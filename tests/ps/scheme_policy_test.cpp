// A scheme policy driven alone, through a fake PolicyEngine: what the policy decides,
// without the engine's messages and timing.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "sim/ps/async_policy.hpp"
#include "sim/ps/clocked_policies.hpp"

using namespace pssim;
using namespace pssim::ps;
using namespace pssim::protocol;

namespace {

// Records what the policy asks of the engine; applies run at once when the test says so.
struct FakeEngine final : PolicyEngine {
  Simulator sim;
  Ledger ledger_{sim, 1, {}, nullptr};
  std::vector<std::size_t> live{0, 1, 2};
  std::int64_t members_ = 3;
  std::vector<GradientRecord> gradients;
  std::vector<std::size_t> applies;                     // shards that began an update
  std::vector<std::pair<std::size_t, std::size_t>> pulls;  // (shard, worker)

  TimeNs now() const override { return sim.now(); }
  std::size_t workers() const override { return 3; }
  const std::vector<std::size_t>& live_workers() const override { return live; }
  std::int64_t members() const override { return members_; }
  training::ParameterStore* store() const override { return nullptr; }
  Ledger& ledger() override { return ledger_; }
  void report(const GradientRecord& g) override { gradients.push_back(g); }
  void begin_apply(Shard& s) override { applies.push_back(s.index); }
  void send_pulls(Shard& s, const std::vector<std::size_t>& workers) override {
    for (std::size_t w : workers) pulls.emplace_back(s.index, w);
  }
};

Message push(std::int64_t worker, std::int64_t version, std::int64_t clock) {
  return {Message::Kind::Push, worker, 0, version, clock, nullptr, nullptr, nullptr};
}

// What the engine does when an update it began ends.
void finish_update(SchemePolicy& policy, Shard& s, Ledger& ledger) {
  double gradients = 0, answers = 0;
  policy.begin_update(s, gradients, answers);
  s.applying = true;
  UpdateRecord u;
  const std::int64_t samples = policy.apply(s, u);
  s.applying = false;
  ledger.updated(s.index, u, samples);
  policy.after_update(s);
}

}  // namespace

TEST_CASE("sync with a backup worker applies on the second gradient and drops the third", "[ps][policy]") {
  FakeEngine engine;
  SyncPolicy policy(1);
  policy.attach(engine, 1);
  Shard s;
  policy.on_push(s, push(0, 0, 0));
  CHECK(engine.applies.empty());
  policy.on_push(s, push(1, 0, 0));
  REQUIRE(engine.applies == std::vector<std::size_t>{0});  // 3 members - 1 backup
  s.applying = true;
  policy.on_push(s, push(2, 0, 0));  // late: the update is under way
  s.applying = false;
  REQUIRE(engine.gradients.size() == 3);
  CHECK(engine.gradients[0].accepted);
  CHECK(engine.gradients[1].accepted);
  CHECK_FALSE(engine.gradients[2].accepted);
  CHECK(engine.ledger_.totals().gradients_dropped == 1);
  finish_update(policy, s, engine.ledger_);
  CHECK(engine.ledger_.version(0) == 1);
  CHECK(engine.ledger_.totals().rounds == 1);
  CHECK(engine.ledger_.totals().gradients_applied == 2);
  // The new version goes to every live worker.
  CHECK(engine.pulls == std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {0, 1}, {0, 2}});
}

TEST_CASE("sync waits for fewer gradients once a member is gone", "[ps][policy]") {
  FakeEngine engine;
  SyncPolicy policy(0);
  policy.attach(engine, 1);
  Shard s;
  policy.on_push(s, push(0, 0, 0));
  policy.on_push(s, push(1, 0, 0));
  CHECK(engine.applies.empty());  // worker 2's is missing
  engine.members_ = 2;            // its failure is detected
  policy.members_changed(s);
  CHECK(engine.applies == std::vector<std::size_t>{0});
}

TEST_CASE("async answers the worker whose gradient it applied, with its staleness", "[ps][policy]") {
  FakeEngine engine;
  AsyncPolicy policy;
  policy.attach(engine, 1);
  Shard s;
  policy.on_push(s, push(2, 0, 0));
  REQUIRE(engine.applies == std::vector<std::size_t>{0});
  finish_update(policy, s, engine.ledger_);
  policy.on_push(s, push(1, 0, 0));  // computed on version 0, applied at version 1
  finish_update(policy, s, engine.ledger_);
  CHECK(engine.pulls == std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}, {0, 1}});
  CHECK(engine.ledger_.totals().staleness_histogram == std::vector<std::int64_t>{1, 1});
}
