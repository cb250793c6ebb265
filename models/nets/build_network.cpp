#include "models/core/instantiated_real.hpp"
#include "models/nets/build_network.hpp"

#include <stdexcept>

#include "models/nets/lstm_lm.hpp"
#include "models/nets/sequential_net.hpp"

namespace pssim::models {

template <typename Real>
std::unique_ptr<NetworkT<Real>> build_network(const NetworkSpec& spec) {
  if (spec.preset == "lstm-lm") {
    return std::make_unique<LstmLanguageModel<Real>>(spec.vocab_size, spec.embed_dim,
                                                     spec.hidden_size, spec.num_layers,
                                                     spec.dropout.value_or(0.0));
  }
  if (spec.preset.empty()) {
    return std::make_unique<SequentialNet<Real>>(spec.layers, spec.input, spec.num_classes,
                                                 "custom");
  }
  if (!spec.layers.empty()) {
    throw std::invalid_argument("model: give either a preset or a layer list, not both");
  }
  return std::make_unique<SequentialNet<Real>>(preset_layers(spec), spec.input,
                                               spec.num_classes, spec.preset);
}

template std::unique_ptr<NetworkT<InstantiatedReal>> build_network<InstantiatedReal>(const NetworkSpec&);

}  // namespace pssim::models
