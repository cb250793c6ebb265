// export_config_case: the body of `pssim grad SCENARIO`: builds the scenario's network and
// data, takes parameters (fresh from the seed, or loaded from .npy files), and exports the
// gradient of the first training batch (items 0 .. batch_size-1) with
// export_gradient_case (see io/export.hpp for the files written).
#pragma once

#include <string>

#include "models/io/export.hpp"
#include "models/train/train_loop.hpp"

namespace pssim::models {

/// `params_dir` empty: parameters init_params(derive_seed(seed, "init")), as the training
/// baseline starts; else load_params_npy(params_dir). Dropout seed derive_seed(seed,
/// "dropout", 1) (the baseline's first step). Throws what the loaders throw.
GradientCase export_config_case(const TrainConfig& config, const std::string& out_dir,
                                const std::string& params_dir = "");

}  // namespace pssim::models
