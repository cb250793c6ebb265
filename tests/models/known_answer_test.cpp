// Known-answer tests: small cases whose outputs are computed by hand (in comments) or by
// the defining formula written out independently of the implementation.
#include <cmath>

#include <catch2/catch.hpp>

#include "models/layers/conv2d.hpp"
#include "models/layers/elementwise.hpp"
#include "models/layers/linear.hpp"
#include "models/layers/log_softmax_nll.hpp"
#include "models/layers/lstm.hpp"
#include "models/layers/max_pool2d.hpp"

using namespace pssim::models;

TEST_CASE("linear: y = x W^T + b by hand", "[known-answer]") {
  Linear<double> fc("fc", Shape3{2, 1, 1}, 2);
  ParamLayout layout;
  fc.declare_params(layout);
  // W = [[1, 0], [0.5, -1]], b = [0.1, 0.2]; x = [1, 2] -> y = [1.1, -1.3].
  std::vector<double> p{1, 0, 0.5, -1, 0.1, 0.2}, x{1, 2}, y(2);
  LayerIo<double> io;
  io.batch = 1, io.params = p.data(), io.x = x.data(), io.y = y.data();
  fc.forward(io);
  CHECK(y[0] == Approx(1.1));
  CHECK(y[1] == Approx(-1.3));
  // dy = [1, 1]: dW = dy^T x = [[1, 2], [1, 2]], db = [1, 1], dx = dy W = [1.5, -1].
  std::vector<double> dy{1, 1}, g(6), dx(2);
  io.dy = dy.data(), io.grads = g.data(), io.dx = dx.data();
  fc.backward(io);
  CHECK(g == std::vector<double>{1, 2, 1, 2, 1, 1});
  CHECK(dx == std::vector<double>{1.5, -1});
}

TEST_CASE("conv2d: 2x2 box filter over 1..9 by hand", "[known-answer]") {
  Conv2d<double> conv("c", Shape3{1, 3, 3}, 1, 2);
  ParamLayout layout;
  conv.declare_params(layout);
  std::vector<double> p{1, 1, 1, 1, 0.5}, x{1, 2, 3, 4, 5, 6, 7, 8, 9}, y(4),
      scratch(conv.scratch_size(1));
  LayerIo<double> io;
  io.batch = 1, io.params = p.data(), io.x = x.data(), io.y = y.data(), io.scratch = scratch.data();
  conv.forward(io);
  // Windows: 1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9, plus bias 0.5.
  CHECK(y == std::vector<double>{12.5, 16.5, 24.5, 28.5});
  // dy = 1 everywhere: dW[i,j] = sum of the window's inputs at offset (i,j) = 12, 16, 24, 28;
  // db = 4; dx counts how many windows cover each pixel: [1,2,1; 2,4,2; 1,2,1].
  std::vector<double> dy(4, 1.0), g(5), dx(9);
  io.dy = dy.data(), io.grads = g.data(), io.dx = dx.data();
  conv.backward(io);
  CHECK(g == std::vector<double>{12, 16, 24, 28, 4});
  CHECK(dx == std::vector<double>{1, 2, 1, 2, 4, 2, 1, 2, 1});
}

TEST_CASE("max_pool2d: 2x2 windows, first maximum wins ties", "[known-answer]") {
  MaxPool2d<double> pool(Shape3{1, 4, 4}, 2);
  std::vector<double> x{1, 5, 2, 2,   //
                        3, 4, 2, 2,   //
                        0, 0, 9, 1,   //
                        0, 7, 1, 9};  // windows' maxima: 5, 2 (tie: first), 7, 9 (tie: first)
  std::vector<double> y(4);
  std::vector<std::int32_t> arg(4);
  LayerIo<double> io;
  io.batch = 1, io.x = x.data(), io.y = y.data(), io.index_scratch = arg.data();
  pool.forward(io);
  CHECK(y == std::vector<double>{5, 2, 7, 9});
  CHECK(arg == std::vector<std::int32_t>{1, 2, 13, 10});
  std::vector<double> dy{1, 2, 3, 4}, dx(16);
  io.dy = dy.data(), io.dx = dx.data();
  pool.backward(io);
  CHECK(dx == std::vector<double>{0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 3, 0, 0});
}

