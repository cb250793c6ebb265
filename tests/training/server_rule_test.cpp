// Server rules: what an update does with a part, written out by hand on small vectors.
#include <cmath>
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/training/mean_change_rule.hpp"
#include "sim/training/server_rule.hpp"

using namespace pssim;
using namespace pssim::training;

namespace {

// Runs one update of part 0 of `rule` from `now`: apply_mean or, with a worker, apply_one.
std::vector<float> update(ServerRule& rule, const std::vector<float>& now, std::vector<float> value, double lr,
                          bool alone = false, const SliceRef& computed_on = nullptr) {
  std::vector<float> next(now.size(), -99.0f);
  const PartUpdate u{0, now, next, lr};
  if (alone) rule.apply_one(u, 0, value, computed_on);
  else rule.apply_mean(u, value);
  return next;
}

}  // namespace

TEST_CASE("the optimizer rule steps each range of a part with its own optimizer state", "[training][rules]") {
  models::OptimizerSpec sgd;
  sgd.lr = 0.5;
  sgd.momentum = 0.5;
  OptimizerRule rule(sgd, std::nullopt);
  rule.add_part({{0, 1}, {3, 4}});  // two ranges of one element each
  // Momentum SGD: v = g (first step), w - lr v; then v = 0.5 v + g.
  const auto first = update(rule, {1, 2}, {2, 4}, 0.5);
  CHECK(first == std::vector<float>{0, 0});
  const auto second = update(rule, first, {2, 4}, 0.5);
  CHECK(second == std::vector<float>{-1.5f, -3});  // v = 3, 6
  CHECK_FALSE(rule.needs_computed_on());
  CHECK(rule.take_answer(0, 0) == nullptr);  // workers get the part's slice
}

TEST_CASE("delay compensation adds lambda g*g*(w_now - w_then) to a gradient applied alone", "[training][rules]") {
  models::OptimizerSpec sgd;
  sgd.lr = 1;
  OptimizerRule rule(sgd, 0.5);
  rule.add_part({{0, 2}});
  REQUIRE(rule.needs_computed_on());
  const auto then = std::make_shared<const std::vector<float>>(std::vector<float>{0, 4});
  // g = (2, 1), w_now - w_then = (1, -2): g' = (2 + 0.5*4*1, 1 + 0.5*1*-2) = (4, 0).
  CHECK(update(rule, {1, 2}, {2, 1}, 1, true, then) == std::vector<float>{-3, 2});
  // Averaged gradients are not compensated.
  CHECK(update(rule, {1, 2}, {2, 1}, 1, false, then) == std::vector<float>{-1, 1});
}

TEST_CASE("the mean-change rule adds the mean change and never takes one alone", "[training][rules]") {
  MeanChangeRule rule;
  rule.add_part({{0, 3}});
  CHECK(update(rule, {1, 2, 3}, {0.5f, -1, 0}, 123.0) == std::vector<float>{1.5f, 1, 3});  // no rate
  CHECK_THROWS_AS(update(rule, {1, 2, 3}, {0.5f, -1, 0}, 1, true), std::logic_error);
}
