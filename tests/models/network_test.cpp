// Layouts as PyTorch's state_dict, parameter counts, FLOP counts, float-vs-double
// agreement, determinism across threads and buffer alignments, and input validation.
#include <cmath>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "models/data/synthetic.hpp"
#include "models/nets/build_network.hpp"
#include "models/nets/lstm_lm.hpp"
#include "models/nets/sequential_net.hpp"

using namespace pssim::models;

namespace {
std::unique_ptr<Network> preset(const char* name) {
  NetworkSpec spec;
  spec.preset = name;
  return build_network<float>(spec);
}
}  // namespace

TEST_CASE("presets: tensor names, shapes and order as PyTorch's state_dict", "[network]") {
  CHECK(preset("mnist-net")->layout().describe() ==
        "conv1.weight [32,1,3,3]\nconv1.bias [32]\nconv2.weight [64,32,3,3]\nconv2.bias [64]\n"
        "fc1.weight [128,9216]\nfc1.bias [128]\nfc2.weight [10,128]\nfc2.bias [10]\n");
  CHECK(preset("convnet-small")->layout().describe() ==
        "conv1.weight [3,1,3,3]\nconv1.bias [3]\nfc1.weight [10,192]\nfc1.bias [10]\n");
  CHECK(preset("cnn")->layout().describe() ==
        "conv1.weight [32,1,3,3]\nconv1.bias [32]\nconv2.weight [64,32,3,3]\nconv2.bias [64]\n"
        "fc1.weight [128,9216]\nfc1.bias [128]\nfc2.weight [20,128]\nfc2.bias [20]\nfc3.weight [10,20]\n"
        "fc3.bias [10]\n");
  CHECK(preset("mlp")->layout().describe() ==
        "fc1.weight [256,784]\nfc1.bias [256]\nfc2.weight [10,256]\nfc2.bias [10]\n");
  NetworkSpec lm;
  lm.preset = "lstm-lm";
  lm.vocab_size = 100, lm.embed_dim = 8, lm.hidden_size = 16, lm.num_layers = 2;
  CHECK(build_network<float>(lm)->layout().describe() ==
        "embedding.weight [100,8]\n"
        "lstm.weight_ih_l0 [64,8]\nlstm.weight_hh_l0 [64,16]\nlstm.bias_ih_l0 [64]\nlstm.bias_hh_l0 [64]\n"
        "lstm.weight_ih_l1 [64,16]\nlstm.weight_hh_l1 [64,16]\nlstm.bias_ih_l1 [64]\nlstm.bias_hh_l1 [64]\n"
        "decoder.weight [100,16]\ndecoder.bias [100]\n");
}

TEST_CASE("presets: the layers of the parameter-server examples", "[network]") {
  const auto kinds = [](const char* name) {
    std::vector<std::string> k;
    const auto net = preset(name);
    for (const auto& l : dynamic_cast<const SequentialNet<float>&>(*net).layers()) k.push_back(l->kind());
    return k;
  };
  // x = relu(max_pool2d(conv1(x), 3)); x = fc(x.view(-1, 192))
  CHECK(kinds("convnet-small") == std::vector<std::string>{"conv2d", "max_pool2d", "relu", "flatten", "linear"});
  CHECK(kinds("cnn") == std::vector<std::string>{"conv2d", "dropout2d", "relu", "conv2d", "dropout2d", "max_pool2d",
                                                 "flatten", "linear", "relu", "linear", "relu", "linear"});
  CHECK(preset("cnn")->manifest_json().find("\"kind\": \"dropout2d\", \"name\": \"\", \"in\": [32, 26, 26], "
                                            "\"out\": [32, 26, 26], \"p\": 0.5}") != std::string::npos);
}

TEST_CASE("presets: parameter counts", "[network]") {
  CHECK(preset("convnet-small")->num_params() == 1960);
  CHECK(preset("mnist-net")->num_params() == 1199882);
  CHECK(preset("cnn")->num_params() == 1201382);
  CHECK(preset("mlp")->num_params() == 203530);
  CHECK(preset("logreg")->num_params() == 7850);
  const auto mnist = preset("mnist-net");
  const auto& t = mnist->layout().find("fc1.weight");
  CHECK(t.offset == 320 + 18496);
  CHECK(t.size == 128u * 9216u);
}

