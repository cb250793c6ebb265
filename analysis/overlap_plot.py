"""iteration_time_vs_bandwidth: sweeps over protocol.overlap and protocol.schedule against
the workers' NIC bandwidth (scenarios/sweeps/overlap-*.yaml).

One column per sweep (a model's layer profile). Top: iteration time against bandwidth,
one line per overlap mode (colour) and schedule (solid fifo, dashed priority), with the
compute time (batch x FLOPs / throughput), the floor no overlap can go below, dotted.
Bottom: the speed-up of priority over fifo for each overlap mode, and of full overlap
with priority over no overlap with fifo (today's pssim, and a system without either).
"""
import os

import matplotlib.lines
import matplotlib.ticker
import matplotlib.pyplot as plt
import pandas as pd

from closed_forms import _bandwidth, _flops

OVERLAPS = ["none", "backward", "full"]
COLORS = {"none": "C0", "backward": "C1", "full": "C2"}


def _compute_s(s):
    """One iteration's compute: batch x FLOPs per sample / throughput."""
    try:
        return (float(s["data"]["batch_size"]) * _flops(s["model"]["flops_per_sample"]) /
                _flops(s["cluster"]["workers"]["throughput"]))
    except (KeyError, TypeError, AttributeError):
        return None


def _table(path, point_scenario):
    """Rows of one sweep: overlap, schedule, Gbps, iteration time; and its compute time."""
    table = pd.read_csv(os.path.join(path, "sweep.csv"))
    needed = {"protocol.overlap", "protocol.schedule", "network.worker_nic.bandwidth"}
    if not needed <= set(table.columns):
        return None, None
    table = table[(table["status"] == "ok") & table["mean_round_s"].notna()].copy()
    if table.empty:
        return None, None
    table["gbps"] = [8 * _bandwidth(b) / 1e9 for b in table["network.worker_nic.bandwidth"]]
    compute = _compute_s(point_scenario(path, table.iloc[0]) or {})
    return table, compute


def plot_overlap(paths, point_scenario, save, out, written):
    """Writes iteration_time_vs_bandwidth when some sweep varies overlap and schedule."""
    sweeps = []
    for path in paths:
        table, compute = _table(path, point_scenario)
        if table is not None:
            sweeps.append((os.path.basename(os.path.normpath(path)), table, compute))
    if not sweeps:
        return
    fig, axes = plt.subplots(2, len(sweeps), figsize=(6.5 * len(sweeps), 8.5), squeeze=False, sharex=True)
    for column, (name, table, compute) in enumerate(sweeps):
        top, bottom = axes[0][column], axes[1][column]
        mean = table.groupby(["protocol.overlap", "protocol.schedule", "gbps"])["mean_round_s"].mean()
        for overlap in OVERLAPS:
            for schedule, style in (("fifo", "-"), ("priority", "--")):
                if (overlap, schedule) not in mean.index.droplevel(2):
                    continue
                d = mean.loc[(overlap, schedule)]
                top.plot(d.index, 1e3 * d.values, color=COLORS[overlap], linestyle=style, marker="o", markersize=3,
                         label=f"{overlap}, {schedule}")
            if (overlap, "fifo") in mean.index.droplevel(2) and (overlap, "priority") in mean.index.droplevel(2):
                fifo, priority = mean.loc[(overlap, "fifo")], mean.loc[(overlap, "priority")]
                bottom.plot(fifo.index, fifo / priority, color=COLORS[overlap], marker="o", markersize=3,
                            label=f"priority over fifo, overlap {overlap}")
        if ("none", "fifo") in mean.index.droplevel(2) and ("full", "priority") in mean.index.droplevel(2):
            base, best = mean.loc[("none", "fifo")], mean.loc[("full", "priority")]
            bottom.plot(base.index, base / best, color="black", linestyle=":", marker="s", markersize=3,
                        label="full + priority over none + fifo")
        if compute:
            top.axhline(1e3 * compute, color="grey", linestyle=":", linewidth=1, label="compute alone")
        top.set_xscale("log")
        top.set_yscale("log")
        top.set_title(name, fontsize=10)
        top.set_ylabel("iteration time (ms, log scale)")
        bottom.axhline(1.0, color="grey", linewidth=0.8)
        bottom.set_ylabel("speed-up (iteration time ratio)")
        bottom.set_xlabel("worker NIC bandwidth (Gbps, log scale)")
        for ax in (top, bottom):
            ax.grid(alpha=0.3, which="both")
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        top.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    handles = {}
    for ax in axes.flat:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=4, fontsize=8)
    fig.suptitle("Overlap of communication with computation, and priority scheduling (sync PS, timing only)")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    save(fig, out, "iteration_time_vs_bandwidth", written)
