#!/usr/bin/env python3
"""Figures from pssim results (run with /usr/bin/python3: Debian's matplotlib and pandas).

    plot.py [-o OUT] [--window START:END] [--label NAME]... [--per-point] PATH...

Each PATH is a run directory (summary.json), a baseline directory (curve.csv, from
`pssim train`) or a sweep directory (sweep.csv and points/). Every figure that the inputs
allow is written as PNG and SVG:

  accuracy_vs_time      test accuracy and training loss against simulated time, one line
                        per run (perplexity on a log axis for language models)
  accuracy_vs_bytes     test accuracy against bytes sent
  accuracy_vs_epochs    test accuracy against passes over the data, with `pssim train`
                        baselines (the single-process reference curve)
  time_to_target_vs_workers   sweeps over cluster.workers.count with a target accuracy
  accuracy_vs_workers   sweeps over cluster.workers.count: best test accuracy
  staleness_vs_workers  sweeps over cluster.workers.count (async, SSP): mean and max staleness
  round_time_vs_shards  sweeps over cluster.servers.shards: round time and throughput, with
                        the closed form, the ideal 1/S and the workers' NIC bound
  iteration_time_vs_workers   sweeps over cluster.workers.count of several schemes (PS,
                        colocated PS, all-reduce ...): iteration time per scheme, one panel
                        per network, closed forms dashed where they are exact
  progress_vs_checkpoint_interval   sweeps over cluster.servers.checkpoint.every (alone):
                        model updates, updates lost to crashes and time to target per interval
  iteration_time_vs_bandwidth   sweeps over protocol.overlap and protocol.schedule against
                        network.worker_nic.bandwidth: iteration time per mode, one panel per
                        sweep (model), and the speed-up of priority over fifo
  staleness_histogram   async and SSP runs: staleness of the applied gradients
  link_utilization      per run: utilization over time by link class (a class of several
                        links as a band: min, median, max), in windows of several rounds
  worker_timeline       per run with trace.json: each worker's states over time, in a
                        window (--window START:END in simulated seconds; default: the
                        first rounds)

Honesty: a run that diverged is drawn up to its divergence and marked with a cross there;
a run or sweep point that never reached the target accuracy is marked "not reached" (on
the axis for time to target); the target is a dashed line on accuracy axes.

Where the figures go: one PATH: PATH/plots (or OUT). Several PATHs: figures that combine
them in <parent of the first>/plots-<name>-vs-<name>... (or OUT), and each run's own
figures (link_utilization, worker_timeline) in its own plots/ folder (or OUT/<name>/).
A sweep's per-point figures (only with --per-point) go to <its plots folder>/points/NNNN/.
--label names the PATHs in legends, in order; without it a run is named by its folder, a
sweep point given alone by its sweep's settings.

Prints the files it wrote. Exit status 2 when a path holds no pssim results or a bad
--window, 1 when the figures cannot be drawn or written (one line on stderr;
PSSIM_DEBUG=1 for the traceback).
"""
import argparse
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.lines  # noqa: E402
import matplotlib.patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import pandas as pd  # noqa: E402
from cycler import cycler  # noqa: E402
import yaml  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import command_main  # noqa: E402
from closed_forms import round_time, worker_nic_bound  # noqa: E402
from axes import mark_identical, plain, tidy_log_axes, without_note  # noqa: E402
from iteration import iteration_s  # noqa: E402
from labels import scheme_label, setting_label  # noqa: E402
from checkpoint_plot import plot_checkpoint_interval  # noqa: E402
from overlap_plot import plot_overlap  # noqa: E402
from settings_plot import is_categorical, plot_settings  # noqa: E402

# More than ten curves: the ten colours again, dashed, then dotted (not the same look twice).
plt.rcParams["axes.prop_cycle"] = cycler(linestyle=["-", "--", ":"]) * cycler(color=plt.rcParams["axes.prop_cycle"].by_key()["color"])
# Four states that stay apart for colour-blind readers too: green, orange, blue, grey.
STATE_COLORS = {"computing": "#2e7d32", "pushing": "#ef6c00", "pulling": "#1565c0", "blocked": "#c8c8c8"}
DOWN_COLOR = "#7b1fa2"  # a worker whose host has failed (dynamics), shown only when present
# Events of events.csv marked on accuracy plots: injected failures and recoveries.
EVENT_MARKS = {"worker_crash": ("#c62828", "--"), "server_crash": ("#c62828", "-."),
               "worker_recover": ("#2e7d32", "--"), "server_recover": ("#2e7d32", "-."), "link": ("#555555", ":")}
DIVERGED = dict(marker="X", markersize=11, markeredgecolor="black", markeredgewidth=0.8, linestyle="none")
# A run failed when its loss became NaN (diverged) or it collapsed (training.collapse): it
# stopped there, and is drawn up to its last evaluation with a cross.
FAILED_STOPS = ("diverged", "collapsed")
FAILED_LEGEND = "diverged (loss NaN) or collapsed"


class UsageError(Exception):
    pass