TEST_CASE("flops_per_sample: hand-counted multiply-adds x 2", "[network][flops]") {
  // mnist-net per sample, multiply-adds: conv1 32*9*676 = 194,688 (forward, dW; no dx),
  // conv2 64*288*576 = 10,616,832 (forward, dW, dx), fc1 9216*128 = 1,179,648 (x3),
  // fc2 1280 (x3).
  const double mnist = 2.0 * (194688.0 * 2 + 3 * (10616832.0 + 1179648.0 + 1280.0));
  CHECK(preset("mnist-net")->flops_per_sample() == mnist);  // ~71.96 MFLOP, 4.6 GFLOP at B=64
  // mlp: 784*256 (forward, dW), 256*10 (x3).
  CHECK(preset("mlp")->flops_per_sample() == 2.0 * (2 * 200704.0 + 3 * 2560.0));
  CHECK(preset("logreg")->flops_per_sample() == 2.0 * 2 * 7840.0);
  // convnet-small: conv1 3*9*676 (x2), fc1 1920 (x3).
  CHECK(preset("convnet-small")->flops_per_sample() == 2.0 * (2 * 18252.0 + 3 * 1920.0));
  // cnn: as mnist-net, with fc2 128*20 and fc3 20*10 (x3 each).
  CHECK(preset("cnn")->flops_per_sample() == 2.0 * (194688.0 * 2 + 3 * (10616832.0 + 1179648.0 + 2560.0 + 200.0)));
  // lstm-lm, per step: LSTM 4H(E+H) forward, as many for weight grads, 4H(E+H) for dx and
  // dh; decoder V*H x 3. Per sequence: times seq_len.
  LstmLanguageModel<float> lm(50, 8, 16, 1);
  const double step = 3 * 64.0 * 24 + 3 * 50.0 * 16;
  CHECK(lm.flops_per_sample(35) == 2.0 * step * 35);
  CHECK_THROWS_WITH(lm.flops_per_sample(0), Catch::Contains("sequence length"));
}

TEST_CASE("layer_costs: per layer, the parameters it owns and its FLOPs", "[network][flops]") {
  // mlp: fc1 784*256 (forward, dW: the first layer computes no dx), fc2 256*10 (x3).
  const auto mlp = preset("mlp");
  const auto layers = mlp->layer_costs();
  REQUIRE(layers.size() == 2);
  CHECK(layers[0].name == "fc1");
  CHECK(layers[0].begin == 0);
  CHECK(layers[0].end == 784 * 256 + 256);
  CHECK(layers[0].forward_flops == 2.0 * 200704);
  CHECK(layers[0].backward_flops == 2.0 * 200704);
  CHECK(layers[1].begin == layers[0].end);
  CHECK(layers[1].end == static_cast<std::int64_t>(mlp->num_params()));
  CHECK(layers[1].forward_flops == 2.0 * 2560);
  CHECK(layers[1].backward_flops == 2.0 * 2 * 2560);
  // Every preset: the layers tile the parameters in order and their FLOPs sum to the total.
  for (const char* name : {"mnist-net", "cnn", "convnet-small", "logreg"}) {
    const auto net = preset(name);
    double flops = 0;
    std::int64_t next = 0;
    for (const auto& l : net->layer_costs()) {
      CHECK(l.begin == next);
      next = l.end;
      flops += l.forward_flops + l.backward_flops;
    }
    CHECK(next == static_cast<std::int64_t>(net->num_params()));
    CHECK(flops == Approx(net->flops_per_sample()).epsilon(1e-15));
  }
  // lstm-lm: embedding (no FLOPs), two LSTM layers of different input sizes, decoder.
  LstmLanguageModel<float> lm(50, 8, 16, 2);
  const auto costs = lm.layer_costs(35);
  REQUIRE(costs.size() == 4);
  CHECK(costs[0].end == 50 * 8);
  CHECK(costs[1].end - costs[1].begin == 4 * 16 * (8 + 16) + 2 * 4 * 16);  // W_ih, W_hh, b_ih, b_hh
  CHECK(costs[2].end - costs[2].begin == 4 * 16 * (16 + 16) + 2 * 4 * 16);
  CHECK(costs[3].begin == costs[2].end);
  CHECK(costs[3].end == static_cast<std::int64_t>(lm.num_params()));
  double total = 0;
  for (const auto& l : costs) total += l.forward_flops + l.backward_flops;
  CHECK(total == Approx(lm.flops_per_sample(35)).epsilon(1e-15));
}

