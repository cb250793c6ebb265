"""pssim.sweep(..., executor=...): a sweep's points as tasks of a concurrent.futures.Executor
(a process pool, a Dask cluster's Client.get_executor(), ...).

The protocol is `pssim sweep --shard`'s (sim/sweep/sweep_runner.hpp): each task runs one
point as a part of the sweep, holding the sweep directory's lock shared and the point's own
lock exclusively, and writes the point's record (points/NNNN/point.csv) last; once every
task has ended, this process merges sweep.csv from the records under the exclusive lock.
So the files are those of a sweep run in one process, byte for byte, and a sweep whose
tasks were lost resumes: points with a current ok record are not submitted again.
"""
import concurrent.futures
import os


def run_point(sweep_file, directory, point, threads, model, data):
    """One task: runs `point` of the sweep into `directory` (on whichever host or process
    the executor chose) and returns its outcome: {"ran", "skipped", "failed", "errors"}."""
    from . import _native, _torch
    provider = _torch.Provider(model, data)
    try:
        return dict(_native.native().sweep(sweep_file, directory, 1, threads, [point], None, provider, False))
    finally:
        provider.close()


def sweep_on(executor, native, sweep_file, directory, threads, model, data, progress):
    """Submits the points of `sweep_file` that have no current ok record in `directory` to
    `executor`, waits for them, then writes sweep.csv. A failed point is recorded as the
    pssim command records it (a "failed" row); an exception of a task itself (a worker lost,
    an unpicklable model) is raised here, after the tasks not yet started are cancelled, as
    is a Ctrl-C (KeyboardInterrupt). Completed points are kept either way."""
    from ._progress import Bar
    sweep_file = os.path.abspath(sweep_file)
    directory = os.path.abspath(directory)
    todo = list(native.sweep_plan(sweep_file, directory)["todo"])
    futures = [executor.submit(run_point, sweep_file, directory, point, threads, model, data) for point in todo]
    bar = Bar(progress, "pssim sweep", max(len(todo), 1))
    failed = 0
    try:
        for done, future in enumerate(concurrent.futures.as_completed(futures), start=1):
            failed += future.result()["failed"]
            bar.sweep_progress(done, len(todo), failed)
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    finally:
        bar.close()
    native.sweep_merge(sweep_file, directory)