class Run:
    """One run directory (or a baseline directory from `pssim train`)."""

    def __init__(self, path, label=None, group=None):
        self.path = path
        self.label = label or os.path.basename(os.path.normpath(path))
        self.group = group or self.label  # runs of one group differ only by seed
        self.group_key = (os.path.dirname(os.path.dirname(os.path.normpath(path))), self.group) if group else path
        self.summary = {}
        if os.path.exists(os.path.join(path, "summary.json")):
            with open(os.path.join(path, "summary.json")) as f:
                self.summary = json.load(f)
        self.metrics = _read_csv(os.path.join(path, "metrics.csv"))
        self.curve = _read_csv(os.path.join(path, "curve.csv"))  # pssim train
        self.events = _read_csv(os.path.join(path, "events.csv"))  # runs with dynamics

    @property
    def diverged(self):
        """The run failed: its loss became NaN (stopped_by diverged) or it collapsed (see
        training.collapse); summary.json's "diverged" is true for both."""
        return self.summary.get("stopped_by") in FAILED_STOPS or bool(self.summary.get("diverged"))

    @property
    def failure(self):
        """"diverged" or "collapsed" for a failed run, else None."""
        if not self.diverged:
            return None
        return "collapsed" if self.summary.get("stopped_by") == "collapsed" else "diverged"

    @property
    def target(self):
        return self.summary.get("target_accuracy")

    def missed_target(self):
        return self.target is not None and self.summary.get("time_to_target_s") is None

    def evals(self):
        """Evaluation rows: time_s (NaN for a baseline), test_accuracy, test_loss,
        perplexity, train_loss, bytes_sent, push_bytes."""
        if self.metrics is not None and "event" in self.metrics:
            e = self.metrics[self.metrics["event"] == "eval"]
            return e if len(e) else None
        return None


def _read_csv(path):
    return pd.read_csv(path) if os.path.exists(path) else None


def _plain_log2(axis):
    """A base-2 log axis labelled 1, 2, 4, 8 ... rather than 2^0, 2^1 ..."""
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(plain))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _log_y(ax):
    """A log y axis; its ticks are chosen for its range when the figure is saved
    (axes.tidy_log_axes)."""
    ax.set_yscale("log")


def _legend_outside(ax, extra=(), short=without_note, **kw):
    """The legend to the right of the axes, never over the data; curves that coincide are
    told apart first (axes.mark_identical, naming the earlier curve by `short`). `extra`:
    more (handle, label) pairs."""
    mark_identical(ax, short)
    handles, labels = ax.get_legend_handles_labels()
    handles, labels = handles + [h for h, _ in extra], labels + [text for _, text in extra]
    if handles:
        ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, **kw)


def _target_line(ax, target, language, reached_by_none=False):
    if target is not None and not language:
        ax.axhline(100 * target, color="black", linestyle="--", linewidth=0.8, alpha=0.6,
                   label=f"target {100 * target:g} %" + (": reached by no run" if reached_by_none else ""))


def _save(fig, out, name, written):
    tidy_log_axes(fig)
    os.makedirs(out, exist_ok=True)
    for ext in ("png", "svg"):
        target = os.path.join(out, f"{name}.{ext}")
        fig.savefig(target, dpi=130, bbox_inches="tight")
        written.append(target)
    plt.close(fig)


def _groups(runs_with_evals):
    """Runs that differ only by seed form one group: [(label, [(run, evals), ...]), ...]."""
    groups = {}
    for run, e in runs_with_evals:
        groups.setdefault(run.group_key, (run.group, []))[1].append((run, e))
    return list(groups.values())


def _outcome(members, say_missed=True):
    """' (diverged)', ' (2/3 seeds collapsed)', ' (target not reached)' ... for a legend
    (without the last when the figure says it once for every run)."""
    n = len(members)
    missed = sum(r.missed_target() and not r.diverged for r, _ in members) if say_missed else 0
    notes = []
    for failure in ("diverged", "collapsed"):
        count = sum(r.failure == failure for r, _ in members)
        if count:
            notes.append(failure if count == n else f"{count}/{n} seeds {failure}")
    if missed:
        notes.append("target not reached" if missed == n else f"{missed}/{n} seeds missed the target")
    return f" ({'; '.join(notes)})" if notes else ""


def _plot_group(ax, label, members, x_of, y_of, say_missed=True):
    """One line per run; for several seeds, their mean (evaluation by evaluation, up to the
    shortest run) with a band from the lowest to the highest. A diverged run gets a cross
    at its last evaluation (where the loss became NaN it stopped)."""
    label = label + _outcome(members, say_missed)
    if len(members) == 1:
        run, e = members[0]
        line, = ax.plot(x_of(e), y_of(e), marker=".", label=label)
    else:
        n = min(len(e) for _, e in members)
        xs = pd.concat([x_of(e).iloc[:n].reset_index(drop=True) for _, e in members], axis=1)
        ys = pd.concat([y_of(e).iloc[:n].reset_index(drop=True) for _, e in members], axis=1)
        x = xs.mean(axis=1)
        line, = ax.plot(x, ys.mean(axis=1), marker=".", label=f"{label}, {len(members)} seeds: mean, min-max")
        ax.fill_between(x, ys.min(axis=1), ys.max(axis=1), color=line.get_color(), alpha=0.15, linewidth=0)
    for run, e in members:
        if run.diverged:
            x, y = x_of(e), y_of(e)
            keep = x.notna() & y.notna()
            if keep.any():
                ax.plot([x[keep].iloc[-1]], [y[keep].iloc[-1]], color=line.get_color(), **DIVERGED)


def _diverged_handle():
    return matplotlib.lines.Line2D([], [], color="grey", **DIVERGED)


def _finish_legend(ax, any_diverged, extra=()):
    failed = [(_diverged_handle(), f"{FAILED_LEGEND}: last evaluation")] if any_diverged else []
    _legend_outside(ax, failed + list(extra))


