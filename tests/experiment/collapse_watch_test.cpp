#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "sim/experiment/collapse_watch.hpp"

using pssim::experiment::CollapseWatch;
using pssim::scenario::CollapseConfig;

namespace {

// One evaluation interval: `n` updates of training loss `loss`, then an evaluation.
std::optional<std::string> interval(CollapseWatch& w, double loss, double test_loss, double accuracy, int n = 3) {
  for (int i = 0; i < n; ++i) w.observe_update(loss);
  return w.check(test_loss, accuracy);
}

}  // namespace

TEST_CASE("a training loss above loss_factor x the initial loss is a collapse", "[collapse]") {
  CollapseWatch w(CollapseConfig{10, 0}, 10);
  CHECK_FALSE(w.check(2.3, 0.1).has_value());             // the initial parameters: the reference
  CHECK_FALSE(interval(w, 22.9, 2.0, 0.4).has_value());    // 9.96 x: not yet
  w.observe_update(std::nan(""));                         // no math for this update: ignored
  const auto why = interval(w, 23.1, 30.0, 0.1);
  REQUIRE(why.has_value());
  CHECK(*why == "training loss 23.1 above 10 x the initial loss 2.3");
}

TEST_CASE("a loss that is high only between two evaluations averages out", "[collapse]") {
  CollapseWatch w(CollapseConfig{10, 0}, 10);
  w.check(2.0, 0.1);
  w.observe_update(60);  // one bad update among ten: mean 7.7, under 20
  for (int i = 0; i < 9; ++i) w.observe_update(2);
  CHECK_FALSE(w.check(2.0, 0.5).has_value());
}

TEST_CASE("accuracy back at chance for chance_evaluations in a row after learning is a collapse", "[collapse]") {
  CollapseWatch w(CollapseConfig{0, 3}, 10);  // chance 10 %: learning above 15 %, at chance up to 12 %
  w.check(2.3, 0.17);                        // the initial parameters may score above chance: not learning
  CHECK_FALSE(interval(w, 2.3, 2.3, 0.10).has_value());
  CHECK_FALSE(interval(w, 2.3, 2.3, 0.11).has_value());
  CHECK_FALSE(interval(w, 2.3, 2.3, 0.10).has_value());  // never learned: not a collapse (too slow, or no learning)
  CHECK_FALSE(interval(w, 2.2, 2.2, 0.40).has_value());  // learned
  CHECK_FALSE(interval(w, 2.3, 2.3, 0.10).has_value());  // 1
  CHECK_FALSE(interval(w, 2.3, 2.3, 0.12).has_value());  // 2
  CHECK_FALSE(interval(w, 2.3, 2.3, 0.13).has_value());  // above 12 %: the count starts again
  CHECK_FALSE(interval(w, 2.3, 2.3, 0.10).has_value());  // 1
  CHECK_FALSE(interval(w, 2.3, 2.3, 0.10).has_value());  // 2
  const auto why = interval(w, 2.3, 2.3, 0.11);          // 3
  REQUIRE(why.has_value());
  CHECK(*why == "test accuracy back at chance (11.00 %, chance 10.00 %) for 3 evaluations after 40.00 %");
}

TEST_CASE("a language model has no accuracy rule, and 0 turns a rule off", "[collapse]") {
  CollapseWatch lm(CollapseConfig{10, 1}, 0);
  lm.check(8.5, 0);
  CHECK_FALSE(interval(lm, 8.0, 8.0, 0).has_value());
  CHECK(interval(lm, 90.0, 90.0, 0).has_value());
  CollapseWatch off(CollapseConfig{0, 0}, 10);
  off.check(2.3, 0.1);
  CHECK_FALSE(interval(off, 2.2, 2.2, 0.9).has_value());
  CHECK_FALSE(interval(off, 1e9, 1e9, 0.1).has_value());
}
