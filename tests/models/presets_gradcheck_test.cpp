// Every preset's loss_and_gradient against finite differences of its own loss, in double
// precision, with dropout active (the same dropout seed gives the same masks). Large
// tensors are checked on a fixed sample of coordinates (every tensor at least 12).
#include <catch2/catch.hpp>

#include "models/core/seed.hpp"
#include "models/data/synthetic.hpp"
#include "models/nets/build_network.hpp"
#include "tests/models/gradcheck.hpp"

using namespace pssim::models;
using pssim::models::testing::max_fd_error;

namespace {

// Per tensor: all coordinates if small, else `per_tensor` spread over the tensor
// (first, last and a stride through the middle).
std::vector<std::size_t> sample_indices(const ParamLayout& layout, std::size_t per_tensor) {
  std::vector<std::size_t> idx;
  for (const auto& t : layout.tensors()) {
    if (t.size <= per_tensor) {
      for (std::size_t i = 0; i < t.size; ++i) idx.push_back(t.offset + i);
      continue;
    }
    const std::size_t stride = t.size / per_tensor;
    for (std::size_t k = 0; k < per_tensor; ++k) idx.push_back(t.offset + (k * stride + k * 7) % t.size);
    idx.push_back(t.offset + t.size - 1);
  }
  return idx;
}

double check_network(const NetworkT<double>& net, const BatchView& batch, std::size_t per_tensor) {
  auto params = net.init_params(5);
  auto ws = net.make_workspace();
  std::vector<double> grad(net.num_params()), scratch(net.num_params());
  net.loss_and_gradient(params, batch, grad, *ws, 77);
  auto loss = [&] { return double(net.loss_and_gradient(params, batch, scratch, *ws, 77)); };
  return max_fd_error(loss, params, grad, sample_indices(net.layout(), per_tensor));
}

}  // namespace

TEST_CASE("CNN / MLP presets: gradients match finite differences", "[presets][gradcheck]") {
  const auto data = make_synthetic_images(3, Shape3{1, 28, 28}, 10, 0.5, 3);
  const BatchView batch{3, data.images, data.labels, {}};
  for (const char* preset : {"convnet-small", "mlp", "logreg", "mnist-net", "cnn"}) {
    INFO(preset);
    NetworkSpec spec;
    spec.preset = preset;
    const auto net = build_network<double>(spec);
    const bool large = preset == std::string("mnist-net") || preset == std::string("cnn");
    CHECK(check_network(*net, batch, large ? 12 : 60) < 1e-6);
  }
}

TEST_CASE("custom layer list with stride, padding and pooling: gradient check", "[presets][gradcheck]") {
  NetworkSpec spec;
  spec.input = Shape3{2, 9, 8};
  spec.num_classes = 4;
  LayerSpec conv{"conv2d", 3, 3, 2, 1, 0, ""}, pool{"max_pool2d", 0, 2, 0, 0, 0, ""},
      relu{"relu", 0, 0, 0, 0, 0, ""}, drop{"dropout", 0, 0, 0, 0, 0.3, ""},
      fc{"linear", 4, 0, 0, 0, 0, "head"};
  spec.layers = {conv, relu, pool, drop, fc};
  const auto net = build_network<double>(spec);
  CHECK(net->layout().tensors().back().name == "head.bias");
  const auto data = make_synthetic_images(4, spec.input, 4, 0.5, 4);
  CHECK(check_network(*net, BatchView{4, data.images, data.labels, {}}, 1000) < 1e-6);
}

TEST_CASE("lstm-lm preset: gradients match finite differences (two layers)", "[presets][gradcheck][lstm]") {
  NetworkSpec spec;
  spec.preset = "lstm-lm";
  spec.vocab_size = 11, spec.embed_dim = 5, spec.hidden_size = 6, spec.num_layers = 2;
  const auto net = build_network<double>(spec);
  const auto tokens = make_synthetic_tokens(3 * 6, 11, 3, 9);  // B = 3 sequences, S = 5
  CHECK(check_network(*net, BatchView{3, {}, {}, tokens}, 100000) < 1e-6);
}

TEST_CASE("lstm-lm with dropout: gradients match finite differences, evaluation sees every unit",
          "[presets][gradcheck][lstm]") {
  NetworkSpec spec;
  spec.preset = "lstm-lm";
  spec.vocab_size = 11, spec.embed_dim = 5, spec.hidden_size = 6, spec.num_layers = 2;
  const auto plain = build_network<double>(spec);
  spec.dropout = 0.3;  // on the embedded inputs, between the two layers, on the output
  const auto net = build_network<double>(spec);
  const auto tokens = make_synthetic_tokens(3 * 6, 11, 3, 9);
  const BatchView batch{3, {}, {}, tokens};
  CHECK(check_network(*net, batch, 100000) < 1e-6);  // same seed, same masks

  const auto params = net->init_params(5);  // dropout adds no parameter
  REQUIRE(params == plain->init_params(5));
  auto ws = net->make_workspace(), ws_plain = plain->make_workspace();
  const auto eval = net->evaluate_batch(params, batch, *ws);
  const auto eval_plain = plain->evaluate_batch(params, batch, *ws_plain);
  CHECK(eval.loss_sum == eval_plain.loss_sum);
  std::vector<double> g(net->num_params()), g_plain(net->num_params());
  const double loss = net->loss_and_gradient(params, batch, g, *ws, 77);
  const double loss_plain = plain->loss_and_gradient(params, batch, g_plain, *ws_plain, 77);
  CHECK(loss != loss_plain);  // training drops units
  CHECK_THROWS_WITH([&] {
    spec.dropout = 1.0;
    build_network<double>(spec);
  }(), Catch::Contains("model.dropout 1 is outside [0, 1)"));
}
