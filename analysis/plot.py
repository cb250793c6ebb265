#!/usr/bin/env python3
"""Figures from pssim results (run with /usr/bin/python3: Debian's matplotlib and pandas).

    plot.py [-o OUT] PATH...

Each PATH is a run directory (summary.json), a baseline directory (curve.csv, from
`pssim train`) or a sweep directory (sweep.csv and points/). Every figure that the inputs
allow is written to OUT (default: <first PATH>/plots) as PNG and SVG:

  accuracy_vs_time      test accuracy and training loss against simulated time, one line
                        per run (perplexity for language models)
  accuracy_vs_bytes     test accuracy against bytes sent
  accuracy_vs_epochs    test accuracy against passes over the data, with `pssim train`
                        baselines (the single-process reference curve)
  time_to_target_vs_workers   sweeps over cluster.workers.count with a target accuracy
  accuracy_vs_workers   sweeps over cluster.workers.count: best test accuracy
  staleness_vs_workers  sweeps over cluster.workers.count (async, SSP): mean and max staleness
  round_time_vs_shards  sweeps over cluster.servers.shards: round time and throughput
  iteration_time_vs_workers   sweeps over cluster.workers.count of several schemes (PS,
                        colocated PS, all-reduce ...): iteration time per scheme, one panel
                        per network, closed forms dashed where they are exact
  link_utilization      per run: utilization of the busiest link directions over time
  staleness_histogram   per run (async and SSP): staleness of the applied gradients
  worker_timeline       per run with trace.json: each worker's states over time

Prints the files it wrote. Exit status 2 when a path holds no pssim results, 1 when the
figures cannot be drawn or written (one line on stderr; PSSIM_DEBUG=1 for the traceback).
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.lines  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from closed_forms import round_time  # noqa: E402

STATE_COLORS = {"computing": "#2e7d32", "pushing": "#1565c0", "pulling": "#6a1b9a", "blocked": "#bdbdbd"}


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

    def evals(self):
        """Evaluation rows: time_s (NaN for a baseline), test_accuracy, test_loss,
        perplexity, train_loss, bytes_sent, push_bytes."""
        if self.metrics is not None and "event" in self.metrics:
            e = self.metrics[self.metrics["event"] == "eval"]
            return e if len(e) else None
        return None


def _read_csv(path):
    return pd.read_csv(path) if os.path.exists(path) else None


def _log_y(ax):
    """A log y axis labelled at 1, 2 and 5 times the powers of ten, in plain numbers."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _save(fig, out, name, written):
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


def _plot_group(ax, label, members, x_of, y_of):
    """One line per run; for several seeds, their mean (evaluation by evaluation, up to the
    shortest run) with a band from the lowest to the highest."""
    if len(members) == 1:
        run, e = members[0]
        ax.plot(x_of(e), y_of(e), marker=".", label=label)
        return
    n = min(len(e) for _, e in members)
    xs = pd.concat([x_of(e).iloc[:n].reset_index(drop=True) for _, e in members], axis=1)
    ys = pd.concat([y_of(e).iloc[:n].reset_index(drop=True) for _, e in members], axis=1)
    x = xs.mean(axis=1)
    line, = ax.plot(x, ys.mean(axis=1), marker=".", label=f"{label} ({len(members)} seeds: mean, min-max)")
    ax.fill_between(x, ys.min(axis=1), ys.max(axis=1), color=line.get_color(), alpha=0.15, linewidth=0)


def plot_accuracy(runs, out, written):
    with_eval = [(r, r.evals()) for r in runs if r.evals() is not None]
    if not with_eval:
        return
    language = any(r.summary.get("final_perplexity") is not None for r, _ in with_eval)

    def quality(e):
        return e["perplexity"] if language else 100 * e["test_accuracy"]

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 7), sharex=True)
    for label, members in _groups(with_eval):
        _plot_group(top, label, members, lambda e: e["time_s"], quality)
        losses = [(r, e.dropna(subset=["train_loss"])) for r, e in members]
        _plot_group(bottom, label, losses, lambda e: e["time_s"], lambda e: e["train_loss"])
    # Accuracy rises toward the upper right, perplexity falls toward the lower right.
    corner = "upper right" if language else "lower right"
    top.set_ylabel("test perplexity (log scale)" if language else "test accuracy (%)")
    if language:  # it starts near the vocabulary size and ends two orders of magnitude lower
        _log_y(top)
    top.set_title("Held-out " + ("perplexity" if language else "accuracy") + " against simulated time")
    bottom.set_ylabel("training loss (mean since previous evaluation)")
    bottom.set_xlabel("simulated time (s)")
    top.grid(alpha=0.3)
    top.legend(fontsize=8, loc=corner)
    bottom.grid(alpha=0.3)
    bottom.legend(fontsize=8, loc="upper right")
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
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("test perplexity (log scale)" if language else "test accuracy (%)")
        if language:
            _log_y(ax)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc=corner)
    fig.suptitle("Held-out " + ("perplexity" if language else "accuracy") + " against bytes on the wire")
    _save(fig, out, "accuracy_vs_bytes", written)


