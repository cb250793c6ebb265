#include "models/train/grad_case.hpp"

#include <numeric>

#include "models/core/seed.hpp"
#include "models/nets/build_network.hpp"

namespace pssim::models {

GradientCase export_config_case(const TrainConfig& config, const std::string& out_dir,
                                const std::string& params_dir) {
  const auto data = TrainingData::load(config.data, config.seed);
  NetworkSpec spec = config.model;
  data.adapt(spec);
  const auto net = build_network<float>(spec);
  const auto params = params_dir.empty() ? net->init_params(derive_seed(config.seed, "init"))
                                         : load_params_npy(params_dir, net->layout());
  const auto n = std::min(config.data.batch_size, data.num_train_items());
  std::vector<std::int64_t> items(static_cast<std::size_t>(n));
  std::iota(items.begin(), items.end(), 0);
  Batch batch;
  data.fill_batch(items, batch);
  CaseOptions options;
  options.clip_norm = config.clip_norm;
  // PyTorch's nn.LSTM draws its own dropout masks, which cannot be handed to it: an LSTM
  // with dropout is checked in evaluation mode (its training-mode gradient is checked by
  // finite differences in tests/models).
  std::unique_ptr<Network> twin;
  if (spec.preset == "lstm-lm" && spec.dropout.value_or(0.0) > 0.0) {
    NetworkSpec plain = spec;
    plain.dropout = 0.0;
    twin = build_network<float>(plain);
    options.eval_twin = twin.get();
  }
  return export_gradient_case(out_dir, *net, params, batch.view(), derive_seed(config.seed, "dropout", 1), options);
}

}  // namespace pssim::models
