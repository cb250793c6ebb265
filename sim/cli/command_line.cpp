// The grammar of the pssim command line: every sub-command, option, help text and check.
// The one translation unit that includes CLI11 (a header-only library that costs seconds
// of compile time in every file including it); the actions are in cmd_<name>.cpp.
#include "sim/cli/command_line.hpp"

#include <memory>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/exit_codes.hpp"
#include "sim/cli/shard_arg.hpp"

#ifndef PSSIM_VERSION
#define PSSIM_VERSION "unknown"
#endif

namespace pssim::cli {
namespace {

/// What the sub-commands share: how the command line was set up, and the exit status of
/// the command that ran.
struct CommandState {
  const CommandLineSetup& setup;
  int exit_code = kSuccess;
};

unsigned every_core() { return std::max(1u, std::thread::hardware_concurrency()); }

/// -o,--output into `dir`; an empty value is a usage error (exit 2): `-o ""` would
/// otherwise silently mean the default.
CLI::Option* add_output_option(CLI::App* cmd, std::string& dir, const std::string& description) {
  const CLI::Validator non_empty(
      [](std::string& value) {
        return value.empty() ? std::string("an empty path names no directory: give one, or leave -o out for the "
                                           "default")
                             : std::string();
      },
      "DIR");
  return cmd->add_option("-o,--output", dir, description)->check(non_empty);
}

/// SCENARIO (required), --set and --seed.
void add_scenario_args(CLI::App* cmd, ScenarioArgs& args, const std::string& description) {
  cmd->add_option("scenario", args.scenario, description)->required();
  // One value per --set: `--set k=v SCENARIO` must leave SCENARIO to the positional (a
  // vector option takes every following word by default).
  cmd->add_option("--set", args.overrides, "Override a key: path.to.key=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--seed", args.seed, "Override the scenario's seed");
}

/// --shard K/N: a value that parse_shard rejects is a usage error (exit 2), also an empty one.
void add_shard_option(CLI::App* cmd, std::optional<sweep::Shard>& shard) {
  cmd->add_option_function<std::string>(
         "--shard",
         [&shard](const std::string& text) {
           shard = parse_shard(text);
           if (!shard)
             throw CLI::ValidationError("--shard", "'" + text + "' is not K/N with whole numbers 1 <= K <= N <= " +
                                                       std::to_string(kMaxShards) + " (e.g. --shard 2/3)");
         },
         "Run only slice K of N of the points (K/N): point i belongs to slice i mod N + 1")
      ->type_name("K/N");
}

void add_run(CLI::App& app, CommandState& state) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Simulate a scenario and write its results");
  cmd->footer(
      "Example:\n"
      "  pssim run scenarios/timing/sharded-sync.yaml --set cluster.workers.count=64 --seed 3 -o results/s64\n\n"
      "Writes scenario.yaml (resolved), metrics.csv, rounds.csv, workers.csv, links.csv,\n"
      "link_utilization.csv and, last, summary.json into the output directory, then prints one\n"
      "line: how the run stopped (time, update or epoch limit, target reached, DIVERGED), the\n"
      "accuracy or perplexity reached and where the results are. A diverged run exits 0 (it is a\n"
      "result) and is also reported on standard error, with -q too.");
  add_scenario_args(cmd, a->in, "Scenario file (YAML)");
  add_output_option(cmd, a->output_dir, "Output directory (default: results/<scenario name>)");
  cmd->add_option("--threads", a->threads, "Threads for gradient math (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("-q,--quiet", a->quiet, "Print nothing on success (no progress bar either)");
  cmd->callback([a, &state] {
    if (a->threads == 0) a->threads = every_core();
    state.exit_code = run_command(*a, state.setup);
  });
}

void add_validate(CLI::App& app, CommandState& state) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("validate", "Check scenario (or sweep) files: exit 0 when all are valid, 2 otherwise");
  cmd->footer(
      "Example:\n  pssim validate scenarios/*.yaml scenarios/sweeps/*.yaml\n\n"
      "A file with a `base:` key is a sweep: every point's scenario is checked.\n"
      "A scenario, and every point of a sweep, is also built as `run` builds it, data loaded, so\n"
      "what `run` would reject (e.g. qsgd error feedback with too few levels for its shards) is\n"
      "rejected here too. Every problem is printed as file:line:col: error: message. A scenario whose\n"
      "model or data is a PyTorch module (kind torch) is built by /usr/bin/python3 -m pssim validate;\n"
      "this command checks its keys only, and says so.");
  cmd->add_option("scenarios", *files, "Scenario files")->required();
  cmd->callback([files, &state] { state.exit_code = validate_command(*files, state.setup); });
}

void add_sweep(CLI::App& app, CommandState& state) {
  auto a = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand("sweep", "Run a base scenario over a grid of overrides and seeds");
  cmd->footer(
      "Example:\n"
      "  pssim sweep scenarios/sweeps/shards.yaml -j 2\n"
      "  # on a cluster: each job runs a slice, then one merge builds sweep.csv\n"
      "  pssim sweep S.yaml --shard 2/8 -o /shared/S  ...  pssim sweep S.yaml --merge -o /shared/S\n\n"
      "Each point runs in <dir>/points/NNNN; a point that ran with the same resolved scenario is\n"
      "skipped when the sweep runs again; changed, failed and missing points run again. Exit\n"
      "status 1 if a point failed or sweep.csv has a missing row; 2 for a bad sweep file.");
  cmd->add_option("sweep", a->file, "Sweep file (YAML)")->required();
  add_output_option(cmd, a->output_dir,
                    "Output directory (default: results/sweeps/<sweep name>, beside run's results/<scenario name>)");
  cmd->add_option("-j,--jobs", a->jobs, "Points run at once (default: all cores)")->check(CLI::Range(1u, 1024u));
  cmd->add_option("--threads", a->threads, "Gradient-math threads per point (default 1)")->check(CLI::Range(1u, 1024u));
  add_shard_option(cmd, a->shard);
  cmd->add_flag("--merge", a->merge, "Build sweep.csv from the points' results (after sharded runs)")
      ->excludes("--shard");
  cmd->add_flag("-q,--quiet", a->quiet, "Print nothing on success (failures are always reported on stderr)");
  cmd->callback([a, &state] {
    if (a->jobs == 0) a->jobs = every_core();
    state.exit_code = sweep_command(*a, state.setup);
  });
}

void add_plot(CLI::App& app, CommandState& state) {
  auto a = std::make_shared<PlotArgs>();
  auto* cmd = app.add_subcommand("plot", "Draw figures (PNG and SVG) from run, baseline and sweep directories");
  cmd->footer(
      "Example:\n  pssim plot results/sync results/async results/sharded\n"
      "  pssim plot results/stragglers --window 2:2.5\n\n"
      "Accuracy and loss against simulated time and bytes sent (diverged runs marked with a cross,\n"
      "the target dashed), link utilization by link class, staleness, worker timelines (runs with\n"
      "output.trace), round time against shards and time to target against workers (sweeps).\n"
      "Output: one PATH: PATH/plots. Several: the figures that compare them in\n"
      "<parent of the first>/plots-<a>-vs-<b>..., each run's own figures in its own plots/ folder.\n"
      "With -o OUT: all in OUT (each input's own figures in OUT/<its name>/). A sweep's points get\n"
      "figures of their own only with --per-point.");
  cmd->add_option("paths", a->paths, "Result directories")->required()->check(CLI::ExistingDirectory);
  add_output_option(cmd, a->output_dir, "Directory for the figures (default: see below)");
  cmd->add_option("--window", a->window,
                  "Worker timelines: START:END in simulated seconds, either may be empty (default: the first "
                  "rounds)");
  cmd->add_option("--label", a->labels,
                  "Name the paths in legends, in order (a run's label replaces its name, a sweep's prefixes its "
                  "settings); repeatable")
      ->allow_extra_args(false);
  cmd->add_flag("--per-point", a->per_point,
                "Also each sweep point's own figures (link utilization, timeline) in points/NNNN/");
  cmd->callback([a, &state] { state.exit_code = plot_command(*a); });
}

void add_compare(CLI::App& app, CommandState& state) {
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand("compare", "Print a table comparing runs and sweep points (text, Markdown or CSV)");
  cmd->footer(
      "Example:\n  pssim compare results/sweeps/compression --format markdown\n"
      "  pssim compare results/sync results/async --format csv > table.csv\n"
      "  pssim compare results/sweeps/schemes-mixed --baseline ring --label mixed\n\n"
      "Columns: scheme, time to target, final and best test accuracy (or perplexity), iteration time,\n"
      "samples per simulated second, GB sent, mean staleness, bottleneck link, stopped by (diverged\n"
      "and collapsed runs and targets not reached are said so). Runs that differ only by seed are one\n"
      "row: mean +- 95 % confidence interval (Student t) (min-max). --baseline adds speed-ups.");
  cmd->add_option("paths", a->paths, "Run or sweep directories")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--format", a->format, "text (default), markdown or csv")
      ->check(CLI::IsMember({"text", "markdown", "csv"}));
  cmd->add_flag("--per-seed", a->per_seed, "One row per run: seeds not averaged (text and markdown)");
  cmd->add_option("--baseline", a->baseline,
                  "Add speed-up columns over this row: its number (from 1) or words of its name");
  cmd->add_option("--label", a->labels, "Name the paths, in order (a sweep's label prefixes its settings); repeatable")
      ->allow_extra_args(false);
  cmd->callback([a, &state] { state.exit_code = compare_command(*a); });
}

constexpr const char* kRealModelScenario = "Scenario file (YAML) with a real model";

void add_train(CLI::App& app, CommandState& state) {
  auto a = std::make_shared<TrainArgs>();
  auto* cmd = app.add_subcommand("train", "Train the scenario's model in one process, no network: the reference curve");
  cmd->footer(
      "Example:\n  pssim train scenarios/baseline-convnet.yaml -o results/baseline\n\n"
      "Uses the scenario's model, data, batch size and optimizer; epochs from training.stop.epochs\n"
      "(or steps from training.stop.updates); evaluates every training.eval.every_steps steps.\n"
      "Writes scenario.yaml, curve.csv and, last, summary.json (default: results/<name>-baseline).");
  add_scenario_args(cmd, a->in, kRealModelScenario);
  add_output_option(cmd, a->output_dir, "Output directory (default: results/<scenario name>-baseline)");
  cmd->add_flag("-q,--quiet", a->quiet, "Print nothing on success");
  cmd->callback([a, &state] { state.exit_code = train_command(*a); });
}

void add_grad(CLI::App& app, CommandState& state) {
  auto a = std::make_shared<TrainArgs>();
  auto* cmd = app.add_subcommand("grad", "Export parameters, one batch, its loss and gradients as .npy files");
  cmd->footer(
      "Example:\n  pssim grad scenarios/baseline-convnet.yaml -o /tmp/case\n"
      "  /usr/bin/python3 analysis/check_against_torch.py /tmp/case\n\n"
      "Tensor names, shapes and order are those of PyTorch's state_dict for the same network.");
  add_scenario_args(cmd, a->in, kRealModelScenario);
  add_output_option(cmd, a->output_dir, "Output directory")->required();
  cmd->add_option("--params", a->params_dir, "Load the parameters from this directory of .npy files");
  cmd->callback([a, &state] { state.exit_code = grad_command(*a); });
}

void add_schema(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("schema", "Print the reference of every scenario key (Markdown)");
  auto schemes = std::make_shared<bool>(false);
  cmd->add_flag("--schemes", *schemes,
                "Print the training schemes instead, as JSON: the default and, per scheme, its name, label, layout "
                "and capabilities (what analysis/ reads instead of comparing names)");
  cmd->footer("Examples:\n  pssim schema > docs/scenario-reference.md\n  pssim schema --schemes");
  cmd->callback([schemes, &state] { state.exit_code = schema_command(*schemes); });
}

}  // namespace

int run_command_line(int argc, char** argv, const CommandLineSetup& setup) {
  CLI::App app{"pssim: a discrete-event simulator of parameter-server distributed training.\n"
               "Runs YAML scenarios and writes metrics.csv, summary.json and the resolved scenario.",
               setup.program};
  app.set_version_flag("--version", "pssim " PSSIM_VERSION);
  app.require_subcommand(1);
  app.footer(fmt::format("Run `{} <command> --help` for the options and an example of each command.", setup.program));
  report_interrupts();
  CommandState state{setup};
  add_run(app, state);
  add_validate(app, state);
  add_sweep(app, state);
  add_plot(app, state);
  add_compare(app, state);
  add_train(app, state);
  add_grad(app, state);
  add_schema(app, state);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  } catch (...) {  // the commands report their own failures; this is the net under them
    return report_failure("");
  }
  return state.exit_code;
}

}  // namespace pssim::cli
