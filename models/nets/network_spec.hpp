// NetworkSpec: what a scenario sets to choose a network. Plain data; build_network()
// (nets/build_network.hpp) validates it and throws std::invalid_argument with the field
// name and the fix.
//
// Scenario keys the lead's YAML schema maps onto these fields (suggested spelling):
//   model.preset        convnet-small | cnn | mnist-net | mlp | logreg | lstm-lm   (or omit and
//                       give model.layers for a custom CNN/MLP)
//   model.layers        list of {kind: conv2d|max_pool2d|relu|dropout|dropout2d|flatten|linear,
//                       out, kernel, stride, padding, p, name}
//   model.input         [C, H, W] of one image (default [1, 28, 28])
//   model.num_classes   default 10; must equal the last linear layer's `out`
//   model.hidden        mlp hidden widths (default [256])
//   model.dropout       overrides the preset's dropout probabilities (mnist-net: 0.25, 0.5;
//                       cnn: 0.5, 0.75)
//   model.vocab_size    lstm-lm: normally taken from the corpus
//   model.embed_dim, model.hidden_size, model.num_layers   lstm-lm sizes
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/layers/layer.hpp"

namespace pssim::models {

/// One layer of a custom sequential CNN / MLP (mirrors the nn.Module it stands for).
struct LayerSpec {
  std::string kind;          ///< conv2d | max_pool2d | relu | dropout | dropout2d | flatten | linear
  std::int64_t out = 0;      ///< conv2d: out_channels; linear: out_features
  std::int64_t kernel = 0;   ///< conv2d, max_pool2d: kernel size (square)
  std::int64_t stride = 0;   ///< conv2d: default 1; max_pool2d: default = kernel
  std::int64_t padding = 0;  ///< conv2d: zero padding
  double p = 0.5;            ///< dropout, dropout2d probability
  std::string name;          ///< tensor prefix; default conv<k> / fc<k> by position
};

struct NetworkSpec {
  std::string preset;               ///< a preset name, or empty with `layers` set
  std::vector<LayerSpec> layers;    ///< custom CNN / MLP (used when preset is empty)
  Shape3 input{1, 28, 28};          ///< one image [C, H, W]
  std::int64_t num_classes = 10;
  std::vector<std::int64_t> hidden{256};  ///< mlp: hidden layer widths
  std::optional<double> dropout;    ///< overrides every dropout probability of a preset
  // lstm-lm
  std::int64_t vocab_size = 0;      ///< V: must be set (normally from the corpus)
  std::int64_t embed_dim = 64;      ///< E
  std::int64_t hidden_size = 256;   ///< H
  std::int64_t num_layers = 1;
};

/// The preset names with a one-line description each (for --help and docs).
struct PresetInfo {
  std::string name, description;
};
std::vector<PresetInfo> preset_list();

/// The layer list of a CNN / MLP preset ("lstm-lm" is not sequential: throws).
std::vector<LayerSpec> preset_layers(const NetworkSpec& spec);

}  // namespace pssim::models