TEST_CASE("relu and dropout by hand", "[known-answer]") {
  Relu<double> relu(Shape3{4, 1, 1});
  std::vector<double> x{-1, 0, 2, -3}, y(4), dy{1, 1, 1, 1}, dx(4);
  LayerIo<double> io;
  io.batch = 1, io.x = x.data(), io.y = y.data(), io.dy = dy.data(), io.dx = dx.data();
  relu.forward(io);
  relu.backward(io);
  CHECK(y == std::vector<double>{0, 0, 2, 0});
  CHECK(dx == std::vector<double>{0, 0, 1, 0});  // subgradient 0 at x = 0, as PyTorch
  // Dropout p = 0.25: kept elements are scaled by 1/0.75, about a quarter are dropped.
  Dropout<double> drop(Shape3{4000, 1, 1}, 0.25, 0);
  std::vector<double> ones(4000, 1.0), out(4000), mask(4000);
  LayerIo<double> d;
  d.batch = 1, d.x = ones.data(), d.y = out.data(), d.scratch = mask.data(), d.seed = 3;
  drop.forward(d);
  int zeros = 0;
  for (double v : out) {
    if (v == 0) ++zeros;
    else REQUIRE(v == Approx(1 / 0.75));
  }
  CHECK(zeros > 900);  // binomial(4000, 0.25): mean 1000, sd 27
  CHECK(zeros < 1100);
  d.training = false;
  drop.forward(d);
  CHECK(out == ones);
}

TEST_CASE("dropout2d zeroes whole channels and scales the others", "[known-answer]") {
  // p = 0.75 over 2 samples x 1000 channels of 2x3 pixels: about 1500 channels zeroed, each
  // kept channel scaled by 4 in all 6 of its pixels.
  Dropout<double> drop(Shape3{1000, 2, 3}, 0.75, 0, true);
  const std::size_t n = 2 * 6000;
  std::vector<double> x(n), out(n), mask(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = 1.0 + double(i % 6);
  LayerIo<double> d;
  d.batch = 2, d.x = x.data(), d.y = out.data(), d.scratch = mask.data(), d.seed = 5;
  drop.forward(d);
  int dropped = 0;
  for (std::size_t c = 0; c < 2000; ++c) {
    const bool zero = out[c * 6] == 0;
    dropped += zero;
    for (std::size_t k = 0; k < 6; ++k) REQUIRE(out[c * 6 + k] == (zero ? 0.0 : 4.0 * x[c * 6 + k]));
  }
  CHECK(dropped > 1440);  // binomial(2000, 0.75): mean 1500, sd 19
  CHECK(dropped < 1560);
  // Backward applies the same mask; evaluation is the identity.
  std::vector<double> dy(n, 1.0), dx(n);
  d.dy = dy.data(), d.dx = dx.data();
  drop.backward(d);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(dx[i] == (out[i] == 0 ? 0.0 : 4.0));
  d.training = false;
  drop.forward(d);
  CHECK(out == x);
  CHECK_THROWS_WITH(Dropout<double>(Shape3{1, 1, 1}, 1.0, 0, true), Catch::Contains("dropout2d: probability 1"));
}

TEST_CASE("log_softmax_nll: equal logits give log(C) and softmax - onehot", "[known-answer]") {
  std::vector<double> z{0, 0, 3, 1, 1, 1};
  std::vector<std::int32_t> t{0, 2};
  const auto sums = log_softmax_nll(z.data(), t.data(), 2, 3, 0.5);
  // Row 0: softmax([0,0,3]) = [1,1,e^3]/(2+e^3), target 0 -> loss log(2+e^3); arg-max 2.
  // Row 1: uniform -> loss log 3; arg-max 0 (first) != 2.
  CHECK(sums.loss_sum == Approx(std::log(2 + std::exp(3.0)) + std::log(3.0)));
  CHECK(sums.correct == 0);
  const double s = 2 + std::exp(3.0);
  CHECK(z[0] == Approx(0.5 * (1 / s - 1)));
  CHECK(z[2] == Approx(0.5 * std::exp(3.0) / s));
  CHECK(z[5] == Approx(0.5 * (1.0 / 3 - 1)));
}

TEST_CASE("lstm: two steps by PyTorch's equations, gate order i, f, g, o", "[known-answer][lstm]") {
  // Input size 1, hidden 1. W_ih = [1, 2, 3, 4] (rows i, f, g, o), W_hh = [0.5, -0.5, 1, 0],
  // b_ih = [0.1, 0, 0, 0], b_hh = [0, 0.2, 0, -0.1]; x = [0.5, -1].
  LstmLayer<double> lstm("lstm", 0, 1, 1);
  ParamLayout layout;
  lstm.declare_params(layout);
  std::vector<double> p{1, 2, 3, 4, 0.5, -0.5, 1, 0, 0.1, 0, 0, 0, 0, 0.2, 0, -0.1};
  std::vector<double> x{0.5, -1};
  LstmBuffers<double> buf;
  lstm.forward(p.data(), x.data(), 2, 1, buf);
  auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  double h = 0, c = 0;
  for (double xt : x) {
    const double i = sig(1 * xt + 0.5 * h + 0.1), f = sig(2 * xt - 0.5 * h + 0.2);
    const double g = std::tanh(3 * xt + 1 * h), o = sig(4 * xt + 0 * h - 0.1);
    c = f * c + i * g;
    h = o * std::tanh(c);
  }
  CHECK(buf.h[1] == Approx(h).epsilon(1e-12));
  CHECK(buf.cell[1] == Approx(c).epsilon(1e-12));
}
