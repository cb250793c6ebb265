"""Calibration: the tcp model's bandwidth_factor and latency_factor fitted to measured rounds.

fit() minimizes the mean |log(predicted / measured)| over the cases (an L1 fit: a few
cases no setting can explain, such as many small flows on one NIC, do not pull every
other case off), by golden-section search on one factor at a time, alternating, within
bounds (bandwidth_factor at most 1, the scenario schema's limit). `predict` maps a pair of
factors to predicted periods (one pssim run per case); pairs are cached, since a search
revisits none but costs a run per case for each new one.
"""
import math

GOLDEN = (math.sqrt(5) - 1) / 2


def objective(predicted, measured):
    return sum(abs(math.log(p / m)) for p, m in zip(predicted, measured)) / len(measured)


def golden_section(f, lo, hi, tolerance):
    """A minimum of f on [lo, hi] (f unimodal there), to within tolerance."""
    a, b = lo, hi
    c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tolerance:
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - GOLDEN * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLDEN * (b - a)
            fd = f(d)
    # The ends too: a minimum on the boundary (bandwidth_factor 1) is common.
    return min((fc, c), (fd, d), (f(lo), lo), (f(hi), hi))[1]


def fit(predict, measured, start, bounds, tolerances=(0.001, 0.05), sweeps=3):
    """Returns ((bandwidth_factor, latency_factor), objective) from `start` within `bounds`
    ((lo, hi) per factor): predict(bandwidth_factor, latency_factor) -> predicted periods."""
    cache = {}

    def cost(x):
        key = (round(x[0], 6), round(x[1], 6))
        if key not in cache:
            cache[key] = objective(predict(*key), measured)
        return cache[key]

    x = list(start)
    for _ in range(sweeps):
        before = list(x)
        for i in range(2):
            def along(v, i=i):
                y = list(x)
                y[i] = v
                return cost(y)
            x[i] = golden_section(along, bounds[i][0], bounds[i][1], tolerances[i])
        if all(abs(x[i] - before[i]) <= tolerances[i] for i in range(2)):
            break
    best = (round(x[0], 6), round(x[1], 6))
    return best, cost(best)
