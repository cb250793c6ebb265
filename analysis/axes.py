"""Axis and legend helpers of the figures (plot.py and its modules): log axes labelled in
plain numbers with enough ticks for their range, and curves that coincide made visible.

    tidy_log_axes(fig)   before saving: every log axis without fixed ticks gets plain tick
                         labels at 1 per decade (3 decades or more), 1-2-5 (over one
                         decade) or round numbers evenly spaced (within a decade)
    mark_identical(ax)   before the legend: a curve equal to one drawn before it is dashed,
                         with hollow markers, and says "(same as ...)" in the legend
"""
import math

import matplotlib.ticker
import numpy as np

HOLLOW_MARKERS = "os^Dv<>ph"


def plain(v, _=None):
    """4, 0.5, 1,000, 2e-05: numbers as people write them, not 10^3 or 2^2."""
    if v == 0:
        return "0"
    if 1e-4 <= abs(v) < 1e7:
        text = f"{v:,.6g}" if abs(v) >= 1000 else f"{v:.6g}"
        return text
    return f"{v:.0e}"


def _tidy(axis):
    if axis.get_scale() != "log" or isinstance(axis.get_major_locator(), matplotlib.ticker.FixedLocator):
        return
    lo, hi = sorted(axis.get_view_interval())
    if lo <= 0 or hi <= 0:
        return
    if getattr(axis.get_transform(), "base", 10) == 2:  # workers, shards: powers of two are the natural ticks, labelled plainly
        axis.set_major_formatter(matplotlib.ticker.FuncFormatter(plain))
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        return
    decades = math.log10(hi / lo)
    if decades >= 1:
        subs = (1.0,) if decades >= 3 else (1.0, 2.0, 5.0)
        axis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=subs, numticks=30))
    else:  # within a decade: evenly spaced round numbers, as on a linear axis
        ticks = [v for v in matplotlib.ticker.MaxNLocator(nbins=6).tick_values(lo, hi) if lo <= v <= hi]
        axis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(plain))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def tidy_log_axes(fig):
    for ax in fig.axes:
        _tidy(ax.xaxis)
        _tidy(ax.yaxis)


def _same(a, b):
    (xa, ya), (xb, yb) = a, b
    return xa.shape == xb.shape and ya.shape == yb.shape and len(xa) > 0 and \
        np.allclose(xa, xb, rtol=1e-9, atol=0, equal_nan=True) and np.allclose(ya, yb, rtol=1e-9, atol=0, equal_nan=True)


def without_note(label):
    """'sync (target not reached)' -> 'sync': a legend label without its last note."""
    return label.rsplit(" (", 1)[0] if label.endswith(")") and " (" in label else label


def mark_identical(ax, short=without_note):
    """Curves of `ax` that repeat an earlier one exactly would hide under it while the
    legend lists both: drawn dashed with hollow markers on top, and named as the same
    (the earlier one's label, made short by `short`)."""
    drawn, marked = [], 0
    for line in ax.get_lines():
        label = line.get_label()
        if label.startswith("_"):
            continue
        data = (np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float))
        twin = next((other for other, other_data in drawn if _same(data, other_data)), None)
        if twin is None:
            drawn.append((line, data))
            continue
        line.set_linestyle((0, (4, 3)))
        line.set_marker(HOLLOW_MARKERS[marked % len(HOLLOW_MARKERS)])
        marked += 1
        line.set_markerfacecolor("none")
        line.set_markersize(8)
        line.set_zorder(twin.get_zorder() + 1)
        line.set_label(f"{label} (same as {short(twin.get_label())})")
