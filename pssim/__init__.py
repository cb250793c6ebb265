"""pssim from Python: run scenarios and sweeps into pandas, and train PyTorch modules inside
the simulated cluster.

    import pssim
    r = pssim.run("scenarios/quickstart.yaml", overrides={"protocol.mode": "async"})
    r.summary["final_test_accuracy"], r.evals[["time_s", "test_accuracy"]]

    s = pssim.sweep("scenarios/sweeps/quickstart.yaml", jobs=2)
    s.table[["protocol.mode", "final_test_accuracy"]]

    r = pssim.run("scenarios/quickstart.yaml", model=my_module)            # a torch.nn.Module
    r = pssim.run(..., model=my_module, data=(train_dataset, test_dataset))

A run is the pssim command's run, in this process: the same files (in `output`, or a
temporary directory kept while the result lives), the same bytes for the same scenario and
seed, the same error messages (raised as ScenarioError, InputError or RunError).
"""
import numbers
import os
import pathlib
import subprocess
import sys
import tempfile
import threading

from ._errors import Error, InputError, RunError, ScenarioError
from ._results import Result, SweepResult, load

__all__ = ["run", "sweep", "load", "plot", "schema", "Result", "SweepResult", "Error", "InputError",
           "RunError", "ScenarioError"]
__version__ = "0.1.0"

_SOURCES = pathlib.Path(__file__).resolve().parent.parent


def _extension():
    from ._native import native
    return native()


def _on_main_thread():
    return threading.current_thread() is threading.main_thread()


_MAX_THREADS = 1024  # as the pssim command's --threads and -j