def _event_marks(axes, runs):
    """Vertical lines at the crashes, recoveries and link changes of events.csv (of up to
    three runs: more would hide the curves); returns their legend entries (handle, label),
    one per event, so that no text is written over the data."""
    with_events = [r for r in runs if r.events is not None and len(r.events)]
    if not with_events or len(with_events) > 3:
        return []
    entries = {}
    for run in with_events:
        for _, e in run.events.iterrows():
            if e["kind"] not in EVENT_MARKS:
                continue
            color, style = EVENT_MARKS[e["kind"]]
            for ax in axes:
                ax.axvline(e["time_s"], color=color, linestyle=style, linewidth=0.9, alpha=0.7)
            target = f' {e["target"]}' if isinstance(e["target"], str) else ""
            text = f'{e["kind"].replace("_", " ")}{target} at {e["time_s"]:g} s'
            entries.setdefault(text, matplotlib.lines.Line2D([], [], color=color, linestyle=style, linewidth=0.9))
    return [(handle, text) for text, handle in entries.items()]


def plot_accuracy(runs, out, written):
    with_eval = [(r, r.evals()) for r in runs if r.evals() is not None]
    if not with_eval:
        return
    language = any(r.summary.get("final_perplexity") is not None for r, _ in with_eval)
    targets = {r.target for r, _ in with_eval if r.target is not None}
    target = targets.pop() if len(targets) == 1 else None
    any_diverged = any(r.diverged for r, _ in with_eval)

    def quality(e):
        return e["perplexity"] if language else 100 * e["test_accuracy"]

    # A target no run reached is said once, at the target's line, not in every run's entry.
    none_reached = target is not None and all(r.missed_target() for r, _ in with_eval)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 7), sharex=True)
    for label, members in _groups(with_eval):
        _plot_group(top, label, members, lambda e: e["time_s"], quality, not none_reached)
        losses = [(r, e.dropna(subset=["train_loss"])) for r, e in members]
        _plot_group(bottom, label, losses, lambda e: e["time_s"], lambda e: e["train_loss"])
    _target_line(top, target, language, none_reached)
    events = _event_marks([top, bottom], [r for r, _ in with_eval])
    top.set_ylabel("test perplexity (log scale)" if language else "test accuracy (%)")
    if language:  # it starts near the vocabulary size and ends two orders of magnitude lower
        _log_y(top)
    top.set_title("Held-out " + ("perplexity" if language else "accuracy") + " against simulated time")
    bottom.set_ylabel("training loss\n(mean since previous evaluation)")
    bottom.set_xlabel("simulated time (s)")
    _log_y(bottom)  # losses fall by decades early on
    top.grid(alpha=0.3)
    bottom.grid(alpha=0.3)
    _finish_legend(top, any_diverged, events)
    _save(fig, out, "accuracy_vs_time", written)

    with_bytes = [(r, e) for r, e in with_eval if "bytes_sent" in e and e["bytes_sent"].notna().any()]
    if not with_bytes:
        return
    # Gradient bytes get their own panel (log scale): compression acts on them, and the
    # parameters sent back can dwarf them in the total.
    pushed = all("push_bytes" in e and e["push_bytes"].gt(0).any() for _, e in with_bytes)
    fig, axes = plt.subplots(1, 2 if pushed else 1, figsize=(13 if pushed else 7.5, 4.5), squeeze=False)
    panels = [("bytes_sent", "all bytes sent (GB)")]
    if pushed:
        panels.append(("push_bytes", "gradient bytes sent: pushes, reduce steps (GB, log scale)"))
    for ax, (column, xlabel) in zip(axes[0], panels):
        log = column == "push_bytes"
        for label, members in _groups(with_bytes):
            # The log panel starts at the first evaluation with bytes pushed.
            kept = [(r, e[e[column] > 0] if log else e) for r, e in members]
            _plot_group(ax, label, kept, lambda e: e[column] / 1e9, quality)
        _target_line(ax, target, language)
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("test perplexity (log scale)" if language else "test accuracy (%)")
        if language:
            _log_y(ax)
        ax.grid(alpha=0.3)
    _finish_legend(axes[0][-1], any(r.diverged for r, _ in with_bytes))
    fig.suptitle("Held-out " + ("perplexity" if language else "accuracy") + " against bytes on the wire")
    _save(fig, out, "accuracy_vs_bytes", written)


def plot_epochs(runs, out, written):
    """Runs and baselines against epochs: the statistical efficiency of each setting."""
    curves = []
    for run in runs:
        e = run.evals()
        if e is not None and "epochs" in e:
            curves.append((run, run.label, e["epochs"], e["test_accuracy"], e.get("perplexity")))
        elif run.curve is not None:
            curves.append((run, run.label + " (one process)", run.curve["epoch"], run.curve["test_accuracy"],
                           run.curve.get("perplexity")))
    if not any(label.endswith("(one process)") for _, label, *_ in curves):
        return
    language = any(p is not None and p.notna().any() for *_, p in curves)
    targets = {r.target for r, *_ in curves if r.target is not None}
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for run, label, x, acc, ppl in curves:
        y = ppl if language else 100 * acc
        line, = ax.plot(x, y, marker=".", label=label + (" (diverged)" if run.diverged else ""),
                        linestyle="--" if label.endswith("(one process)") else "-")
        if run.diverged and len(x):
            ax.plot([x.iloc[-1]], [y.iloc[-1]], color=line.get_color(), **DIVERGED)
    _target_line(ax, targets.pop() if len(targets) == 1 else None, language)
    ax.set_xlabel("epochs (passes over the training data)")
    ax.set_ylabel("test perplexity (log scale)" if language else "test accuracy (%)")
    if language:
        _log_y(ax)
    ax.set_title("Held-out " + ("perplexity" if language else "accuracy") + " against epochs")
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    _save(fig, out, "accuracy_vs_epochs", written)


