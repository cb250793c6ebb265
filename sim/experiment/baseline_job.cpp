#include "sim/experiment/baseline_job.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/train/grad_case.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/output/csv_writer.hpp"
#include "sim/output/directory_lock.hpp"
#include "sim/output/json_writer.hpp"
#include "sim/output/output_directory.hpp"

namespace pssim::experiment {

models::TrainConfig math_config(const scenario::Scenario& s) {
  if (s.model.kind != scenario::ModelConfig::Kind::Network || !s.data.present)
    throw std::invalid_argument("pssim train and pssim grad need a real model and data (model.kind cnn, mlp, logreg or lstm-lm)");
  if (s.model.torch)
    throw std::invalid_argument("pssim train runs the models of pssim; a torch module's single-process reference is "
                                "a plain PyTorch training loop");
  models::TrainConfig c;
  c.model = s.model.network;
  c.data = s.data.spec;
  c.optimizer = s.training.optimizer;
  c.seed = s.seed;
  c.eval_every = s.training.eval_every_steps;
  c.clip_norm = s.training.clip_norm;
  c.schedule = s.training.lr.schedule;
  return c;
}

models::TrainConfig baseline_config(const scenario::Scenario& s) {
  models::TrainConfig c = math_config(s);
  const auto& stop = s.training.stop;
  if (!stop.epochs && !stop.updates)
    throw std::invalid_argument("pssim train counts steps, not simulated time: set training.stop.epochs or "
                                "training.stop.updates");
  c.epochs = stop.epochs ? static_cast<std::int64_t>(std::ceil(*stop.epochs)) : 1;
  if (stop.updates) c.max_steps = *stop.updates;
  if (stop.epochs && !stop.updates && *stop.epochs != std::floor(*stop.epochs))
    throw std::invalid_argument("pssim train runs whole epochs: training.stop.epochs must be a whole number, or "
                                "give training.stop.updates");
  return c;
}

const std::vector<std::string>& baseline_output_files() {
  static const std::vector<std::string> names = {"summary.json", "curve.csv", "scenario.yaml"};
  return names;
}

models::TrainResult train_to_directory(const scenario::LoadedScenario& loaded, const std::filesystem::path& dir,
                                       const std::function<void(const models::TrainPoint&)>& on_point) {
  const models::TrainConfig config = baseline_config(loaded.scenario);
  const models::TrainingData data = models::TrainingData::load(config.data, config.seed);
  output::prepare_output_directory(dir);
  const output::DirectoryLock lock(dir, output::DirectoryLock::Mode::exclusive,
                                   "pssim train of " + loaded.scenario.name);
  output::remove_outputs(dir, baseline_output_files());
  output::write_file_atomically(dir / "scenario.yaml", scenario::resolved_yaml(loaded));
  const models::TrainResult result = models::train_single_process(config, data, on_point);

  const bool lm = data.task() == models::TaskKind::language_model;
  output::CsvWriter curve(dir / "curve.csv", {"step", "epoch", "samples", "train_loss", "test_loss", "test_accuracy",
                                              "perplexity", "wall_s"});
  double best = 0;
  for (const auto& p : result.curve) {
    curve.cell(p.step).cell(p.epoch).cell(p.samples);
    if (std::isnan(p.train_loss)) curve.empty_cell();
    else curve.cell(p.train_loss);
    curve.cell(p.eval.loss).cell(p.eval.accuracy);
    if (lm) curve.cell(p.eval.perplexity);
    else curve.empty_cell();
    curve.cell(p.wall_seconds);
    curve.end_row();
    best = std::max(best, p.eval.accuracy);
  }
  curve.commit();

  const auto& last = result.curve.back();
  output::JsonWriter j;
  j.begin_object();
  j.key("scenario").value(loaded.scenario.name);
  j.key("seed").value(static_cast<std::uint64_t>(config.seed));
  j.key("network").value(result.network);
  j.key("parameters").value(result.num_params);
  j.key("flops_per_sample").value(result.flops_per_sample);
  j.key("steps").value(last.step);
  j.key("epochs").value(last.epoch);
  j.key("final_test_accuracy").value(last.eval.accuracy);
  j.key("best_test_accuracy").value(best);
  j.key("final_test_loss").value(last.eval.loss);
  j.key("final_train_loss").value(last.train_loss);
  if (lm) {
    j.key("final_perplexity").value(last.eval.perplexity);
    j.key("unigram_perplexity").value(data.unigram_perplexity());
  }
  j.key("wall_time_s").value(last.wall_seconds);
  j.end_object();
  output::write_file_atomically(dir / "summary.json", j.str());
  return result;
}

models::GradientCase export_gradient(const scenario::LoadedScenario& loaded, const std::filesystem::path& dir,
                                     const std::string& params_dir) {
  models::TrainConfig config = math_config(loaded.scenario);
  output::prepare_output_directory(dir);
  return models::export_config_case(config, dir.string(), params_dir);
}

}  // namespace pssim::experiment
