// pssim._pssim: the simulator as a Python extension module (pybind11). The package
// pssim/ (at the root of the sources) wraps it: these functions run a scenario or a sweep
// into a directory exactly as the pssim command does (experiment::run_to_directory,
// sweep::run_sweep), and pssim/_results.py reads the directory into pandas.
//
//   run(path | None, text | None, source, overrides, seed, threads, output, progress,
//       provider, handle_sigint) -> {"parameters": f32 [N] | None, "tensors": [(name, shape)]}
//   sweep(path, output, jobs, threads, points, progress, provider, handle_sigint)
//       -> {"ran", "skipped", "failed", "errors": [(point, message)], "table_failed", "table_missing"}
//       (points: [] for the whole sweep, else only these, as a part of it: no sweep.csv)
//   sweep_plan(path, output) -> {"name", "total", "todo": [points without a current ok record]}
//   sweep_merge(path, output) -> {"table_failed", "table_missing"}
//   main(args, provider) -> exit status: the pssim command line (python3 -m pssim)
//
// While the simulation runs the GIL is released; gradient jobs of a torch model take it
// (torch_network.hpp), progress(...) is called with it. Errors raise pssim.ScenarioError,
// pssim.InputError or pssim.RunError with the message the pssim command prints
// (experiment::describe_failure), or the Python exception a torch module raised. Ctrl-C:
// with handle_sigint (the caller is Python's main thread), SIGINT sets a flag that ends
// the run at its next event, and KeyboardInterrupt is raised once the run has unwound
// (the directory lock released, no summary.json written).
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "sim/cli/command_line.hpp"
#include "sim/experiment/failure.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/output/output_directory.hpp"
#include "sim/python/python_math.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/scenario_error.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/schemes/registry.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace py = pybind11;