# ---- per-run figures ------------------------------------------------------------------------

def _link_class(name):
    """(class, direction) of a link direction 'a -> b' of pssim's topologies."""
    a, _, b = name.partition(" -> ")
    for host, what in (("worker-", "worker NICs"), ("server-", "server NICs")):
        if a.startswith(host):
            return what, "sending"
        if b.startswith(host):
            return what, "receiving"
    if a.startswith("tor-") and b == "core":
        return "rack uplinks", "up"
    if a == "core" and b.startswith("tor-"):
        return "rack uplinks", "down"
    return name, ""


def _rate(bytes_per_s):
    bits = 8 * bytes_per_s
    for unit, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bits >= scale:
            return f"{bits / scale:g} {unit}"
    return f"{bits:g} bps"


def _period_s(run):
    """A round (or, without rounds, a mean iteration) in seconds."""
    return iteration_s(run.path, run.summary) or None


def plot_link_utilization(run, out, written):
    """Utilization by link class: every class of several links (worker NICs, server NICs,
    rack uplinks, each direction) as a band from the least to the most used with the
    median, so that identical links cannot hide one another; single links alone. Means
    over windows of at least ten rounds (or iterations), drawn as steps, so that the
    recording's bins cannot alias with the rounds (a 10 ms bin against 24 ms rounds shows
    levels that never happened); a last window shorter than the others is left out, as it
    would alias too (a run shorter than one window is one window)."""
    series = _read_csv(os.path.join(run.path, "link_utilization.csv"))
    links = _read_csv(os.path.join(run.path, "links.csv"))
    if series is None or series.empty or links is None:
        return
    capacity = dict(zip(links["link"], links["capacity_Bps"]))
    table = series.pivot(index="time_s", columns="link", values="utilization").sort_index()
    times = table.index.to_numpy()
    bin_s = times[1] - times[0] if len(times) > 1 else run.summary.get("sim_time_s", 1.0)
    period = _period_s(run)
    k = max(1, math.ceil(10 * period / bin_s)) if period else 1
    windows = max(1, len(times) // k)  # whole windows only
    if len(times) >= k:
        table = table.iloc[: windows * k]
    else:
        k = len(times)
    table = table.groupby((pd.Series(range(len(table))) // k).to_numpy()).mean()
    edges = [times[0] + i * k * bin_s for i in range(len(table) + 1)]

    def steps(values):  # a window's mean held over its whole window
        return list(values) + [list(values)[-1]]

    classes = {}
    for link in table.columns:
        classes.setdefault(_link_class(link), []).append(link)
    # The busiest classes first; at most 6 on the figure.
    order = sorted(classes, key=lambda c: -table[classes[c]].mean().max())[:6]
    fig, ax = plt.subplots(figsize=(8.5, 4.5))
    for cls, direction in order:
        members = classes[(cls, direction)]
        caps = sorted({capacity.get(m, float("nan")) for m in members})
        cap_text = _rate(caps[0]) if len(caps) == 1 else f"{_rate(caps[0])}-{_rate(caps[-1])}"
        name = f"{cls}, {direction}" if direction else cls
        data = 100 * table[members]
        if len(members) > 1:
            line, = ax.step(edges, steps(data.median(axis=1)), where="post",
                            label=f"{name}: {len(members)} x {cap_text}, median, min-max")
            ax.fill_between(edges, steps(data.min(axis=1)), steps(data.max(axis=1)), step="post",
                            color=line.get_color(), alpha=0.2, linewidth=0)
        else:
            link = members[0]
            label = f"{name}: {link} ({cap_text})" if direction else f"{link} ({cap_text})"
            ax.step(edges, steps(data[link]), where="post", label=label)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("utilization (%)")
    ax.set_ylim(0, 105)
    what = f"mean over windows of {1e3 * k * bin_s:.4g} ms"
    if period:
        what += f" (about {k * bin_s / period:.3g} {'rounds' if run.summary.get('mean_round_s') else 'iterations'})"
    if len(table) == 1:
        what = f"mean over the run, {1e3 * k * bin_s:.4g} ms (shorter than ten rounds)"
    ax.set_title(f"Link utilization by class: {run.label}\n{what}", fontsize=10)
    ax.grid(alpha=0.3)
    _legend_outside(ax, short=lambda label: label.split(":")[0])  # the class, without its links
    _save(fig, out, "link_utilization", written)


def _parse_window(text):
    if text is None:
        return None
    try:
        start, end = (float(x) if x else None for x in text.split(":"))
    except ValueError:
        raise UsageError(f"--window {text}: expected START:END in simulated seconds, e.g. 0.5:1.2")
    if start is not None and end is not None and end <= start:
        raise UsageError(f"--window {text}: END must be after START")
    return start, end


def _default_window(spans):
    """The first rounds: until the median worker has finished 8 computations."""
    ends = []
    for w in {e["tid"] for e in spans}:
        computing = sorted(e["ts"] + e["dur"] for e in spans if e["tid"] == w and e["name"] == "computing")
        if len(computing) > 8:
            ends.append(computing[7])
    if not ends:
        return None
    ends.sort()
    return 0.0, ends[len(ends) // 2] / 1e6 * 1.05


def plot_timeline(run, out, written, window=None, max_workers=32):
    path = os.path.join(run.path, "trace.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") == "worker" and e["tid"] < max_workers]
    if not spans:
        return
    end_of_run = max(e["ts"] + e["dur"] for e in spans) / 1e6
    chosen = window if window is not None else _default_window(spans)
    start, end = chosen if chosen else (0.0, end_of_run)
    start = start if start is not None else 0.0
    end = end if end is not None else end_of_run
    workers = sorted({e["tid"] for e in spans})
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(workers) + 1.8))
    colors = dict(STATE_COLORS)
    if any(e["name"] == "down" for e in spans):
        colors["down"] = DOWN_COLOR
    for state, color in colors.items():
        for w in workers:
            bars = [(e["ts"] / 1e6, e["dur"] / 1e6) for e in spans if e["tid"] == w and e["name"] == state
                    and e["ts"] / 1e6 < end and (e["ts"] + e["dur"]) / 1e6 > start]
            if bars:
                ax.broken_barh(bars, (w - 0.4, 0.8), facecolors=color)
    ax.set_xlim(start, end)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("worker")
    ax.set_yticks(workers)
    shown = f"{start:.4g}-{end:.4g} s of {end_of_run:.4g} s"
    if window is None and chosen:
        shown += " (the first rounds; pssim plot --window START:END for others)"
    ax.set_title(f"Worker timeline: {run.label}\n{shown}", loc="left", fontsize=10)
    handles = [matplotlib.patches.Patch(color=c) for c in colors.values()]
    ax.legend(handles, colors.keys(), fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    _save(fig, out, "worker_timeline", written)


def plot_staleness(runs, out, written):
    hists = [(r, r.summary.get("staleness_histogram", [])) for r in runs]
    hists = [(r, h) for r, h in hists if sum(h) > 0 and len(h) > 1]
    if not hists:
        return
    lo = min(next(t for t, c in enumerate(h) if c > 0) for _, h in hists)
    hi = max(max(t for t, c in enumerate(h) if c > 0) for _, h in hists)
    fig, ax = plt.subplots(figsize=(8.5, 4.5))
    bars = len(hists) <= 3 and hi - lo <= 40
    width = 0.8 / len(hists)
    for i, (run, h) in enumerate(hists):
        total = sum(h)
        taus = list(range(lo, hi + 1))
        share = [100 * (h[t] if t < len(h) else 0) / total for t in taus]
        mean = sum(t * c for t, c in enumerate(h)) / total
        label = f"{run.label} (mean {mean:.3g})"
        if bars:
            ax.bar([t + (i - (len(hists) - 1) / 2) * width for t in taus], share, width=width, label=label)
        else:  # many runs or a wide range: outlines, one per run
            ax.step(taus, share, where="mid", label=label)
    ax.set_xlim(lo - 0.6, hi + 0.6)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("staleness (updates applied since the gradient's parameters were sent)")
    ax.set_ylabel("share of gradients (%)")
    ax.set_title("Staleness of applied gradients")
    ax.grid(alpha=0.3, axis="y")
    _legend_outside(ax)
    _save(fig, out, "staleness_histogram", written)


# ---- sweeps ---------------------------------------------------------------------------------

def _point_dir(path, row):
    return os.path.join(path, "points", f"{int(row['point']):04d}")


def _point_scenario(path, row):
    p = os.path.join(_point_dir(path, row), "scenario.yaml")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return yaml.safe_load(f)


def plot_sweep(path, out, written, label=None):
    """The sweep's own figures; returns its points as Runs, labelled by their settings
    (prefixed by `label`, which also replaces the sweep's name in its figures)."""
    full = pd.read_csv(os.path.join(path, "sweep.csv"))
    table = full[full["status"] == "ok"].copy()
    axes = [c for c in full.columns[2 : list(full.columns).index("status")]]
    name = label or os.path.basename(os.path.normpath(path))
    if table.empty:
        return []
    table["diverged_run"] = table["stopped_by"].isin(FAILED_STOPS)
    scenarios = {int(row["point"]): _point_scenario(path, row) for _, row in table.iterrows()}

    def others(key):
        """Axes that vary independently of `key` (zipped ones follow it and are left out)."""
        return [a for a in axes if a != key and table.groupby(key)[a].nunique().max() > 1]

    def lines(key):
        """(label, rows sorted by key) for each combination of the other axes."""
        group = others(key)
        if not group:
            yield name, table.sort_values(key)
            return
        for values, rows in table.groupby(group if len(group) > 1 else group[0], sort=False):
            values = values if isinstance(values, tuple) else (values,)
            label = setting_label(dict(zip(group, values)), scenarios[int(rows.iloc[0]["point"])])
            yield label, rows.sort_values(key)

    def setup_log2_x(ax, label):
        ax.set_xlabel(label)
        ax.set_xscale("log", base=2)
        _plain_log2(ax.xaxis)

    shard_key = next((a for a in axes if a.endswith("servers.shards")), None)
    if shard_key and table["mean_round_s"].notna().any():
        fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 4.5))
        bound_drawn = False
        for label, rows in lines(shard_key):
            agg = rows.groupby(shard_key).mean(numeric_only=True).reset_index()
            line, = left.plot(agg[shard_key], 1e3 * agg["mean_round_s"], marker="o", label=label, linestyle="none")
            color = line.get_color()
            right.plot(agg[shard_key], agg["rounds"] / agg["sim_time_s"], marker="o", label=label, color=color)
            # References: the closed form (exact on a star), the ideal 1/S from one shard,
            # and the bound of the workers' own NICs, which no number of shards removes.
            first = rows.sort_values(shard_key).iloc[0]
            forms = [round_time(scenarios[int(r["point"])]) for _, r in rows.sort_values(shard_key).iterrows()]
            xs = sorted(rows[shard_key].unique())
            if all(f is not None for f in forms) and forms:
                exact = rows.sort_values(shard_key).assign(form=forms).groupby(shard_key)["form"].mean()
                left.plot(exact.index, 1e3 * exact.values, linestyle="--", color=color, linewidth=1)
            one = agg[agg[shard_key] == xs[0]]["mean_round_s"].iloc[0] * xs[0]
            left.plot(xs, [1e3 * one / x for x in xs], linestyle=":", color=color, linewidth=1)
            bound = worker_nic_bound(scenarios[int(first["point"])])
            if bound:
                left.axhline(1e3 * bound, color=color, linestyle="-.", linewidth=0.8, alpha=0.7)
                bound_drawn = True
        handles, labels = left.get_legend_handles_labels()
        handles += [matplotlib.lines.Line2D([], [], linestyle="--", color="grey"),
                    matplotlib.lines.Line2D([], [], linestyle=":", color="grey")]
        labels += ["closed form 2 max(M/B_w, N M/(S B_s)) + latency + compute", "ideal: one shard's time / S"]
        if bound_drawn:
            handles.append(matplotlib.lines.Line2D([], [], linestyle="-.", color="grey"))
            labels.append("workers' NIC bound 2 M/B_w + latency + compute")
        left.set_ylabel("mean round time (ms, log scale)")
        _log_y(left)
        right.set_ylabel("throughput (rounds per simulated second)")
        for ax in (left, right):
            setup_log2_x(ax, "parameter shards (one per server)")
            ax.grid(alpha=0.3, which="both")
        fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, bbox_to_anchor=(0.5, -0.02))
        fig.suptitle("Round time and throughput against the number of shards (markers: simulated)")
        fig.tight_layout(rect=(0, 0.12, 1, 1))
        _save(fig, out, "round_time_vs_shards", written)

    worker_key = next((a for a in axes if a.endswith("workers.count")), None)
    if worker_key:
        _sweep_against_workers(table, worker_key, lines, setup_log2_x, out, written)

    if all(is_categorical(table[a].unique()) for a in axes):
        _plot_by_setting(path, table, axes, scenarios, name, out, written)

    checkpoint_key = next((a for a in axes if a.endswith("checkpoint.every")), None)
    if checkpoint_key and len(axes) == 1:
        first = scenarios[int(table.iloc[0]["point"])]
        target = (first.get("training") or {}).get("target_accuracy")
        plot_checkpoint_interval(table, checkpoint_key, target, _plain_log2, _save, out, written)

    # Every point's curves on shared axes, labelled by its swept values; the seeds of one
    # setting are drawn as their mean and spread.
    runs = []
    for _, row in table.iterrows():
        point = _point_dir(path, row)
        group = setting_label({a: row[a] for a in axes}, scenarios[int(row["point"])]) or name
        if label and group != name:
            group = f"{label}: {group}"
        runs.append(Run(point, f"{group}, seed {row['seed']}", group))
    return runs


