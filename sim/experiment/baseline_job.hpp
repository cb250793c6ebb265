// `pssim train` and `pssim grad`: the single-process baseline of a scenario's model, data
// and optimizer, and the export of one batch's gradient, as files.
//
// train writes into its directory: scenario.yaml (resolved), curve.csv (one row per
// evaluation: step, epoch, samples, train_loss, test_loss, test_accuracy, perplexity,
// wall_s) and, last, summary.json (final_test_accuracy, best_test_accuracy,
// final_train_loss, final_perplexity and unigram_perplexity for language models, steps,
// parameters, flops_per_sample, wall_time_s, seed).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "models/io/export.hpp"
#include "models/train/train_loop.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace pssim::experiment {

/// The math of a scenario with a real model, for one process: its model, data, batch size,
/// optimizer, clipping and schedule, no stop condition (pssim grad needs none). Throws
/// std::invalid_argument for a synthetic or torch model.
models::TrainConfig math_config(const scenario::Scenario& s);

/// math_config with the stop of `pssim train`: epochs from training.stop.epochs (default
/// 1) and max_steps from training.stop.updates; one of them must be given (a single
/// process has no simulated time).
models::TrainConfig baseline_config(const scenario::Scenario& s);

/// The files train writes (removed first, with killed writers' temporaries, summary.json
/// first).
const std::vector<std::string>& baseline_output_files();

/// Trains and writes the files above, holding the directory's lock (DirectoryLock).
/// `on_point` sees each evaluation point as it comes.
models::TrainResult train_to_directory(const scenario::LoadedScenario& loaded, const std::filesystem::path& dir,
                                       const std::function<void(const models::TrainPoint&)>& on_point = {});

/// Writes the gradient case of the scenario's first training batch into `dir` (see
/// models/train/grad_case.hpp), at fresh parameters or those of `params_dir` (.npy files).
models::GradientCase export_gradient(const scenario::LoadedScenario& loaded, const std::filesystem::path& dir,
                                     const std::string& params_dir);

}  // namespace pssim::experiment
