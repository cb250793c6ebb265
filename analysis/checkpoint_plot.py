"""progress_vs_checkpoint_interval: sweeps over cluster.servers.checkpoint.every
(scenarios/sweeps/checkpoint-interval.yaml).

Three panels against the interval (log2 axis), each seed a faint marker and the mean a
line: model updates in the run (progress: the U's top is the best interval), part updates
lost to crashes (rolled back to the last checkpoint: grows with the interval), and the
time to the target accuracy, with seeds that never reached it on a "not reached" row.
"""
import matplotlib.lines
import matplotlib.pyplot as plt

from closed_forms import _duration


def _seconds(value):
    try:
        return float(value)  # a bare number is seconds
    except ValueError:
        return _duration(value)


def plot_checkpoint_interval(table, key, target, plain_log2, save, out, written):
    """table: the sweep's ok points; key: the swept checkpoint.every column; target: the
    scenario's training.target_accuracy as written (e.g. "82%"), or None."""
    table = table.assign(interval_s=[_seconds(v) for v in table[key]])
    by = table.groupby("interval_s")
    xs = sorted(table["interval_s"].unique())
    fig, (progress, lost, ttt) = plt.subplots(1, 3, figsize=(15, 4.2))

    def panel(ax, column, ylabel):
        ax.plot(table["interval_s"], table[column], marker="o", linestyle="none", color="C0", alpha=0.35)
        ax.plot(xs, by[column].mean().reindex(xs), marker="o", color="C0")
        ax.set_ylabel(ylabel)

    panel(progress, "updates", "model updates in the run")
    best = by["updates"].mean().idxmax()
    progress.axvline(best, color="grey", linestyle=":", linewidth=0.8)
    progress.annotate(f"most progress: every {best:g} s", (best, by["updates"].mean().max()),
                      textcoords="offset points", xytext=(6, -14), fontsize=8)
    panel(lost, "lost_updates", "part updates lost to crashes")

    reached = table[table["time_to_target_s"].notna()]
    missed = table[table["time_to_target_s"].isna()]
    top = (reached["time_to_target_s"].max() if len(reached) else 1.0) * 1.15
    ttt.plot(reached["interval_s"], reached["time_to_target_s"], marker="o", linestyle="none", color="C0",
             alpha=0.35)
    means = reached.groupby("interval_s")["time_to_target_s"].mean()
    ttt.plot(means.index, means.values, marker="o", color="C0")
    if len(missed):
        counts = missed.groupby("interval_s").size()
        ttt.plot(counts.index, [top] * len(counts), marker="^", markerfacecolor="none", markersize=10,
                 linestyle="none", color="C3")
        for x, n in counts.items():
            ttt.annotate(f"{n} seed{'s' if n > 1 else ''}", (x, top), textcoords="offset points", xytext=(6, -3),
                         fontsize=7, color="C3")
    ttt.set_ylim(0, top * 1.08)
    ticks = [t for t in ttt.get_yticks() if 0 <= t < top * 0.95]
    ttt.set_yticks(ticks + [top])
    ttt.set_yticklabels([f"{t:g}" for t in ticks] + ["not reached"])
    what = f" of {str(target).replace('%', ' %')}" if target else ""
    ttt.set_ylabel(f"simulated time to the target{what} (s)")

    for ax in (progress, lost, ttt):
        ax.set_xscale("log", base=2)
        plain_log2(ax.xaxis)
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}" for x in xs])
        ax.set_xlabel("checkpoint interval (s)")
        ax.grid(alpha=0.3)
    seeds = table["seed"].nunique()
    handles = [matplotlib.lines.Line2D([], [], marker="o", color="C0"),
               matplotlib.lines.Line2D([], [], marker="o", linestyle="none", color="C0", alpha=0.35)]
    labels = [f"mean over {seeds} seeds", "one seed"]
    if len(missed):
        handles.append(matplotlib.lines.Line2D([], [], marker="^", markerfacecolor="none", linestyle="none",
                                               color="C3"))
        labels.append("seeds that never reached the target")
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8)
    fig.suptitle("Checkpoint interval under server crashes: progress, lost work and time to target")
    fig.tight_layout(rect=(0, 0.07, 1, 1), w_pad=3)
    save(fig, out, "progress_vs_checkpoint_interval", written)