namespace pssim::python {
namespace {

std::atomic<bool> interrupted{false};

extern "C" void on_sigint(int) { interrupted.store(true); }

// SIGINT sets `interrupted` while one call runs; Python's handler is put back after.
class SigintGuard {
 public:
  explicit SigintGuard(bool active) {
    interrupted.store(false);
    if (!active || ::sigaction(SIGINT, nullptr, &previous_) != 0 || previous_.sa_handler == SIG_IGN) return;
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    installed_ = ::sigaction(SIGINT, &action, nullptr) == 0;
  }
  ~SigintGuard() {
    if (installed_) ::sigaction(SIGINT, &previous_, nullptr);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

// Raises the Python exception for `error` (GIL held): an interrupt as KeyboardInterrupt;
// a fault of the inputs (a scenario, a data file, a torch module that cannot be built) as
// ScenarioError or InputError with the pssim command's message, chained to the Python
// exception that caused it; a Python exception raised while the simulation ran (a torch
// module's, with its traceback) as itself; anything else as RunError.
[[noreturn]] void raise(std::exception_ptr error, PythonErrors& errors, std::string_view input) {
  std::optional<py::error_already_set> cause = errors.take();
  bool interrupted_run = false;
  try {
    std::rethrow_exception(error);
  } catch (const py::error_already_set&) {
    throw;
  } catch (const experiment::Interrupted&) {
    interrupted_run = true;
  } catch (...) {
  }
  const experiment::Failure f = experiment::describe_failure(error, input);
  const bool bad_input = !interrupted_run && f.kind == experiment::Failure::Kind::BadInput;
  if (cause && (!bad_input || cause->matches(PyExc_KeyboardInterrupt))) throw *cause;
  if (interrupted_run) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  const py::module_ errors_module = py::module_::import("pssim._errors");
  const char* type = f.diagnostics ? "ScenarioError" : bad_input ? "InputError" : "RunError";
  const py::object exception = errors_module.attr(type)(f.message);
  if (cause) exception.attr("__cause__") = cause->value();
  PyErr_SetObject(errors_module.attr(type).ptr(), exception.ptr());
  throw py::error_already_set();
}

// Calls `fn` (a Python callable, or None) from a simulation thread; a Python exception is
// kept and ends the run.
template <typename... Args>
void call_back(const py::object& fn, PythonErrors& errors, Args... args) {
  if (fn.is_none()) return;
  const py::gil_scoped_acquire gil;
  try {
    fn(args...);
  } catch (const py::error_already_set& e) {
    errors.keep(e);
    throw std::runtime_error(e.what());
  }
}

py::dict run(std::optional<std::string> path, std::optional<std::string> text, const std::string& source,
             const std::vector<std::string>& overrides, std::optional<std::uint64_t> seed, unsigned threads,
             const std::string& output, const py::object& progress, const py::object& provider, bool handle_sigint) {
  auto errors = std::make_shared<PythonErrors>();
  const std::string input = path.value_or("");
  std::optional<scenario::LoadedScenario> loaded;
  try {
    const scenario::Overrides o{overrides, seed};
    loaded.emplace(path ? scenario::load_scenario_file(*path, o) : scenario::load_scenario_text(*text, source, o));
    if (path) output::check_not_an_output(*path, output, experiment::run_output_files());
  } catch (...) {
    raise(std::current_exception(), *errors, input);
  }
  std::optional<PythonMath> math;
  if (!provider.is_none()) math.emplace(provider, errors);

  std::vector<float> parameters;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> tensors;
  experiment::JobOptions job;
  job.threads = std::max(1u, threads);
  job.external = math ? &*math : nullptr;
  job.interrupt = &interrupted;
  job.on_progress = [&](const experiment::Experiment& e) {
    call_back(progress, *errors, e.progress_fraction(), to_seconds(e.simulator().now()),
              e.protocol().totals().updates);
  };
  job.on_finished = [&](const experiment::Experiment& e) {
    if (!e.has_math()) return;
    parameters = e.parameters();
    for (const auto& t : e.model_network()->layout().tensors()) tensors.emplace_back(t.name, t.shape);
  };
  std::exception_ptr error;
  {
    const SigintGuard guard(handle_sigint);
    const py::gil_scoped_release nogil;
    try {
      experiment::run_to_directory(*loaded, output, job);
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (interrupted.load() && !error) error = std::make_exception_ptr(experiment::Interrupted());
  if (error) raise(error, *errors, input);

  py::dict result;
  result["parameters"] = parameters.empty() ? py::object(py::none())
                                            : py::object(py::array_t<float>(static_cast<py::ssize_t>(parameters.size()),
                                                                            parameters.data()));
  result["tensors"] = tensors;
  return result;
}

sweep::SweepSpec load_sweep(const std::string& path) {
  try {
    return sweep::load_sweep(path);
  } catch (...) {
    PythonErrors none;
    raise(std::current_exception(), none, path);
  }
}

py::dict sweep(const std::string& path, const std::string& output, unsigned jobs, unsigned threads,
               const std::vector<std::size_t>& points, const py::object& progress, const py::object& provider,
               bool handle_sigint) {
  auto errors = std::make_shared<PythonErrors>();
  const sweep::SweepSpec spec = load_sweep(path);
  std::optional<PythonMath> math;
  if (!provider.is_none()) math.emplace(provider, errors);
  std::vector<std::pair<std::size_t, std::string>> failures;
  sweep::SweepOptions options;
  options.output_dir = output;
  options.jobs = std::max(1u, jobs);
  options.threads_per_point = std::max(1u, threads);
  options.points = points;
  options.external = math ? &*math : nullptr;
  options.interrupt = &interrupted;
  options.on_point_failed = [&](const sweep::SweepPoint& p, const std::string& message) {
    failures.emplace_back(p.index, message);
  };
  options.on_point_done = [&](std::size_t done, std::size_t total, std::size_t failed) {
    call_back(progress, *errors, done, total, failed);
  };
  sweep::SweepOutcome outcome;
  std::exception_ptr error;
  {
    const SigintGuard guard(handle_sigint);
    const py::gil_scoped_release nogil;
    try {
      outcome = sweep::run_sweep(spec, options);
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (error) raise(error, *errors, path);
  py::dict result;
  result["ran"] = outcome.ran;
  result["skipped"] = outcome.skipped;
  result["failed"] = outcome.failed;
  result["errors"] = failures;
  result["table_failed"] = outcome.table.failed;
  result["table_missing"] = outcome.table.missing;
  return result;
}

// The points a sweep into `output` would run (no current ok record) and how many it has.
py::dict sweep_plan(const std::string& path, const std::string& output) {
  const sweep::SweepSpec spec = load_sweep(path);
  py::dict result;
  result["name"] = spec.name;
  result["total"] = spec.points.size();
  result["todo"] = sweep::points_to_run(spec, output);
  return result;
}

// sweep.csv from the points' records (pssim sweep --merge).
py::dict sweep_merge(const std::string& path, const std::string& output) {
  const sweep::SweepSpec spec = load_sweep(path);
  sweep::TableCounts counts;
  try {
    const py::gil_scoped_release nogil;
    counts = sweep::merge_sweep(spec, output);
  } catch (...) {
    PythonErrors none;
    raise(std::current_exception(), none, path);
  }
  py::dict result;
  result["table_failed"] = counts.failed;
  result["table_missing"] = counts.missing;
  return result;
}

// python3 -m pssim ARGS: the pssim command line (sim/cli) in this process, with the
// provider's math for torch scenarios; returns the exit status. The command line installs
// its own signal handlers (a Ctrl-C ends the process as it ends the pssim executable).
int command_line(const std::vector<std::string>& args, const py::object& provider) {
  PythonMath math(provider, std::make_shared<PythonErrors>());
  std::vector<std::string> words = {"python3 -m pssim"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  int status = 0;
  {
    const py::gil_scoped_release nogil;
    status = cli::run_command_line(static_cast<int>(argv.size()), argv.data(), {"python3 -m pssim", &math});
    std::fflush(stdout);  // before Python writes anything of its own
  }
  return status;
}

}  // namespace
}  // namespace pssim::python

PYBIND11_MODULE(_pssim, m) {
  using namespace pssim::python;
  m.doc() = "The pssim simulator (use the pssim package, which wraps this module).";
  m.def("run", &run, py::arg("path"), py::arg("text"), py::arg("source"), py::arg("overrides"), py::arg("seed"),
        py::arg("threads"), py::arg("output"), py::arg("progress"), py::arg("provider"), py::arg("handle_sigint"));
  m.def("sweep", &sweep, py::arg("path"), py::arg("output"), py::arg("jobs"), py::arg("threads"), py::arg("points"),
        py::arg("progress"), py::arg("provider"), py::arg("handle_sigint"));
  m.def("sweep_plan", &sweep_plan, py::arg("path"), py::arg("output"));
  m.def("sweep_merge", &sweep_merge, py::arg("path"), py::arg("output"));
  m.def("main", &command_line, py::arg("args"), py::arg("provider"),
        "Runs the pssim command line on args (without the program name); returns the exit status.");
  m.def("schema", [] { return pssim::scenario::scenario_reference_markdown(); },
        "The scenario reference (Markdown), as `pssim schema` prints it.");
  m.def("schemes", [] { return pssim::schemes::schemes_json(); },
        "The training schemes (JSON), as `pssim schema --schemes` prints them.");
}
