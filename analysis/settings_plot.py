"""results_by_setting: sweeps whose swept values are names, not numbers (schemes,
compressors, on/off switches): one bar per setting for what a comparison asks, seeds
averaged with their 95 % confidence interval (Student t) as a whisker and each seed as a
dot. Panels: best test accuracy (or perplexity), time to the target (a setting that never
reached it gets an empty bar marked "not reached"), iteration time.

A line through settings that have no order would suggest a trend between them: bars do not.
"""
import math

import matplotlib.pyplot as plt

from compare import confidence_95


def is_categorical(values):
    """True when the swept values are not all numbers (booleans count as names)."""
    for v in values:
        text = str(v).strip().lower()
        if text in ("true", "false"):
            return True
        try:
            float(text)
        except ValueError:
            return True
    return False


def _panel(ax, labels, groups, ylabel, missing_text=None):
    for i, values in enumerate(groups):
        finite = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
        if not finite:
            if missing_text:
                ax.bar(i, 0, color="none")
                ax.annotate(missing_text, (i, 0), xytext=(0, 4), textcoords="offset points", ha="center",
                            va="bottom", fontsize=8, rotation=90, color="#c62828")
            continue
        mean = sum(finite) / len(finite)
        half = confidence_95(finite)
        ax.bar(i, mean, color=f"C{i % 10}", alpha=0.8,
               yerr=None if half is None else [[half], [half]], capsize=4, error_kw={"linewidth": 1})
        ax.plot([i] * len(finite), finite, linestyle="none", marker="o", markersize=3, color="black")
        if len(finite) < len(values) and missing_text:
            ax.annotate(f"{len(finite)}/{len(values)} seeds", (i, mean), xytext=(0, 6), textcoords="offset points",
                        ha="center", fontsize=7)
    ax.set_ylim(bottom=0)
    if not any(v is not None and not (isinstance(v, float) and math.isnan(v)) for values in groups for v in values):
        ax.set_yticks([])  # nothing drawn: every setting "not reached"
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=25, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3, axis="y")


def plot_settings(settings, language, save, out, written):
    """settings: [(label, [record, ...])] in the sweep's order, a record per seed with
    best (accuracy in %, or perplexity), ttt_s (None: not reached), iteration_ms, failed."""
    labels = [label + (" (failed)" if any(r["failed"] for r in records) else "") for label, records in settings]
    panels = [("best", "best held-out perplexity" if language else "best test accuracy (%)", None)]
    if any(r["has_target"] for _, records in settings for r in records):
        panels.append(("ttt_s", "simulated time to the target (s)", "not reached"))
    panels.append(("iteration_ms", "iteration (ms)", None))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 1, 4.6), squeeze=False)
    for ax, (key, ylabel, missing) in zip(axes[0], panels):
        _panel(ax, labels, [[r[key] for r in records] for _, records in settings], ylabel, missing)
    fig.suptitle("Results by setting (bars: mean over seeds, whiskers: 95 % confidence interval, dots: seeds)")
    fig.tight_layout()
    save(fig, out, "results_by_setting", written)
