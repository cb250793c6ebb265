"""Run and sweep directories (as pssim run / pssim sweep write them) read into pandas."""
import json
import os
import pathlib

import pandas as pd
import yaml

from ._errors import InputError


def _read(path, reader):
    """reader(path), with a damaged or unreadable file reported as an InputError naming it
    (not a JSONDecodeError, UnicodeDecodeError or pandas ParserError)."""
    try:
        return reader(path)
    except (ValueError, OSError, yaml.YAMLError) as e:  # decoding and parsing errors are ValueErrors
        raise InputError("{}: damaged or unreadable ({}: {})".format(path, type(e).__name__, e)) from e


def _csv(path):
    return _read(path, pd.read_csv) if path.exists() else pd.DataFrame()


class Result:
    """One run: the files of its directory (docs/commands.md, "Outputs of a run") as Python objects.

    summary           dict: summary.json (final_test_accuracy, sim_time_s, bytes_sent ...)
    metrics           DataFrame: metrics.csv (update and eval rows; see evals / updates)
    rounds            DataFrame: rounds.csv (empty for async)
    workers, links    DataFrame: workers.csv, links.csv
    link_utilization  DataFrame: link_utilization.csv (read when first used)
    scenario          dict: the resolved scenario (scenario.yaml, every key with its value)
    parameters        dict name -> numpy array (state_dict order) of the final parameters,
                      when pssim.run trained a real model; None when loaded from a directory
    directory         pathlib.Path of the files (a temporary one, kept while this object
                      lives, when pssim.run was given no output)
    """

    def __init__(self, directory, parameters=None, keep_alive=None):
        directory = pathlib.Path(directory)
        summary = directory / "summary.json"
        if not summary.exists():
            raise InputError("{}: not a complete run directory (no summary.json)".format(directory))
        self.directory = directory
        self.summary = _read(summary, lambda p: json.loads(p.read_text()))
        self.scenario = _read(directory / "scenario.yaml", lambda p: yaml.safe_load(p.read_text()))
        self.metrics = _csv(directory / "metrics.csv")
        self.rounds = _csv(directory / "rounds.csv")
        self.workers = _csv(directory / "workers.csv")
        self.links = _csv(directory / "links.csv")
        self.parameters = parameters
        self._link_utilization = None
        self._keep_alive = keep_alive  # a TemporaryDirectory removed with this object

    @property
    def name(self):
        return self.scenario.get("name")

    @property
    def evals(self):
        """The evaluation rows of metrics (time_s, version, test_accuracy, test_loss ...)."""
        if self.metrics.empty:
            return self.metrics
        return self.metrics[self.metrics["event"] == "eval"].reset_index(drop=True)

    @property
    def updates(self):
        """The update rows of metrics."""
        if self.metrics.empty:
            return self.metrics
        return self.metrics[self.metrics["event"] == "update"].reset_index(drop=True)

    @property
    def link_utilization(self):
        if self._link_utilization is None:
            self._link_utilization = _csv(self.directory / "link_utilization.csv")
        return self._link_utilization

    def __repr__(self):
        acc = self.summary.get("final_test_accuracy")
        return "<pssim.Result {} in {}: {:.4g} simulated s{}>".format(
            self.name, self.directory, self.summary.get("sim_time_s", float("nan")),
            "" if acc is None else ", final test accuracy {:.4f}".format(acc))


class SweepResult:
    """A sweep: table (sweep.csv: one row per point, the swept keys and headline figures)
    and points (a Result per completed point, in point order; None for a point that failed
    or is missing). len() and [i] go through the points."""

    def __init__(self, directory, keep_alive=None):
        directory = pathlib.Path(directory)
        table = directory / "sweep.csv"
        if not table.exists():
            raise InputError("{}: not a complete sweep directory (no sweep.csv)".format(directory))
        self.directory = directory
        self.table = _read(table, pd.read_csv)
        self.points = []
        for point, status in zip(self.table["point"], self.table["status"]):
            path = directory / "points" / "{:04d}".format(int(point))
            self.points.append(Result(path) if status == "ok" else None)
        self._keep_alive = keep_alive

    def __len__(self):
        return len(self.points)

    def __getitem__(self, i):
        return self.points[i]

    def __iter__(self):
        return iter(self.points)

    def __repr__(self):
        ok = sum(p is not None for p in self.points)
        return "<pssim.SweepResult {} points ({} ok) in {}>".format(len(self.points), ok, self.directory)


def load(directory):
    """A run directory (summary.json) as a Result, a sweep directory (sweep.csv) as a
    SweepResult, as the pssim command or pssim.run / pssim.sweep wrote them."""
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        raise InputError("{}: no such directory".format(directory))
    if (directory / "sweep.csv").exists():
        return SweepResult(directory)
    if (directory / "summary.json").exists():
        return Result(directory)
    raise InputError("{}: neither a run (summary.json) nor a sweep (sweep.csv) directory".format(directory))


def parameters_dict(flat, tensors):
    """The flat final parameters cut into named arrays of their shapes."""
    if flat is None:
        return None
    out, offset = {}, 0
    for name, shape in tensors:
        size = 1
        for d in shape:
            size *= d
        out[name] = flat[offset:offset + size].reshape(shape)
        offset += size
    return out


def directory_of(item):
    """A path, or the directory of a Result or SweepResult."""
    if isinstance(item, (Result, SweepResult)):
        return item.directory
    return pathlib.Path(os.fspath(item))