def _count(name, value, default):
    """A thread or job count: a whole number in 1 .. 1024 (the pssim command's range), or
    `default` for None."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= _MAX_THREADS:
        raise InputError("{} = {!r}: must be a whole number from 1 to {}".format(name, value, _MAX_THREADS))
    return int(value)  # numpy integers too


def _cores():
    return min(os.cpu_count() or 1, _MAX_THREADS)


def _output(output, prefix):
    """(directory, TemporaryDirectory or None)."""
    if output is not None:
        return os.fspath(output), None
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    return os.path.join(tmp.name, "out"), tmp


def run(scenario, overrides=None, seed=None, threads=None, output=None, *, model=None, data=None, progress=None):
    """Runs one scenario, as `pssim run` does, and returns its Result.

    scenario   a path to a YAML file, YAML text, or a dict of the scenario's keys
    overrides  {"cluster.workers.count": 16, "protocol": {"mode": "ssp", "staleness": 2}}
               (or a list of "key=value" strings), applied as --set in order
    seed       overrides the scenario's seed
    threads    threads for gradient math (default: all cores); results do not depend on it
    output     directory for the run's files (default: a temporary one, kept while the
               Result lives)
    model      a torch.nn.Module to train instead of the scenario's model (model.kind torch;
               its current parameters are the initial ones)
    data       (train, test) datasets for it (data.kind torch): map-style datasets of
               (input, label), TensorDatasets, or pairs (inputs, labels)
    progress   a progress bar: None = on a terminal or in a notebook, True, False

    Ctrl-C stops the run at its next event and raises KeyboardInterrupt (the directory is
    left without summary.json, as the pssim command leaves it).
    """
    from . import _progress, _scenario, _torch
    from ._results import parameters_dict
    threads = _count("threads", threads, _cores())
    native = _extension()
    path, text, source = _scenario.source_of(scenario)
    sets = _scenario.torch_overrides(scenario, model, data) + _scenario.assignments(overrides)
    directory, tmp = _output(output, "pssim-run-")
    provider = _torch.Provider(model, data)
    bar = _progress.Bar(progress, "pssim run", 1.0)
    try:
        out = native.run(path, text, source, sets, seed, threads, directory,
                         bar.run_progress, provider, _on_main_thread())
    finally:
        bar.close()
        provider.close()
    return Result(directory, parameters_dict(out["parameters"], out["tensors"]), keep_alive=tmp)


def sweep(sweep_file, output=None, jobs=None, threads=1, *, model=None, data=None, progress=None, executor=None):
    """Runs a sweep file, as `pssim sweep` does, and returns its SweepResult.

    jobs: points run at once (default: all cores); threads: gradient threads per point.
    model, data: a module and datasets for sweeps whose scenario has model.kind torch and
    data.kind torch without a module reference. A failed point is a None in
    result.points and a row with status "failed" in result.table (its error in "error").

    executor: a concurrent.futures.Executor (a process pool, a Dask cluster's
    Client.get_executor() ...) to run the points on, one task per point (`jobs` is then
    the executor's business); `output` must be a directory every worker sees (a shared
    file system). The results are the same files, byte for byte, as a sweep in this
    process: each task runs its point as a part of the sweep (pssim sweep --shard's locks),
    and sweep.csv is merged here once every task has ended. Points already complete are
    not submitted, so a sweep resumes. model and data, if given, are pickled to the tasks.
    """
    from . import _progress, _torch
    jobs = _count("jobs", jobs, _cores())
    threads = _count("threads", threads, 1)
    native = _extension()
    directory, tmp = _output(output, "pssim-sweep-")
    if executor is not None:
        from ._executor import sweep_on
        sweep_on(executor, native, os.fspath(sweep_file), directory, threads, model, data, progress)
        return SweepResult(directory, keep_alive=tmp)
    provider = _torch.Provider(model, data)
    bar = _progress.Bar(progress, "pssim sweep", 1)
    try:
        native.sweep(os.fspath(sweep_file), directory, jobs, threads, [],
                     bar.sweep_progress, provider, _on_main_thread())
    finally:
        bar.close()
        provider.close()
    return SweepResult(directory, keep_alive=tmp)


def plot(*results, output=None, labels=None, per_point=False):
    """Draws the figures of `pssim plot` (analysis/plot.py) from Results, SweepResults or
    directories; returns every file written (PNG and SVG, as pathlib.Paths, in the order
    `pssim plot` lists them: the comparison figures into `output`, default <first>/plots,
    then each run's own, such as link utilization, in folders of their own).

    labels     names for the results in legends, in order (a run's replaces its name, a
               sweep's prefixes its settings); default: a Result is named by its scenario
               (numbered when several share one), a directory by its folder
    per_point  also each sweep point's own figures (one per point: slow for big sweeps)
    """
    from ._results import directory_of
    if not results:
        raise TypeError("plot needs at least one result or directory")
    paths = [os.fspath(directory_of(r)) for r in results]
    if labels is None:
        labels = _default_labels(results)
    labels = [str(label) for label in labels]
    if len(labels) > len(paths):
        raise InputError("plot: {} labels for {} results".format(len(labels), len(paths)))
    out = pathlib.Path(output) if output is not None else pathlib.Path(paths[0]) / "plots"
    script = pathlib.Path(os.environ.get("PSSIM_ANALYSIS_DIR", _SOURCES / "analysis")) / "plot.py"
    if not script.exists():
        raise RunError("no {}: set PSSIM_ANALYSIS_DIR to the analysis/ folder of the pssim sources".format(script))
    args = [sys.executable, os.fspath(script), "-o", os.fspath(out)]
    for label in labels:
        args += ["--label", label]
    if per_point:
        args.append("--per-point")
    # The scheme registry's labels and capabilities, as `pssim plot` hands them over.
    env = dict(os.environ, PSSIM_SCHEMES=_extension().schemes())
    done = subprocess.run(args + paths, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip()
        raise (InputError if done.returncode == 2 else RunError)(message)
    return [pathlib.Path(line) for line in done.stdout.splitlines() if line.strip()]


def _default_labels(results):
    """A Result (run in this process, often into a temporary folder) is named by its
    scenario, numbered when several share a name; a directory, by its folder (None: the
    plot script's own naming)."""
    from ._results import Result, directory_of
    names = [r.name if isinstance(r, Result) else None for r in results]
    counts = {n: names.count(n) for n in names if n is not None}
    seen = {}
    labels = []
    for n in names:
        if n is None:
            labels.append(None)
            continue
        seen[n] = seen.get(n, 0) + 1
        labels.append(n if counts[n] == 1 else "{} ({})".format(n, seen[n]))
    while labels and labels[-1] is None:
        labels.pop()
    if any(label is None for label in labels):  # a directory before a Result: named as plot.py would
        labels = [label if label is not None else os.path.basename(os.path.normpath(os.fspath(directory_of(r))))
                  for label, r in zip(labels, results)]
    return labels


def schema():
    """The scenario reference (Markdown), as `pssim schema` prints it."""
    return _extension().schema()
