// Every layer's backward against central finite differences, in double precision.
// The scalar test function is L = sum(y * r) for a fixed random r, so dy = r.
#include <memory>
#include <numeric>

#include <catch2/catch.hpp>

#include "models/core/eigen_types.hpp"
#include "models/layers/conv2d.hpp"
#include "models/layers/elementwise.hpp"
#include "models/layers/embedding.hpp"
#include "models/layers/linear.hpp"
#include "models/layers/log_softmax_nll.hpp"
#include "models/layers/lstm.hpp"
#include "models/layers/max_pool2d.hpp"
#include "tests/models/gradcheck.hpp"

using namespace pssim::models;
using pssim::models::testing::max_fd_error;
using pssim::models::testing::random_vector;

namespace {

constexpr double kTol = 1e-6;

struct LayerCheck {
  double param_error = 0, input_error = 0;
};

LayerCheck check_layer(Layer<double>& layer, std::int64_t batch, std::uint64_t seed) {
  ParamLayout layout;
  layer.declare_params(layout);
  auto params = random_vector(layout.size(), seed, 0.5);
  auto x = random_vector(std::size_t(batch * layer.in_shape().numel()), seed + 1);
  const auto r = random_vector(std::size_t(batch * layer.out_shape().numel()), seed + 2);
  std::vector<double> y(r.size()), scratch(layer.scratch_size(batch));
  std::vector<std::int32_t> index_scratch(layer.index_scratch_size(batch));
  LayerIo<double> io;
  io.batch = batch;
  io.params = params.data();
  io.x = x.data();
  io.y = y.data();
  io.scratch = scratch.data();
  io.index_scratch = index_scratch.data();
  io.seed = 99;
  auto loss = [&] {
    layer.forward(io);
    return std::inner_product(y.begin(), y.end(), r.begin(), 0.0);
  };
  loss();
  std::vector<double> grads(layout.size(), -7.0), dx(x.size(), -7.0);
  io.grads = grads.data();
  io.dy = r.data();
  io.dx = dx.data();
  layer.backward(io);
  LayerCheck out;
  if (!params.empty()) out.param_error = max_fd_error(loss, params, grads);
  out.input_error = max_fd_error(loss, x, dx);
  return out;
}

}  // namespace

TEST_CASE("linear: gradients match finite differences", "[layers][gradcheck]") {
  Linear<double> layer("fc", Shape3{2, 2, 3}, 5);  // reads the [2,2,3] input flat: in 12
  const auto e = check_layer(layer, 4, 1);
  CHECK(e.param_error < kTol);
  CHECK(e.input_error < kTol);
}

TEST_CASE("conv2d: gradients match finite differences", "[layers][gradcheck]") {
  SECTION("stride 1, no padding (the presets' case)") {
    Conv2d<double> layer("conv", Shape3{2, 6, 5}, 3, 3);
    const auto e = check_layer(layer, 2, 2);
    CHECK(e.param_error < kTol);
    CHECK(e.input_error < kTol);
  }
  SECTION("stride 2, padding 1") {
    Conv2d<double> layer("conv", Shape3{3, 7, 6}, 4, 3, 2, 1);
    CHECK(layer.out_shape() == Shape3{4, 4, 3});
    const auto e = check_layer(layer, 2, 3);
    CHECK(e.param_error < kTol);
    CHECK(e.input_error < kTol);
  }
  SECTION("1x1 kernel") {
    Conv2d<double> layer("conv", Shape3{3, 4, 4}, 2, 1);
    const auto e = check_layer(layer, 3, 4);
    CHECK(e.param_error < kTol);
    CHECK(e.input_error < kTol);
  }
}

TEST_CASE("max_pool2d: gradients match finite differences", "[layers][gradcheck]") {
  SECTION("kernel 2, default stride, odd input (floor mode drops the last row/column)") {
    MaxPool2d<double> layer(Shape3{2, 5, 7}, 2);
    CHECK(layer.out_shape() == Shape3{2, 2, 3});
    CHECK(check_layer(layer, 2, 5).input_error < kTol);
  }
  SECTION("kernel 3, stride 1 (overlapping windows)") {
    MaxPool2d<double> layer(Shape3{1, 5, 5}, 3, 1);
    CHECK(check_layer(layer, 2, 6).input_error < kTol);
  }
}

