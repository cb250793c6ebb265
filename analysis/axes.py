"""Axis and legend helpers of the figures (plot.py and its modules): log axes labelled in
plain numbers with enough ticks for their range, and curves that coincide made visible.

    tidy_log_axes(fig)   before saving: every log axis without fixed ticks gets plain tick
                         labels at 1 per decade (3 decades or more), 1-2-5 (over one
                         decade) or round numbers evenly spaced (within a decade)
    mark_identical(ax)   before the legend: a curve equal to one drawn before it is dashed,
                         with hollow markers, and says "(same as ...)" in the legend; one
                         within 1 % of the axis height of it everywhere, "(on top of ...)"
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
    else:  # within a decade: round numbers about evenly spaced on the axis (a linear
        # axis's ticks would crowd the top and leave the bottom unlabelled)
        axis.set_major_locator(matplotlib.ticker.FixedLocator(_round_log_ticks(lo, hi)))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(plain))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _round(v, tolerance):
    """v with the fewest significant digits that move it by less than `tolerance` (a fraction)."""
    for digits in range(1, 7):
        r = round(v, digits - 1 - math.floor(math.log10(v)))
        if abs(r - v) < tolerance * v:
            return r
    return v


def _round_log_ticks(lo, hi, count=6):
    # At the middles of `count` equal parts of the axis, each moved by under a quarter of a
    # part by rounding, so they stay inside the axis and apart.
    step = (hi / lo) ** (1 / count)
    ticks = sorted({_round(lo * step ** (k + 0.5), (step - 1) / 4) for k in range(count)})
    return [v for v in ticks if lo <= v <= hi]


def tidy_log_axes(fig):
    for ax in fig.axes:
        _tidy(ax.xaxis)
        _tidy(ax.yaxis)


def _on_top(ax, a, b):
    """The y values of b within 1 % of the axis height of a's at the same x (log axes: of
    its height in decades): drawn one over the other, they look like one curve."""
    (xa, ya), (xb, yb) = a, b
    if not (xa.shape == xb.shape and ya.shape == yb.shape and len(xa) > 0 and
            np.allclose(xa, xb, rtol=1e-9, atol=0, equal_nan=True)):
        return False
    lo, hi = sorted(ax.get_ylim())
    if ax.get_yscale() == "log":
        if lo <= 0 or np.any(ya <= 0) or np.any(yb <= 0):
            return False
        ya, yb, lo, hi = np.log10(ya), np.log10(yb), math.log10(lo), math.log10(hi)
    both = ~(np.isnan(ya) | np.isnan(yb))
    return bool(np.array_equal(np.isnan(ya), np.isnan(yb)) and np.all(np.abs(ya[both] - yb[both]) <= 0.01 * (hi - lo)))


def _same(a, b):
    (xa, ya), (xb, yb) = a, b
    return xa.shape == xb.shape and ya.shape == yb.shape and len(xa) > 0 and \
        np.allclose(xa, xb, rtol=1e-9, atol=0, equal_nan=True) and np.allclose(ya, yb, rtol=1e-9, atol=0, equal_nan=True)


def without_note(label):
    """'sync (target not reached)' -> 'sync': a legend label without its last note."""
    return label.rsplit(" (", 1)[0] if label.endswith(")") and " (" in label else label


def mark_identical(ax, short=without_note):
    """Curves of `ax` that repeat an earlier one, exactly or within 1 % of the axis height
    everywhere, would hide under it while the legend lists both: drawn dashed with hollow
    markers on top, and named "(same as ...)" or "(on top of ...)" (the earlier one's
    label, made short by `short`). Call it when the axis limits are final."""
    drawn, marked = [], 0
    for line in ax.get_lines():
        label = line.get_label()
        if label.startswith("_"):
            continue
        data = (np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float))
        twin = next((other for other, other_data in drawn if _same(data, other_data)), None)
        relation = "same as"
        if twin is None:
            twin = next((other for other, other_data in drawn if _on_top(ax, other_data, data)), None)
            relation = "on top of"
        if twin is None:
            drawn.append((line, data))
            continue
        line.set_linestyle((0, (4, 3)))
        line.set_marker(HOLLOW_MARKERS[marked % len(HOLLOW_MARKERS)])
        marked += 1
        line.set_markerfacecolor("none")
        line.set_markersize(8)
        line.set_zorder(twin.get_zorder() + 1)
        line.set_label(f"{label} ({relation} {short(twin.get_label())})")
