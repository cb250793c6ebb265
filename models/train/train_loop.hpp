// The single-process training baseline: one worker, no network, plain mini-batch training
// with periodic evaluation — the reference curve every distributed run is compared with
// (`pssim train SCENARIO` is a thin wrapper over train_single_process).
//
// Randomness, all derived from `seed`: parameters init_params(derive_seed(seed, "init")),
// batch order derive_seed(seed, "sampler"), dropout of step t derive_seed(seed,
// "dropout", t). Same config = bit-identical curve.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/data/training_data.hpp"
#include "models/nets/network_spec.hpp"
#include "models/optim/lr_schedule.hpp"
#include "models/optim/optimizer.hpp"

namespace pssim::models {

/// Scenario keys (suggested): model.*, data.*, training.optimizer.*, training.epochs,
/// training.max_steps, training.eval.every_steps, seed.
struct TrainConfig {
  NetworkSpec model;
  DataSpec data;
  OptimizerSpec optimizer;
  std::int64_t epochs = 1;       ///< passes over the training items
  std::int64_t max_steps = 0;    ///< > 0: stop after this many steps even mid-epoch
  std::int64_t eval_every = 0;   ///< evaluate every this many steps (0: start and end only)
  std::uint64_t seed = 1;
  std::optional<double> clip_norm;  ///< clip each gradient to this global L2 norm
  LrScheduleSpec schedule;          ///< step t = 0, 1, ...; plateau: on each evaluation's test loss
};

struct TrainPoint {
  std::int64_t step = 0;         ///< optimizer steps done
  double epoch = 0;              ///< steps as a fraction of epochs
  std::int64_t samples = 0;      ///< training samples seen
  double train_loss = 0;         ///< mean training loss since the previous point (NaN at 0)
  EvalResult eval;               ///< on the test split / held-out tokens
  double wall_seconds = 0;       ///< since training started (excluding data loading)
};

struct TrainResult {
  std::string network;           ///< Network::describe()
  std::int64_t num_params = 0;
  double flops_per_sample = 0;
  std::vector<TrainPoint> curve; ///< step 0, every eval_every steps, and the last step
  std::vector<float> params;     ///< final parameters
};

/// Trains on already loaded data (see TrainingData::load); calls `on_point` for every
/// evaluation point as it is produced (for progress output), and returns the curve.
TrainResult train_single_process(const TrainConfig& config, const TrainingData& data,
                                 const std::function<void(const TrainPoint&)>& on_point = {});

/// Loads config.data (seeded by config.seed) and trains.
TrainResult train_single_process(const TrainConfig& config,
                                 const std::function<void(const TrainPoint&)>& on_point = {});

}  // namespace pssim::models
