"""analysis/axes.py: curves that hide one another are marked; log axes get plain labels."""
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from conftest import ROOT  # noqa: E402
import sys  # noqa: E402
sys.path.insert(0, str(ROOT / "analysis"))
import axes  # noqa: E402


def _labels_after_marking(ys, log=False):
    fig, ax = plt.subplots()
    for i, y in enumerate(ys):
        ax.plot([0, 1, 2], y, label=f"c{i}")
    if log:
        ax.set_yscale("log")
    ax.set_ylim(1, 100)
    axes.mark_identical(ax)
    labels = [line.get_label() for line in ax.get_lines()]
    plt.close(fig)
    return labels


def test_an_equal_curve_is_same_as_and_a_close_one_on_top_of_the_first():
    labels = _labels_after_marking([[10, 20, 30], [10, 20, 30], [10.5, 20.5, 30.5], [15, 20, 30]])
    # 0.5 of a 99-high axis is under 1 %; 5 is not.
    assert labels == ["c0", "c1 (same as c0)", "c2 (on top of c0)", "c3"]


def test_on_a_log_axis_closeness_is_measured_in_decades():
    # 2 decades high: 1 % is 0.02 decades, a factor of 1.047.
    labels = _labels_after_marking([[10, 20, 30], [10.3, 20.6, 30.9], [11, 22, 33]], log=True)
    assert labels == ["c0", "c1 (on top of c0)", "c2"]


def _tick_labels(lo, hi):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [lo, hi])
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    axes.tidy_log_axes(fig)
    fig.canvas.draw()
    ticks = [t for t in ax.yaxis.get_major_ticks()
             if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi]
    values = [t.get_loc() for t in ticks]
    texts = [t.label1.get_text() for t in ticks]
    plt.close(fig)
    return values, texts


def test_within_a_decade_the_labels_spread_over_the_whole_axis():
    # A training loss from 0.45 to 2.2: labels near both ends, not only at the top.
    values, texts = _tick_labels(0.45, 2.2)
    assert len(values) >= 5
    assert min(values) <= 0.55 and max(values) >= 1.8
    assert all("^" not in t and "e" not in t for t in texts)


def test_over_decades_one_label_per_decade_in_plain_numbers():
    values, texts = _tick_labels(1, 20000)
    assert texts == ["1", "10", "100", "1,000", "10,000"]


def test_a_narrow_log_axis_keeps_its_labels_apart():
    values, _ = _tick_labels(0.95, 1.05)
    assert len(values) >= 5 and len(set(values)) == len(values)