def plot_epochs(runs, out, written):
    """Runs and baselines against epochs: the statistical efficiency of each setting."""
    curves = []
    for run in runs:
        e = run.evals()
        if e is not None and "epochs" in e:
            curves.append((run.label, e["epochs"], e["test_accuracy"], e.get("perplexity")))
        elif run.curve is not None:
            curves.append((run.label + " (one process)", run.curve["epoch"], run.curve["test_accuracy"],
                           run.curve.get("perplexity")))
    if not any(label.endswith("(one process)") for label, *_ in curves):
        return
    language = any(p is not None and p.notna().any() for *_, p in curves)
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for label, x, acc, ppl in curves:
        ax.plot(x, ppl if language else 100 * acc, marker=".", label=label,
                linestyle="--" if label.endswith("(one process)") else "-")
    ax.set_xlabel("epochs (passes over the training data)")
    ax.set_ylabel("test perplexity" if language else "test accuracy (%)")
    ax.set_title("Held-out " + ("perplexity" if language else "accuracy") + " against epochs")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, out, "accuracy_vs_epochs", written)


def plot_link_utilization(run, out, written, suffix):
    series = _read_csv(os.path.join(run.path, "link_utilization.csv"))
    if series is None or series.empty:
        return
    busiest = series.groupby("link")["utilization"].mean().sort_values(ascending=False).index[:6]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for link in busiest:
        s = series[series["link"] == link]
        ax.step(s["time_s"], 100 * s["utilization"], where="post", label=link)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("utilization (%)")
    ax.set_ylim(0, 105)
    ax.set_title(f"Busiest link directions over time: {run.label}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    _save(fig, out, f"link_utilization{suffix}", written)


def plot_staleness(runs, out, written):
    hists = [(r, r.summary.get("staleness_histogram", [])) for r in runs]
    hists = [(r, h) for r, h in hists if sum(h) > 0 and len(h) > 1]
    if not hists:
        return
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    width = 0.8 / len(hists)
    for i, (run, h) in enumerate(hists):
        total = sum(h)
        xs = [tau + (i - (len(hists) - 1) / 2) * width for tau in range(len(h))]
        ax.bar(xs, [100 * c / total for c in h], width=width, label=run.label)
    ax.set_xlabel("staleness (updates applied since the gradient's parameters were sent)")
    ax.set_ylabel("share of gradients (%)")
    ax.set_title("Staleness of applied gradients")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    _save(fig, out, "staleness_histogram", written)


def plot_timeline(run, out, written, suffix, max_workers=32):
    path = os.path.join(run.path, "trace.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") == "worker" and e["tid"] < max_workers]
    if not spans:
        return
    workers = sorted({e["tid"] for e in spans})
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(workers) + 1.5))
    for state, color in STATE_COLORS.items():
        for w in workers:
            bars = [(e["ts"] / 1e6, e["dur"] / 1e6) for e in spans if e["tid"] == w and e["name"] == state]
            if bars:
                ax.broken_barh(bars, (w - 0.4, 0.8), facecolors=color, label=state if w == workers[0] else None)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("worker")
    ax.set_title(f"Worker timeline: {run.label}", loc="left")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in STATE_COLORS.values()]
    ax.legend(handles, STATE_COLORS.keys(), fontsize=8, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=4)
    _save(fig, out, f"worker_timeline{suffix}", written)