def _plot_by_setting(path, table, axes, scenarios, name, out, written):
    """results_by_setting (settings_plot.py) for a sweep of names: one bar per setting."""
    language = table["final_perplexity"].notna().any() if "final_perplexity" in table else False
    settings = {}
    for _, row in table.iterrows():
        label = setting_label({a: row[a] for a in axes}, scenarios[int(row["point"])]) or name
        with open(os.path.join(_point_dir(path, row), "summary.json")) as f:
            summary = json.load(f)
        iteration = iteration_s(_point_dir(path, row), summary)
        settings.setdefault(label, []).append({
            "best": row["final_perplexity"] if language else 100 * row["best_test_accuracy"],
            "ttt_s": row.get("time_to_target_s"), "has_target": "target_accuracy" in summary,
            "iteration_ms": None if iteration is None else 1e3 * iteration, "failed": bool(row["diverged_run"])})
    plot_settings(list(settings.items()), language, _save, out, written)


def point_label(path):
    """The label of one sweep point given alone (DIR/points/NNNN): its swept values, as the
    sweep's own figures name it; None for a path that is not a sweep point."""
    points = os.path.dirname(os.path.normpath(path))
    sweep = os.path.dirname(points)
    table = os.path.join(sweep, "sweep.csv")
    if os.path.basename(points) != "points" or not os.path.exists(table) or not _name(path).isdigit():
        return None
    full = pd.read_csv(table)
    rows = full[full["point"] == int(_name(path))]
    if rows.empty:
        return None
    row = rows.iloc[0]
    axes = [c for c in full.columns[2 : list(full.columns).index("status")]]
    with open(os.path.join(path, "scenario.yaml")) as f:
        setting = setting_label({a: row[a] for a in axes}, yaml.safe_load(f))
    return f"{_name(sweep)}: {setting}" if setting else f"{_name(sweep)} point {int(_name(path))}"


