#include <catch2/catch.hpp>

#include <limits>
#include <memory>
#include <vector>

#include "sim/ps/ledger.hpp"

using namespace pssim;
using namespace pssim::ps;
using namespace pssim::protocol;

namespace {

struct Log : Observer {
  std::vector<UpdateRecord> updates;
  std::vector<RoundRecord> rounds;
  void on_update(const UpdateRecord& u) override { updates.push_back(u); }
  void on_round(const RoundRecord& r) override { rounds.push_back(r); }
};

// Part p applies its next update, for clock `clock`, at the simulator's time.
void apply(Ledger& ledger, std::size_t p, std::int64_t clock) {
  ledger.next_version(p);
  UpdateRecord u;
  u.gradients = 2;
  ledger.updated(p, u, 0);
  ledger.clock_applied(p, clock, 0);
}

}  // namespace

TEST_CASE("a round ends when its last part applies it, once per clock", "[ps][ledger]") {
  Simulator sim;
  Log log;
  Ledger ledger(sim, 2, {}, &log);
  sim.schedule_at(10, [] {});
  sim.run();
  apply(ledger, 0, 0);
  CHECK(log.rounds.empty());  // part 1 has not applied clock 0
  CHECK(ledger.least_version() == 0);
  sim.schedule_at(30, [] {});
  sim.run();
  apply(ledger, 1, 0);
  REQUIRE(log.rounds.size() == 1);
  CHECK(log.rounds[0].round == 0);
  CHECK(log.rounds[0].end == 30);
  CHECK(log.rounds[0].duration == 30);  // from time 0
  CHECK(log.updates.size() == 2);
  CHECK(log.updates[1].version == 1);
  CHECK(ledger.totals().updates == 2);
  CHECK(ledger.totals().gradients_applied == 4);
  CHECK(ledger.totals().worker_gradients_applied == 2);  // part 0's only
  // Part 0 restored to version 0 applies clock 0 again: the round is not counted twice.
  ledger.restore(0, 0);
  apply(ledger, 0, 0);
  CHECK(log.rounds.size() == 1);
  CHECK(ledger.totals().rounds == 1);
}

TEST_CASE("the update limit holds once every part reaches it, and not after a restore below it", "[ps][ledger]") {
  Simulator sim;
  StopLimits stop;
  stop.updates = 1;
  Ledger ledger(sim, 2, stop, nullptr);
  apply(ledger, 0, 0);
  CHECK_FALSE(ledger.finished());
  ledger.restore(0, 0);  // back below the limit: part 0 no longer counts
  apply(ledger, 1, 0);
  CHECK_FALSE(ledger.finished());
  apply(ledger, 0, 0);
  CHECK(ledger.finished());
}

TEST_CASE("a NaN training loss ends the run at the update it was for", "[ps][ledger]") {
  Simulator sim;
  Ledger ledger(sim, 1, {}, nullptr);
  apply(ledger, 0, 0);
  auto finite = std::make_shared<training::GradientData>();
  finite->loss = 1.5;
  ledger.note_loss(finite);
  CHECK_FALSE(ledger.finished());
  auto nan = std::make_shared<training::GradientData>();
  nan->loss = std::numeric_limits<double>::quiet_NaN();
  ledger.note_loss(nan);
  CHECK(ledger.finished());
  CHECK(ledger.diverged_at() == 2);
}
