// pssim train SCENARIO: the single-process baseline of a scenario's model, data and
// optimizer; pssim grad SCENARIO: one batch's loss and gradients as .npy files.
#include <cmath>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/scenario_args.hpp"
#include "sim/experiment/baseline_job.hpp"
#include "sim/output/output_directory.hpp"

namespace pssim::cli {
namespace {

// Loads the scenario and runs `body` on it; every failure maps to its exit status in
// report_failure.
template <typename Body>
int guarded(const TrainArgs& o, Body body) {
  try {
    return body(load_scenario(o.in));
  } catch (...) {
    return report_failure(o.in.scenario);
  }
}

}  // namespace

int train_command(const TrainArgs& o) {
  return guarded(o, [&](const scenario::LoadedScenario& loaded) {
    const std::filesystem::path dir = o.output_dir.empty()
                                          ? std::filesystem::path("results") / (loaded.scenario.name + "-baseline")
                                          : std::filesystem::path(o.output_dir);
    output::check_not_an_output(o.in.scenario, dir, experiment::baseline_output_files());
    const auto result = experiment::train_to_directory(loaded, dir, [&](const models::TrainPoint& p) {
      // No training loss before the first step: a dash, not "nan".
      const std::string train_loss = std::isnan(p.train_loss) ? "-" : fmt::format("{:.4f}", p.train_loss);
      if (!o.quiet)
        fmt::print("step {:6}  epoch {:6.3f}  train loss {:>8}  test loss {:7.4f}  accuracy {:6.2f}%\n", p.step,
                   p.epoch, train_loss, p.eval.loss, 100 * p.eval.accuracy);
    });
    if (!o.quiet) fmt::print("{}: {}; results in {}\n", loaded.scenario.name, result.network, dir.string());
    return static_cast<int>(kSuccess);
  });
}

int grad_command(const TrainArgs& o) {
  return guarded(o, [&](const scenario::LoadedScenario& loaded) {
    const auto c = experiment::export_gradient(loaded, o.output_dir, o.params_dir);
    fmt::print("loss {:.6f}; {} gradients written to {}\n", c.loss, c.grad.size(), o.output_dir);
    return static_cast<int>(kSuccess);
  });
}

}  // namespace pssim::cli
