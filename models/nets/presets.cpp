#include <stdexcept>

#include <fmt/format.h>

#include "models/nets/network_spec.hpp"

namespace pssim::models {

std::vector<PresetInfo> preset_list() {
  return {
      {"convnet-small",
       "conv 1->3 k3, max-pool 3, ReLU, linear 192->10 (1,960 params; the ConvNet of the Ray / lithops "
       "parameter-server example)"},
      {"cnn",
       "conv 1->32 k3, dropout2d 0.5, ReLU, conv 32->64 k3, dropout2d 0.75, max-pool 2, linear 9216->128, ReLU, "
       "linear 128->20, ReLU, linear 20->10 (1,201,382 params; the parameter-server tutorials' second MNIST "
       "network)"},
      {"mnist-net",
       "conv 1->32 k3, ReLU, conv 32->64 k3, ReLU, max-pool 2, dropout 0.25, linear "
       "9216->128, ReLU, dropout 0.5, linear 128->10 (1,199,882 params; PyTorch's MNIST "
       "example)"},
      {"mlp", "linear 784->256, ReLU, linear 256->10 (203,530 params)"},
      {"logreg", "linear 784->10, multinomial logistic regression (7,850 params)"},
      {"lstm-lm",
       "embedding V x E, LSTM (hidden H, L layers), linear decoder H->V; character- or "
       "word-level language model"},
  };
}

std::vector<LayerSpec> preset_layers(const NetworkSpec& spec) {
  const auto& p = spec.preset;
  auto drop = [&](double def) { return spec.dropout.value_or(def); };
  auto conv = [](std::int64_t out, std::int64_t k) {
    LayerSpec l;
    l.kind = "conv2d", l.out = out, l.kernel = k;
    return l;
  };
  auto simple = [](const char* kind) {
    LayerSpec l;
    l.kind = kind;
    return l;
  };
  auto pool = [](std::int64_t k) {
    LayerSpec l;
    l.kind = "max_pool2d", l.kernel = k;
    return l;
  };
  auto dropout = [](double prob, const char* kind = "dropout") {
    LayerSpec l;
    l.kind = kind, l.p = prob;
    return l;
  };
  auto linear = [](std::int64_t out) {
    LayerSpec l;
    l.kind = "linear", l.out = out;
    return l;
  };
  const auto nc = spec.num_classes;
  if (p == "convnet-small") {
    // x = relu(max_pool2d(conv1(x), 3)); x = fc(x.view(-1, 192)); log_softmax(x)
    return {conv(3, 3), pool(3), simple("relu"), simple("flatten"), linear(nc)};
  }
  if (p == "cnn") {
    // Dropout2d before the first ReLU and before the pooling, no ReLU after the second
    // convolution, two hidden linear layers: as the tutorials write it.
    return {conv(32, 3),     dropout(drop(0.5), "dropout2d"), simple("relu"), conv(64, 3),
            dropout(drop(0.75), "dropout2d"), pool(2),         simple("flatten"), linear(128),
            simple("relu"),   linear(20),                      simple("relu"),  linear(nc)};
  }
  if (p == "mnist-net") {
    return {conv(32, 3),   simple("relu"),    conv(64, 3),       simple("relu"),
            pool(2),       dropout(drop(0.25)), simple("flatten"), linear(128),
            simple("relu"), dropout(drop(0.5)), linear(nc)};
  }
  if (p == "mlp") {
    std::vector<LayerSpec> layers{simple("flatten")};
    for (auto width : spec.hidden) {
      layers.push_back(linear(width));
      layers.push_back(simple("relu"));
      if (spec.dropout) layers.push_back(dropout(*spec.dropout));
    }
    layers.push_back(linear(nc));
    return layers;
  }
  if (p == "logreg") return {simple("flatten"), linear(nc)};
  std::string names;
  for (const auto& info : preset_list()) names += (names.empty() ? "" : ", ") + info.name;
  if (p == "lstm-lm") {
    throw std::invalid_argument(
        "preset_layers: 'lstm-lm' is not a sequential CNN/MLP; build it with build_network()");
  }
  throw std::invalid_argument(
      fmt::format("model preset '{}' is unknown; known presets: {}", p, names));
}

}  // namespace pssim::models