def _sweep_against_workers(table, worker_key, lines, setup_log2_x, out, written):
    """time_to_target_vs_workers, accuracy_vs_workers, staleness_vs_workers: one line per
    setting of the other axes; seeds averaged; failures drawn, not dropped."""

    def figure(name, ylabel, title, draw, log_y=False, note=None):
        fig, ax = plt.subplots(figsize=(8.5, 4.5))
        extra = draw(ax)
        setup_log2_x(ax, "workers")
        ax.set_ylabel(ylabel)
        if log_y:
            ax.set_yscale("log", base=2)
            _plain_log2(ax.yaxis)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        _legend_outside(ax, extra or [])
        if note:
            fig.text(0.01, -0.02, note, fontsize=8, ha="left", va="top")
        _save(fig, out, name, written)

    has_target = "time_to_target_s" in table and table.get("target_accuracy") is not None
    targets = table["target_accuracy"].dropna().unique() if "target_accuracy" in table else []
    if len(targets) or table["time_to_target_s"].notna().any():
        def draw_ttt(ax):
            reached_max = table["time_to_target_s"].max()
            top = (reached_max if pd.notna(reached_max) else 1.0) * 1.25
            row_y = top * 1.1  # the "not reached" row above every reached value
            legend = []
            any_missed = any_diverged = False
            series = list(lines(worker_key))
            for index, (label, rows) in enumerate(series):
                # Lines that all missed at the same N would stack their markers on the
                # "not reached" row and hide one another: spread them a little around N.
                dodge = 2 ** (0.06 * (index - (len(series) - 1) / 2))
                xs, ys, miss_x, div_x, notes = [], [], [], [], []
                for n, seeds in rows.groupby(worker_key):
                    reached = seeds["time_to_target_s"].dropna()
                    if len(reached):
                        xs.append(n)
                        ys.append(reached.mean())
                        if len(reached) < len(seeds):
                            notes.append((n, reached.mean(), f"{len(reached)}/{len(seeds)} seeds"))
                    elif seeds["diverged_run"].all():
                        div_x.append(n)
                    else:
                        miss_x.append(n)
                line, = ax.plot(xs, ys, marker="o", label=label)
                color = line.get_color()
                if miss_x:
                    ax.plot([n * dodge for n in miss_x], [row_y] * len(miss_x), marker="^", markerfacecolor="none", markersize=10,
                            linestyle="none", color=color)
                if div_x:
                    ax.plot([n * dodge for n in div_x], [row_y] * len(div_x), color=color, **DIVERGED)
                any_missed, any_diverged = any_missed or bool(miss_x), any_diverged or bool(div_x)
                for n, y, text in notes:
                    ax.annotate(text, (n, y), textcoords="offset points", xytext=(4, 4), fontsize=7, color=color)
            ax.axhline(row_y * 0.96, color="grey", linewidth=0.6, linestyle=":")
            ax.set_ylim(0, row_y * 1.08)
            ticks = [t for t in ax.get_yticks() if 0 <= t < row_y * 0.95]
            ax.set_yticks(ticks + [row_y])
            ax.set_yticklabels([f"{t:g}" for t in ticks] + ["not reached"])
            if any_missed:
                legend.append((matplotlib.lines.Line2D([], [], marker="^", markerfacecolor="none", markersize=9,
                                                       linestyle="none", color="grey"), "target not reached in the run"))
            if any_diverged:
                legend.append((_diverged_handle(), FAILED_LEGEND))
            return legend

        target_text = f" of {100 * targets[0]:g} %" if len(targets) == 1 else ""
        figure("time_to_target_vs_workers", f"simulated time to the target{target_text} (s)",
               f"Time to target accuracy{target_text} against the number of workers", draw_ttt)

    if table["best_test_accuracy"].notna().any():
        def draw_acc(ax):
            for label, rows in lines(worker_key):
                agg = rows.groupby(worker_key).agg(best=("best_test_accuracy", "mean"),
                                                   diverged=("diverged_run", "any")).reset_index()
                line, = ax.plot(agg[worker_key], 100 * agg["best"], marker="o", label=label)
                bad = agg[agg["diverged"]]
                if len(bad):
                    ax.plot(bad[worker_key], 100 * bad["best"], color=line.get_color(), **DIVERGED)
            if len(targets) == 1:
                ax.axhline(100 * targets[0], color="black", linestyle="--", linewidth=0.8, alpha=0.6,
                           label=f"target {100 * targets[0]:g} %")
            if not table["diverged_run"].any():
                return []  # no cross drawn: no legend entry for one
            return [(_diverged_handle(), f"{FAILED_LEGEND}: best accuracy before")]

        figure("accuracy_vs_workers", "best test accuracy (%)", "Best test accuracy against the number of workers",
               draw_acc)

    if (table["mean_staleness"] > 0).any():
        def draw_staleness(ax):
            for label, rows in lines(worker_key):
                agg = rows.groupby(worker_key).mean(numeric_only=True).reset_index()
                if (agg["max_staleness"] <= 0).all():  # sync: no point on a log axis, but said
                    ax.plot([], [], marker="o", linestyle="none", markerfacecolor="none",
                            label=f"{label}: 0 at every point (not drawn on the log axis)")
                    continue
                line = ax.plot(agg[worker_key], agg["mean_staleness"], marker="o", label=f"{label} (mean)")
                ax.plot(agg[worker_key], agg["max_staleness"], marker="x", linestyle=":", color=line[0].get_color(),
                        label=f"{label} (max)")
            n = sorted(table[worker_key].unique())
            ax.plot(n, [x - 1 for x in n], color="grey", linewidth=0.8, linestyle="--", label="N - 1")
            return []

        figure("staleness_vs_workers", "staleness (updates, log scale)",
               "Staleness of applied gradients against the number of workers", draw_staleness, log_y=True)


