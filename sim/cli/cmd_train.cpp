// pssim train SCENARIO: the single-process baseline of a scenario's model, data and
// optimizer; pssim grad SCENARIO: one batch's loss and gradients as .npy files.
#include <filesystem>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/output_option.hpp"
#include "sim/cli/scenario_args.hpp"
#include "sim/experiment/baseline_job.hpp"
#include "sim/output/output_directory.hpp"

namespace pssim::cli {
namespace {

struct Common {
  ScenarioArgs in;
  std::string output_dir;
  bool quiet = false;
  std::string params_dir;  // grad
};

constexpr const char* kScenarioHelp = "Scenario file (YAML) with a real model";

// Loads the scenario and runs `body` on it; every failure maps to its exit status in
// report_failure.
template <typename Body>
int guarded(const Common& o, Body body) {
  try {
    return body(load_scenario(o.in));
  } catch (...) {
    return report_failure(o.in.scenario);
  }
}

}  // namespace

void add_train_command(CLI::App& app, CommandState& state) {
  auto o = std::make_shared<Common>();
  auto* cmd = app.add_subcommand("train", "Train the scenario's model in one process, no network: the reference curve");
  cmd->footer(
      "Example:\n  pssim train scenarios/baseline-convnet.yaml -o results/baseline\n\n"
      "Uses the scenario's model, data, batch size and optimizer; epochs from training.stop.epochs\n"
      "(or steps from training.stop.updates); evaluates every training.eval.every_steps steps.\n"
      "Writes scenario.yaml, curve.csv and, last, summary.json (default: results/<name>-baseline).");
  add_scenario_args(cmd, o->in, kScenarioHelp);
  add_output_option(cmd, o->output_dir, "Output directory (default: results/<scenario name>-baseline)");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing on success");
  cmd->callback([o, &state] {
    state.exit_code = guarded(*o, [&](const scenario::LoadedScenario& loaded) {
      const std::filesystem::path dir = o->output_dir.empty()
                                            ? std::filesystem::path("results") / (loaded.scenario.name + "-baseline")
                                            : std::filesystem::path(o->output_dir);
      output::check_not_an_output(o->in.scenario, dir, experiment::baseline_output_files());
      const auto result = experiment::train_to_directory(loaded, dir, [&](const models::TrainPoint& p) {
        if (!o->quiet)
          fmt::print("step {:6}  epoch {:6.3f}  train loss {:8.4f}  test loss {:7.4f}  accuracy {:6.2f}%\n", p.step,
                     p.epoch, p.train_loss, p.eval.loss, 100 * p.eval.accuracy);
      });
      if (!o->quiet) fmt::print("{}: {}; results in {}\n", loaded.scenario.name, result.network, dir.string());
      return static_cast<int>(kSuccess);
    });
  });
}

void add_grad_command(CLI::App& app, CommandState& state) {
  auto o = std::make_shared<Common>();
  auto* cmd = app.add_subcommand("grad", "Export parameters, one batch, its loss and gradients as .npy files");
  cmd->footer(
      "Example:\n  pssim grad scenarios/baseline-convnet.yaml -o /tmp/case\n"
      "  /usr/bin/python3 analysis/check_against_torch.py /tmp/case\n\n"
      "Tensor names, shapes and order are those of PyTorch's state_dict for the same network.");
  add_scenario_args(cmd, o->in, kScenarioHelp);
  add_output_option(cmd, o->output_dir, "Output directory")->required();
  cmd->add_option("--params", o->params_dir, "Load the parameters from this directory of .npy files");
  cmd->callback([o, &state] {
    state.exit_code = guarded(*o, [&](const scenario::LoadedScenario& loaded) {
      const auto c = experiment::export_gradient(loaded, o->output_dir, o->params_dir);
      fmt::print("loss {:.6f}; {} gradients written to {}\n", c.loss, c.grad.size(), o->output_dir);
      return static_cast<int>(kSuccess);
    });
  });
}

}  // namespace pssim::cli
