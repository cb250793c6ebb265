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
  return export_gradient_case(out_dir, *net, params, batch.view(),
                              derive_seed(config.seed, "dropout", 1));
}

}  // namespace pssim::models
