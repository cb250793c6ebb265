// Learning-rate schedules against PyTorch 1.13's schedulers (values computed by hand from
// their documented rules and checked with torch.optim.lr_scheduler; see the comments).
#include <catch2/catch.hpp>

#include "models/optim/lr_schedule.hpp"

using namespace pssim::models;

TEST_CASE("step: gamma every step_size steps (StepLR)", "[lr_schedule]") {
  LrScheduleSpec s;
  s.kind = LrScheduleSpec::Kind::step;
  s.step_size = 3;
  s.gamma = 0.5;
  // StepLR(step_size=3, gamma=0.5): lr of steps 0..6 = 1, 1, 1, .5, .5, .5, .25 (x lr).
  const double expected[] = {1, 1, 1, 0.5, 0.5, 0.5, 0.25};
  for (int t = 0; t < 7; ++t) CHECK(schedule_factor(s, t) == Approx(expected[t]));
}

TEST_CASE("cosine: half a cosine to min_factor, then flat (CosineAnnealingLR)", "[lr_schedule]") {
  LrScheduleSpec s;
  s.kind = LrScheduleSpec::Kind::cosine;
  s.period = 4;
  s.min_factor = 0.1;
  // CosineAnnealingLR(T_max=4, eta_min=0.1): 1, 0.868198, 0.55, 0.231802, 0.1.
  const double expected[] = {1.0, 0.868198, 0.55, 0.231802, 0.1};
  for (int t = 0; t <= 4; ++t) CHECK(schedule_factor(s, t) == Approx(expected[t]).epsilon(1e-6));
  CHECK(schedule_factor(s, 9) == Approx(0.1));  // stays at the minimum (PyTorch would rise again)
}

TEST_CASE("plateau: decays after more than `patience` bad evaluations (ReduceLROnPlateau)", "[lr_schedule]") {
  LrScheduleSpec s;
  s.kind = LrScheduleSpec::Kind::plateau;
  s.patience = 1;
  s.gamma = 0.5;
  PlateauTracker p(s);
  // ReduceLROnPlateau(factor=0.5, patience=1) fed these losses: the rate halves at the 4th
  // (two bad ones in a row after 0.9) and again at the 7th.
  const double losses[] = {1.0, 0.9, 0.95, 0.95, 0.8, 0.85, 0.85};
  const double factor[] = {1, 1, 1, 0.5, 0.5, 0.5, 0.25};
  for (int i = 0; i < 7; ++i) {
    p.observe(losses[i]);
    CHECK(p.factor() == factor[i]);
  }
  // An improvement smaller than the relative threshold is not one.
  PlateauTracker q(s);
  q.observe(1.0);
  q.observe(0.99995);
  q.observe(0.99991);
  CHECK(q.factor() == 0.5);
}

TEST_CASE("none and plateau have no per-step factor, names parse", "[lr_schedule]") {
  LrScheduleSpec s;
  CHECK(schedule_factor(s, 1000) == 1.0);
  s.kind = LrScheduleSpec::Kind::plateau;
  CHECK(schedule_factor(s, 1000) == 1.0);
  CHECK(parse_lr_schedule_kind("cosine") == LrScheduleSpec::Kind::cosine);
  CHECK_THROWS_WITH(parse_lr_schedule_kind("linear"), Catch::Contains("known: none, step, cosine, plateau"));
}