TEST_CASE("float network agrees with the double-precision reference", "[network]") {
  const auto data = make_synthetic_images(8, Shape3{1, 28, 28}, 10, 0.5, 11);
  const BatchView batch{8, data.images, data.labels, {}};
  for (const char* name : {"convnet-small", "cnn", "mnist-net", "mlp"}) {
    INFO(name);
    NetworkSpec spec;
    spec.preset = name;
    const auto f = build_network<float>(spec);
    const auto d = build_network<double>(spec);
    const auto pf = f->init_params(3);
    const auto pd = d->init_params(3);
    for (std::size_t i = 0; i < pf.size(); i += 997) REQUIRE(double(pf[i]) == Approx(pd[i]).epsilon(1e-7));
    std::vector<float> gf(pf.size());
    std::vector<double> gd(pd.size());
    auto wf = f->make_workspace();
    auto wd = d->make_workspace();
    const double lf = f->loss_and_gradient(pf, batch, gf, *wf, 5);
    const double ld = d->loss_and_gradient(pd, batch, gd, *wd, 5);
    CHECK(lf == Approx(ld).epsilon(1e-5));
    double num = 0, den = 0;  // relative L2 error of the whole gradient
    for (std::size_t i = 0; i < gf.size(); ++i) num += std::pow(gf[i] - gd[i], 2), den += gd[i] * gd[i];
    CHECK(std::sqrt(num / den) < 1e-4);
  }
  NetworkSpec spec;
  spec.preset = "lstm-lm";
  spec.vocab_size = 30, spec.embed_dim = 16, spec.hidden_size = 32;
  const auto f = build_network<float>(spec);
  const auto d = build_network<double>(spec);
  const auto tokens = make_synthetic_tokens(4 * 21, 30, 3, 1);
  const BatchView lm_batch{4, {}, {}, tokens};
  const auto pf = f->init_params(3);
  const auto pd = d->init_params(3);
  std::vector<float> gf(pf.size());
  std::vector<double> gd(pd.size());
  auto wf = f->make_workspace();
  auto wd = d->make_workspace();
  CHECK(f->loss_and_gradient(pf, lm_batch, gf, *wf, 0) ==
        Approx(d->loss_and_gradient(pd, lm_batch, gd, *wd, 0)).epsilon(1e-5));
  double num = 0, den = 0;
  for (std::size_t i = 0; i < gf.size(); ++i) num += std::pow(gf[i] - gd[i], 2), den += gd[i] * gd[i];
  CHECK(std::sqrt(num / den) < 1e-4);
}