def _network_label(s):
    n = s["network"]
    if n["topology"] == "two-tier":
        return f"two-tier: {n['racks']} racks, uplinks oversubscribed {n['oversubscription']}:1"
    return n["topology"]


def plot_schemes(paths, out, written):
    """Iteration time against workers for every scheme found in the sweeps over
    cluster.workers.count: one panel per network, one line per scheme, its closed form
    dashed where there is one."""
    rows = []
    for path in paths:
        table = pd.read_csv(os.path.join(path, "sweep.csv"))
        if not any(c.endswith("workers.count") for c in table.columns):
            continue
        for _, row in table[table["status"] == "ok"].iterrows():
            s = _point_scenario(path, row)
            if pd.isna(row["mean_round_s"]) or s is None:
                continue
            rows.append({"network": _network_label(s), "scheme": scheme_label(s),
                         "workers": int(s["cluster"]["workers"]["count"]), "round_s": row["mean_round_s"],
                         "closed_form_s": round_time(s) or float("nan")})
    if not rows:
        return
    data = pd.DataFrame(rows)
    if data["scheme"].nunique() < 2:
        return
    networks = sorted(data["network"].unique(), key=lambda n: (n != "star", n))
    schemes = sorted(data["scheme"].unique())
    style = {scheme: (f"C{i}", "osD^vPX*"[i % 8]) for i, scheme in enumerate(schemes)}
    # Top row: every scheme, log scale. Bottom row: the fastest ones, linear, zoomed in.
    fast = data.groupby("scheme")["round_s"].min()
    zoom = 1e3 * 4 * fast.min()
    fig, axes = plt.subplots(2, len(networks), figsize=(6.5 * len(networks), 8.5), squeeze=False, sharex=True)
    for column, network in enumerate(networks):
        for row in (0, 1):
            ax = axes[row][column]
            for scheme in schemes:
                d = data[(data["network"] == network) & (data["scheme"] == scheme)]
                d = d.groupby("workers").mean(numeric_only=True)
                if d.empty or (row == 1 and 1e3 * d["round_s"].min() > zoom):
                    continue
                color, marker = style[scheme]
                exact = d["closed_form_s"].notna().all()
                # Where a closed form exists it is the line, and the simulation the markers.
                ax.plot(d.index, 1e3 * d["round_s"], marker=marker, color=color, label=scheme,
                        linestyle="none" if exact else "-", linewidth=1)
                if exact:
                    ax.plot(d.index, 1e3 * d["closed_form_s"], linestyle="--", color=color, linewidth=1)
            ax.set_xscale("log", base=2)
            _plain_log2(ax.xaxis)
            ax.grid(alpha=0.3, which="both")
            if row == 0:
                _log_y(ax)
                ax.set_title(network, fontsize=10)
            else:
                ax.set_ylim(0, zoom)
                ax.set_xlabel("workers")
        axes[0][column].set_ylabel("iteration time (ms, log scale)")
        axes[1][column].set_ylabel(f"iteration time (ms), schemes under {zoom:.0f} ms")
    handles, labels = {}, []
    for ax in axes.flat:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    handles["closed form (star: exact)"] = matplotlib.lines.Line2D([], [], linestyle="--", color="grey")
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("Iteration time against the number of workers (synchronous, timing only)")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    _save(fig, out, "iteration_time_vs_workers", written)