TEST_CASE("relu, dropout, dropout2d, flatten: gradients match finite differences", "[layers][gradcheck]") {
  Relu<double> relu(Shape3{3, 2, 2});
  CHECK(check_layer(relu, 3, 7).input_error < kTol);
  Dropout<double> dropout(Shape3{20, 1, 1}, 0.5, 0);
  CHECK(check_layer(dropout, 3, 8).input_error < kTol);
  Dropout<double> dropout2d(Shape3{6, 3, 2}, 0.5, 1, true);
  CHECK(check_layer(dropout2d, 3, 8).input_error < kTol);
  Flatten<double> flatten(Shape3{2, 3, 2});
  CHECK(flatten.out_shape() == Shape3{12, 1, 1});
  CHECK(check_layer(flatten, 2, 9).input_error < kTol);
}

TEST_CASE("log_softmax_nll: gradient matches finite differences", "[layers][gradcheck]") {
  const std::int64_t rows = 5, classes = 7;
  auto z = random_vector(rows * classes, 10, 2.0);
  const std::vector<std::int32_t> t{0, 6, 3, 3, 1};
  auto loss = [&] {
    std::vector<double> copy = z;
    return log_softmax_nll(copy.data(), t.data(), rows, classes, 0.0).loss_sum;
  };
  std::vector<double> grad = z;
  log_softmax_nll(grad.data(), t.data(), rows, classes, 1.0);
  CHECK(max_fd_error(loss, z, grad) < kTol);
}

TEST_CASE("embedding: gradient matches finite differences", "[layers][gradcheck]") {
  const std::int64_t vocab = 6, dim = 4, rows = 7;
  auto w = random_vector(vocab * dim, 11);
  const std::vector<std::int32_t> ids{1, 5, 1, 0, 3, 5, 1};  // repeats accumulate; 2, 4 unused
  const auto r = random_vector(rows * dim, 12);
  std::vector<double> y(rows * dim);
  auto loss = [&] {
    embedding_forward(w.data(), vocab, dim, ids.data(), rows, y.data());
    return std::inner_product(y.begin(), y.end(), r.begin(), 0.0);
  };
  std::vector<double> dw(w.size(), -1.0);
  embedding_backward(r.data(), ids.data(), rows, vocab, dim, dw.data());
  CHECK(max_fd_error(loss, w, dw) < kTol);
  CHECK(dw[2 * dim] == 0.0);  // unused row
}

TEST_CASE("lstm: BPTT gradients match finite differences", "[layers][gradcheck][lstm]") {
  const std::int64_t in = 3, hidden = 4, steps = 5, batch = 2;
  for (std::int64_t layer_index : {0, 1}) {
    LstmLayer<double> lstm("lstm", layer_index, in, hidden);
    ParamLayout layout;
    lstm.declare_params(layout);
    REQUIRE(layout.tensors()[0].name == "lstm.weight_ih_l" + std::to_string(layer_index));
    auto params = random_vector(layout.size(), 13, 0.6);
    auto x = random_vector(steps * batch * in, 14);
    const auto r = random_vector(steps * batch * hidden, 15);
    LstmBuffers<double> buf;
    auto loss = [&] {
      lstm.forward(params.data(), x.data(), steps, batch, buf);
      return std::inner_product(r.begin(), r.end(), buf.h.begin(), 0.0);
    };
    loss();
    std::vector<double> grads(layout.size()), dx(x.size());
    lstm.backward(params.data(), x.data(), r.data(), steps, batch, buf, grads.data(), dx.data());
    CHECK(max_fd_error(loss, params, grads) < kTol);
    CHECK(max_fd_error(loss, x, dx) < kTol);
  }
}