TEST_CASE("gradients are bit-identical across threads, workspaces and buffer alignment",
          "[network][determinism]") {
  const auto data = make_synthetic_images(16, Shape3{1, 28, 28}, 10, 0.5, 12);
  const BatchView batch{16, data.images, data.labels, {}};
  for (const char* name : {"mnist-net", "lstm-lm"}) {
    INFO(name);
    NetworkSpec spec;
    spec.preset = name;
    spec.vocab_size = 40, spec.embed_dim = 12, spec.hidden_size = 20;
    const auto net = build_network<float>(spec);
    const auto tokens = make_synthetic_tokens(16 * 11, 40, 3, 2);
    const BatchView b = std::string(name) == "lstm-lm" ? BatchView{16, {}, {}, tokens} : batch;
    const auto params = net->init_params(1);
    std::vector<float> reference(params.size());
    auto ws = net->make_workspace();
    const float loss = net->loss_and_gradient(params, b, reference, *ws, 42);
    // Parameters copied to a buffer offset by one float: a different alignment.
    std::vector<float> shifted{0.0f};
    shifted.insert(shifted.end(), params.begin(), params.end());
    std::vector<std::vector<float>> grads(4, std::vector<float>(params.size() + 1));
    std::vector<float> losses(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        auto own = net->make_workspace();
        std::span<const float> p = t % 2 ? std::span<const float>(shifted).subspan(1)
                                         : std::span<const float>(params);
        std::span<float> g = t % 2 ? std::span<float>(grads[t]).subspan(1)
                                   : std::span<float>(grads[t]).first(params.size());
        for (int rep = 0; rep < 3; ++rep) losses[t] = net->loss_and_gradient(p, b, g, *own, 42);
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) {
      CHECK(losses[t] == loss);
      const float* g = grads[t].data() + (t % 2);
      CHECK(std::equal(reference.begin(), reference.end(), g));
    }
    // A different dropout seed changes mnist-net's gradient (dropout is really applied).
    if (std::string(name) == "mnist-net") {
      std::vector<float> other(params.size());
      net->loss_and_gradient(params, b, other, *ws, 43);
      CHECK_FALSE(std::equal(reference.begin(), reference.end(), other.begin()));
    }
  }
}

TEST_CASE("init_params: seeded, PyTorch-like bounds", "[network]") {
  const auto net = preset("mnist-net");
  const auto a = net->init_params(1), b = net->init_params(1), c = net->init_params(2);
  CHECK(a == b);
  CHECK(a != c);
  const auto& w = net->layout().find("fc1.weight");
  const double bound = 1.0 / std::sqrt(9216.0);
  double lo = 1, hi = -1;
  for (std::size_t i = w.offset; i < w.offset + w.size; ++i) lo = std::min(lo, double(a[i])), hi = std::max(hi, double(a[i]));
  CHECK(lo >= -bound);
  CHECK(hi <= bound);
  CHECK(hi > 0.99 * bound);  // 1.2M uniform draws reach the edges
  CHECK(lo < -0.99 * bound);
}

TEST_CASE("bad inputs are errors that say what and how to fix", "[network][errors]") {
  const auto net = preset("logreg");
  auto ws = net->make_workspace();
  auto params = net->init_params(1);
  std::vector<float> grad(params.size());
  std::vector<float> images(2 * 784, 0.1f);
  std::vector<std::int32_t> labels{1, 10};
  CHECK_THROWS_WITH(net->loss_and_gradient(params, BatchView{2, images, labels, {}}, grad, *ws, 0),
                    Catch::Contains("target 10 of row 1"));
  labels = {1, 2};
  std::vector<float> short_params(10);
  CHECK_THROWS_WITH(net->loss_and_gradient(short_params, BatchView{2, images, labels, {}}, grad, *ws, 0),
                    Catch::Contains("init_params()"));
  CHECK_THROWS_WITH(net->loss_and_gradient(params, BatchView{3, images, labels, {}}, grad, *ws, 0),
                    Catch::Contains("model.input"));
  const auto other = preset("mlp");
  auto other_ws = other->make_workspace();
  CHECK_THROWS_WITH(net->loss_and_gradient(params, BatchView{2, images, labels, {}}, grad, *other_ws, 0),
                    Catch::Contains("make_workspace"));
  NetworkSpec spec;
  spec.preset = "resnet";
  CHECK_THROWS_WITH(build_network<float>(spec), Catch::Contains("known presets: convnet-small"));
  spec.preset = "lstm-lm";
  CHECK_THROWS_WITH(build_network<float>(spec), Catch::Contains("vocab_size"));
  spec.preset = "";
  spec.layers = {LayerSpec{"conv2d", 4, 29, 1, 0, 0, ""}};
  CHECK_THROWS_WITH(build_network<float>(spec), Catch::Contains("does not fit"));
  spec.layers = {LayerSpec{"linear", 5, 0, 0, 0, 0, ""}};
  CHECK_THROWS_WITH(build_network<float>(spec), Catch::Contains("10 outputs"));
}