# ---- where the figures go --------------------------------------------------------------------

def _name(path):
    return os.path.basename(os.path.normpath(path))


def combined_folder(paths, output):
    """OUT, PATH/plots for one input, or a folder named for the comparison beside the first."""
    if output:
        return output
    if len(paths) == 1:
        return os.path.join(paths[0], "plots")
    name = "plots-" + "-vs-".join(_name(p) for p in paths)
    if len(name) > 120:
        name = name[:100] + f"-and-{len(paths)}-inputs"
    return os.path.join(os.path.dirname(os.path.normpath(paths[0])) or ".", name)


def run_folder(path, paths, output):
    """Where one input's own figures go."""
    if len(paths) == 1:
        return output or os.path.join(path, "plots")
    return os.path.join(output, _name(path)) if output else os.path.join(path, "plots")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("-o", "--output")
    parser.add_argument("--window", help="worker timelines: START:END in simulated seconds (either may be empty)")
    parser.add_argument("--per-point", action="store_true",
                        help="also each sweep point's own figures (link utilization, timeline)")
    parser.add_argument("--label", action="append", default=[],
                        help="names the paths in legends, in order (a run's label replaces its name, a sweep's "
                             "prefixes its settings); repeatable")
    args = parser.parse_args()
    if len(args.label) > len(args.paths):
        print(f"pssim plot: {len(args.label)} labels for {len(args.paths)} paths", file=sys.stderr)
        return 2
    labels = args.label + [None] * (len(args.paths) - len(args.label))
    try:
        window = _parse_window(args.window)
    except UsageError as e:
        print(f"pssim plot: {e}", file=sys.stderr)
        return 2
    out = combined_folder(args.paths, args.output)
    written = []
    runs = []
    own = []  # (run, folder): inputs' own figures
    sweeps = []
    for path, label in zip(args.paths, labels):
        if os.path.exists(os.path.join(path, "sweep.csv")):
            points = plot_sweep(path, out, written, label) or []
            runs += points
            sweeps.append(path)
            folder = run_folder(path, args.paths, args.output)
            if args.per_point:  # one figure per point costs seconds each: only on request
                own += [(p, os.path.join(folder, "points", _name(p.path))) for p in points]
        elif os.path.exists(os.path.join(path, "curve.csv")):
            runs.append(Run(path, label))  # a baseline from `pssim train`
        elif os.path.exists(os.path.join(path, "summary.json")):
            runs.append(Run(path, label or point_label(path)))
            own.append((runs[-1], run_folder(path, args.paths, args.output)))
        else:
            print(f"pssim plot: {path}: no summary.json, curve.csv or sweep.csv: not a pssim result", file=sys.stderr)
            return 2
    plot_schemes(sweeps, out, written)
    plot_overlap(sweeps, _point_scenario, _save, out, written)
    plot_accuracy(runs, out, written)
    plot_epochs(runs, out, written)
    plot_staleness(runs, out, written)
    for run, folder in own:
        plot_link_utilization(run, folder, written)
        plot_timeline(run, folder, written, window)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    command_main.run(main, "plot")
