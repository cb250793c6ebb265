#include "sim/experiment/run_job.hpp"

#include "sim/experiment/run_outputs.hpp"
#include "sim/experiment/trace_recorder.hpp"
#include "sim/output/atomic_file.hpp"

namespace pssim::experiment {
namespace {

// Files of an earlier run in the same directory would mix with this one's; summary.json
// goes first, so that a run killed half-way never leaves a summary that looks complete.
void remove_previous_outputs(const std::filesystem::path& dir) {
  for (const char* name : {"summary.json", "metrics.csv", "rounds.csv", "workers.csv", "links.csv",
                           "link_utilization.csv", "trace.json", "scenario.yaml"}) {
    std::error_code ignored;
    std::filesystem::remove(dir / name, ignored);
  }
}

}  // namespace

JobResult run_to_directory(const scenario::LoadedScenario& loaded, const std::filesystem::path& dir,
                           const JobOptions& options) {
  Experiment experiment(loaded.scenario, options.threads);
  output::prepare_output_directory(dir);
  remove_previous_outputs(dir);
  output::write_file_atomically(dir / "scenario.yaml", scenario::resolved_yaml(loaded));
  MetricsRecorder recorder(dir, experiment.protocol().has_rounds());
  std::unique_ptr<TraceRecorder> trace;
  std::vector<protocol::Observer*> observers = {&recorder};
  if (loaded.scenario.output.trace) {
    trace = std::make_unique<TraceRecorder>(dir, experiment.topology(), experiment.protocol().workers(),
                                            experiment.protocol().shards(), experiment.recorded_links());
    experiment.watch_flow_counts(
        [t = trace.get()](net::ResourceId r, std::size_t n, TimeNs now) { t->on_flow_count(r, n, now); });
    observers.push_back(trace.get());
  }
  protocol::ObserverList all(observers);
  JobResult result;
  result.stats = experiment.run(&all, options.on_progress);
  recorder.commit();
  if (trace) trace->commit();
  const RunReport report = write_run_outputs(dir, experiment, result.stats, recorder);
  result.figures = report_figures(report);
  return result;
}

}  // namespace pssim::experiment
