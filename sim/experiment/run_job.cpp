#include "sim/experiment/run_job.hpp"

#include <memory>
#include <optional>

#include "models/data/data_error.hpp"
#include "sim/experiment/memory_estimate.hpp"
#include "sim/experiment/run_outputs.hpp"
#include "sim/experiment/trace_recorder.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/output/directory_lock.hpp"
#include "sim/output/output_directory.hpp"
#include "sim/parallel/job_pool.hpp"

namespace pssim::experiment {
namespace {

// The node a build message is about, when it starts with a key path of the scenario
// ("compression.push.error_feedback with qsgd ..."): the longest prefix that names a key.
const scenario::ConfigNode* named_key(const scenario::ConfigNode& root, const std::string& message) {
  const std::string path = message.substr(0, message.find_first_of(" :,"));
  const scenario::ConfigNode* node = &root;
  std::size_t at = 0;
  while (node && node->is_map() && at < path.size()) {
    const std::size_t dot = path.find('.', at);
    const scenario::ConfigNode* child = node->find(path.substr(at, dot == std::string::npos ? dot : dot - at));
    if (!child) break;
    node = child;
    if (dot == std::string::npos) break;
    at = dot + 1;
  }
  return node == &root || node->location().line == 0 ? nullptr : node;
}

// A scenario the validator accepted can still fail to build (a disconnected topology,
// more shards than tensors ...): that is the scenario's fault, not the run's, and it is
// reported at the key it names when the user wrote that key. Data errors, lack of memory
// (found, or foreseen) and threads the system refuses keep their own type.
std::unique_ptr<Experiment> build(const scenario::LoadedScenario& loaded, const JobOptions& options) {
  try {
    return std::make_unique<Experiment>(loaded.scenario, options.threads, options.external);
  } catch (const models::DataError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const parallel::ThreadsRefused&) {  // the machine's limits, not the scenario's fault
    throw;
  } catch (const MemoryTooSmall&) {
    throw;
  } catch (const std::exception& e) {
    if (const scenario::ConfigNode* at = named_key(loaded.resolved, e.what()))
      throw scenario::ScenarioError(at->location(), e.what());
    throw BuildError(e.what());
  }
}

}  // namespace

bool check_buildable(const scenario::LoadedScenario& loaded, const ExternalMath* external) {
  if (!external && uses_external_math(loaded.scenario)) return false;
  JobOptions options;
  options.external = external;
  build(loaded, options);
  return true;
}

const std::vector<std::string>& run_output_files() {
  // summary.json first: a run killed half-way never leaves a summary that looks complete.
  static const std::vector<std::string> names = {"summary.json", "metrics.csv", "rounds.csv",
                                                 "workers.csv",  "links.csv",   "link_utilization.csv",
                                                 "trace.json",   "scenario.yaml"};
  return names;
}

JobResult run_to_directory(const scenario::LoadedScenario& loaded, const std::filesystem::path& dir,
                           const JobOptions& options) {
  const std::unique_ptr<Experiment> built = build(loaded, options);
  Experiment& experiment = *built;
  output::prepare_output_directory(dir);
  std::optional<output::DirectoryLock> lock;
  JobResult result;
  if (!options.caller_holds_lock) {
    lock.emplace(dir, output::DirectoryLock::Mode::exclusive, "pssim run of " + loaded.scenario.name);
    result.lock_unsupported = lock->unsupported();
  }
  // Files (and killed writers' temporaries) of an earlier run would mix with this one's.
  output::remove_outputs(dir, run_output_files());
  output::write_file_atomically(dir / "scenario.yaml", scenario::resolved_yaml(loaded));
  MetricsRecorder recorder(dir, experiment.protocol().has_rounds(), experiment.dynamics() != nullptr);
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
  result.stats = experiment.run(&all, options.on_progress, options.interrupt);
  recorder.commit();
  if (trace) trace->commit();
  const RunReport report = write_run_outputs(dir, experiment, result.stats, recorder);
  result.figures = report_figures(report);
  if (options.on_finished) options.on_finished(experiment);
  return result;
}

}  // namespace pssim::experiment