def plot_sweep(path, out, written):
    table = pd.read_csv(os.path.join(path, "sweep.csv"))
    table = table[table["status"] == "ok"]
    axes = [c for c in table.columns[2 : list(table.columns).index("status")]]
    name = os.path.basename(os.path.normpath(path))

    def short(axis):
        return ".".join(axis.split(".")[-2:])

    def others(key):
        """Axes that vary independently of `key` (zipped ones follow it and are left out)."""
        return [a for a in axes if a != key and table.groupby(key)[a].nunique().max() > 1]

    def lines(key):
        """(label, rows sorted by key) for each combination of the other axes."""
        group = others(key)
        if not group:
            yield name, table.sort_values(key)
            return
        for values, rows in table.groupby(group if len(group) > 1 else group[0]):
            values = values if isinstance(values, tuple) else (values,)
            label = ", ".join(f"{short(g)}={v}" for g, v in zip(group, values))
            yield label, rows.sort_values(key)

    shard_key = next((a for a in axes if a.endswith("servers.shards")), None)
    if shard_key and table["mean_round_s"].notna().any():
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
        for label, rows in lines(shard_key):
            agg = rows.groupby(shard_key).mean(numeric_only=True).reset_index()
            left.plot(agg[shard_key], 1e3 * agg["mean_round_s"], marker="o", label=label)
            right.plot(agg[shard_key], agg["rounds"] / agg["sim_time_s"], marker="o", label=label)
        left.set_ylabel("mean round time (ms)")
        right.set_ylabel("throughput (rounds per simulated second)")
        for ax in (left, right):
            ax.set_xlabel("parameter shards")
            ax.set_xscale("log", base=2)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle("Round time and throughput against the number of shards")
        _save(fig, out, "round_time_vs_shards", written)

    worker_key = next((a for a in axes if a.endswith("workers.count")), None)

    def against_workers(figure, ylabel, title, draw, log_y=False):
        """One line per setting of the other axes: draw(ax, agg, label) plots the
        seed-averaged rows `agg` against worker_key."""
        fig, ax = plt.subplots(figsize=(7.5, 4.5))
        for label, rows in lines(worker_key):
            draw(ax, rows.groupby(worker_key).mean(numeric_only=True).reset_index(), label)
        ax.set_xlabel("workers")
        ax.set_ylabel(ylabel)
        ax.set_xscale("log", base=2)
        if log_y:
            ax.set_yscale("log", base=2)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        _save(fig, out, figure, written)

    def draw_staleness(ax, agg, label):
        line = ax.plot(agg[worker_key], agg["mean_staleness"], marker="o", label=f"{label} (mean)")
        ax.plot(agg[worker_key], agg["max_staleness"], marker="x", linestyle=":", color=line[0].get_color(),
                label=f"{label} (max)")

    if worker_key and table["time_to_target_s"].notna().any():
        against_workers("time_to_target_vs_workers", "simulated time to target accuracy (s)",
                        "Time to target accuracy against the number of workers",
                        lambda ax, agg, label: ax.plot(agg[worker_key], agg["time_to_target_s"], marker="o",
                                                       label=label))
    if worker_key and table["best_test_accuracy"].notna().any():
        against_workers("accuracy_vs_workers", "best test accuracy (%)",
                        "Best test accuracy against the number of workers",
                        lambda ax, agg, label: ax.plot(agg[worker_key], 100 * agg["best_test_accuracy"], marker="o",
                                                       label=label))
    if worker_key and (table["mean_staleness"] > 0).any():
        against_workers("staleness_vs_workers", "staleness (updates)",
                        "Staleness of applied gradients against the number of workers", draw_staleness, log_y=True)

    # Every point's curves on shared axes, labelled by its swept values; the seeds of one
    # setting are drawn as their mean and spread.
    runs = []
    for _, row in table.iterrows():
        point = os.path.join(path, "points", f"{int(row['point']):04d}")
        group = ", ".join(f"{short(a)}={row[a]}" for a in axes) or name
        runs.append(Run(point, f"{group}, seed={row['seed']}", group))
    return runs


def _scheme_label(s):
    """'PS, 8 servers', 'colocated PS', 'ring all-reduce' ... from a resolved scenario."""
    protocol, mode = s["protocol"], s["protocol"]["mode"]
    if mode in ("allreduce", "hybrid"):
        label = f"{protocol['algorithm']} all-reduce"
        return label + (" + PS embedding (hybrid)" if mode == "hybrid" else "")
    servers = s["cluster"]["servers"]
    prefix = "PS" if mode == "sync" else f"{mode} PS"
    if servers["placement"] == "colocated":
        return f"colocated {prefix} (a shard on every worker)"
    count = int(servers["count"])
    return f"{prefix}, {count} server{'s' if count > 1 else ''}"


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
            point = os.path.join(path, "points", f"{int(row['point']):04d}")
            with open(os.path.join(point, "scenario.yaml")) as f:
                s = yaml.safe_load(f)
            if pd.isna(row["mean_round_s"]):
                continue
            rows.append({"network": _network_label(s), "scheme": _scheme_label(s),
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
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    out = args.output or os.path.join(args.paths[0], "plots")
    os.makedirs(out, exist_ok=True)
    written = []
    runs = []
    single_runs = []  # runs given directly: they also get per-run figures
    sweeps = []
    for path in args.paths:
        if os.path.exists(os.path.join(path, "sweep.csv")):
            runs += plot_sweep(path, out, written) or []
            sweeps.append(path)
        elif os.path.exists(os.path.join(path, "curve.csv")):
            runs.append(Run(path))  # a baseline from `pssim train`
        elif os.path.exists(os.path.join(path, "summary.json")):
            runs.append(Run(path))
            single_runs.append(runs[-1])
        else:
            print(f"plot.py: {path}: no summary.json, curve.csv or sweep.csv: not a pssim result", file=sys.stderr)
            return 2
    plot_schemes(sweeps, out, written)
    plot_accuracy(runs, out, written)
    plot_epochs(runs, out, written)
    plot_staleness(runs, out, written)
    for i, run in enumerate(single_runs):
        suffix = "" if len(single_runs) == 1 else f"_{run.label}"
        plot_link_utilization(run, out, written, suffix)
        plot_timeline(run, out, written, suffix)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # one line for the user; PSSIM_DEBUG=1 shows the traceback
        if os.environ.get("PSSIM_DEBUG"):
            raise
        print(f"pssim plot: error: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
