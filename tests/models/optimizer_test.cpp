// Optimizer steps against hand computation (PyTorch's update rules written out), slices.
#include <cmath>

#include <catch2/catch.hpp>

#include "models/optim/optimizer.hpp"

using namespace pssim::models;

TEST_CASE("sgd: p -= lr * (g + wd p)", "[optim]") {
  OptimizerSpec s;
  s.lr = 0.1, s.weight_decay = 0.5;
  SliceOptimizer opt(s, 0, 2);
  std::vector<float> p{1.0f, -2.0f}, g{0.5f, 0.25f};
  opt.step(p, g);
  // 1 - 0.1 * (0.5 + 0.5) = 0.9;  -2 - 0.1 * (0.25 - 1) = -1.925
  CHECK(p[0] == Approx(0.9f));
  CHECK(p[1] == Approx(-1.925f));
  opt.step(p, g, 1.0);  // lr passed per call: 0.9 - (0.5 + 0.45) = -0.05
  CHECK(p[0] == Approx(-0.05f));
  CHECK(opt.steps() == 2);
}

TEST_CASE("momentum and nesterov: PyTorch's buffer rule", "[optim]") {
  OptimizerSpec s;
  s.lr = 0.1, s.momentum = 0.9;
  SliceOptimizer heavy(s, 0, 1);
  std::vector<float> p{1.0f};
  std::vector<float> g1{1.0f}, g2{2.0f};
  heavy.step(p, g1);  // b = 1; p = 1 - 0.1 = 0.9
  CHECK(p[0] == Approx(0.9f));
  heavy.step(p, g2);  // b = 0.9 + 2 = 2.9; p = 0.9 - 0.29 = 0.61
  CHECK(p[0] == Approx(0.61f));
  CHECK(heavy.first_state()[0] == Approx(2.9f));
  s.nesterov = true;
  SliceOptimizer nest(s, 0, 1);
  p = {1.0f};
  nest.step(p, g1);  // b = 1; step g + mu b = 1.9; p = 1 - 0.19 = 0.81
  CHECK(p[0] == Approx(0.81f));
  nest.step(p, g2);  // b = 2.9; step 2 + 2.61 = 4.61; p = 0.81 - 0.461 = 0.349
  CHECK(p[0] == Approx(0.349f));
}

TEST_CASE("adam and adamw: two steps by hand", "[optim]") {
  OptimizerSpec s;
  s.kind = OptimizerKind::adam;
  s.lr = 0.01;
  SliceOptimizer adam(s, 0, 1);
  std::vector<float> p{1.0f};
  std::vector<float> g1{0.5f}, g2{-1.0f};
  adam.step(p, g1);
  // t=1: m = 0.05, v = 0.00025; m_hat = 0.5, v_hat = 0.25: p = 1 - 0.01 * 0.5 / (0.5 + 1e-8)
  CHECK(p[0] == Approx(0.99f).epsilon(1e-6));
  adam.step(p, g2);
  // t=2: m = 0.045 - 0.1 = -0.055, v = 0.00024975 + 0.001 = 0.00124975;
  // m_hat = -0.055 / 0.19, v_hat = 0.00124975 / 0.001999
  const double m_hat = -0.055 / (1 - 0.81), v_hat = 0.00124975 / (1 - 0.998001);
  CHECK(p[0] == Approx(0.99 - 0.01 * m_hat / (std::sqrt(v_hat) + 1e-8)).epsilon(1e-6));
  // AdamW: decay applied to p directly (p *= 1 - lr wd) and not fed into the moments.
  s.kind = OptimizerKind::adamw;
  s.weight_decay = 0.1;
  SliceOptimizer adamw(s, 0, 1);
  p = {1.0f};
  adamw.step(p, g1);
  CHECK(p[0] == Approx(1.0 * (1 - 0.001) - 0.01).epsilon(1e-6));
  // Adam with L2: the moments see g + wd p = 0.6, so the first step is again lr * sign.
  s.kind = OptimizerKind::adam;
  SliceOptimizer adam_l2(s, 0, 1);
  p = {1.0f};
  adam_l2.step(p, g1);
  CHECK(p[0] == Approx(0.99f).epsilon(1e-6));
}

TEST_CASE("linear warm-up scales the step's learning rate", "[optim]") {
  OptimizerSpec s;
  s.lr = 1.0, s.warmup_steps = 4;
  SliceOptimizer opt(s, 0, 1);
  std::vector<float> p{0.0f}, g{1.0f};
  std::vector<float> seen;
  for (int k = 0; k < 6; ++k) {
    CHECK(opt.next_lr(1.0) == Approx(std::min(1.0, (k + 1) / 4.0)));
    const float before = p[0];
    opt.step(p, g);
    seen.push_back(before - p[0]);
  }
  CHECK(seen == std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f, 1.0f, 1.0f});
}

TEST_CASE("sharded slices update exactly like one optimizer over the whole vector", "[optim]") {
  for (auto kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
    OptimizerSpec s;
    s.kind = kind;
    s.lr = 0.05;
    s.momentum = kind == OptimizerKind::sgd ? 0.9 : 0.0;
    s.weight_decay = 1e-3;
    const std::size_t n = 103;
    std::vector<float> whole(n), sharded(n), grad(n);
    for (std::size_t i = 0; i < n; ++i) whole[i] = sharded[i] = std::sin(float(i));
    SliceOptimizer full(s, 0, n);
    std::vector<SliceOptimizer> shards;
    for (auto [off, len] : split_slices(n, 4)) shards.emplace_back(s, off, len);
    CHECK(shards[0].length() == 26);
    CHECK(shards[3].offset() == 78);
    for (int step = 0; step < 5; ++step) {
      for (std::size_t i = 0; i < n; ++i) grad[i] = std::cos(float(i * (step + 1)));
      full.step(whole, grad);
      for (auto& sh : shards) sh.step_full(sharded, grad, s.lr);
    }
    CHECK(whole == sharded);
    for (auto& sh : shards) CHECK(sh.steps() == 5);
  }
}

TEST_CASE("optimizer misuse is reported with the field and the fix", "[optim][errors]") {
  OptimizerSpec s;
  s.nesterov = true;
  CHECK_THROWS_WITH(SliceOptimizer(s, 0, 1), Catch::Contains("nesterov needs"));
  CHECK_THROWS_WITH(parse_optimizer_kind("rmsprop"), Catch::Contains("known kinds: sgd"));
  OptimizerSpec ok;
  SliceOptimizer opt(ok, 10, 5);
  std::vector<float> p(4), g(4);
  CHECK_THROWS_WITH(opt.step(p, g), Catch::Contains("slice [10, 15) has 5 elements"));
  CHECK_THROWS(split_slices(3, 4));
}
