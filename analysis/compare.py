#!/usr/bin/env python3
"""A comparison table of pssim runs and sweep points (run with /usr/bin/python3).

    compare.py [--format text|markdown|csv] [--per-seed] [--baseline ROW] [--label NAME]... PATH...

Each PATH is a run directory (summary.json) or a sweep directory (sweep.csv and points/).
One row per run, or per sweep point: the scheme (always named), time to the target
accuracy, final and best test accuracy (or held-out perplexity for language models),
iteration time (a round, or a worker's mean iteration for async), training samples per
simulated second, bytes sent, mean staleness, the bottleneck link and what stopped the run.

text and markdown: runs that differ only by seed are one row: their mean, a 95 %
confidence interval of it (Student t, +-) and the range (min-max) in brackets; time to
target is the mean of the seeds that reached it, with "k/n reached" when some did not.
--per-seed lists every run. --baseline ROW (a row's number, from 1, or a word of its
name) adds the speed-ups of every row over that one: in time to target, iteration time and
samples per second. --label names the PATHs, in order (a run's label replaces its name, a
sweep's prefixes its settings). csv: one row per run, plain numbers (for a spreadsheet or
pandas), with a `setting` column naming the group.

Exit status 2 when a path holds no pssim results (or is a `pssim train` baseline) or a
--baseline or --label does not fit, 1 on any other failure (one line on stderr;
PSSIM_DEBUG=1 for the traceback).
"""
import argparse
import csv
import io
import json
import math
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import command_main  # noqa: E402
from iteration import iteration_s  # noqa: E402
from labels import scheme_label, setting_label  # noqa: E402

STOPPED = {"sim_time": "time limit", "updates": "update limit", "epochs": "epoch limit",
           "target_accuracy": "target reached", "diverged": "diverged", "collapsed": "collapsed", "failed": "FAILED",
           "missing": "missing"}
FAILED_STOPS = ("diverged", "collapsed")  # the run failed: its loss became NaN, or it collapsed


class NotAResult(Exception):
    pass


class Baseline(Exception):
    """A `pssim train` directory: a single-process curve, with no cluster to compare."""


def _load_json(path):
    with open(path) as f:
        return json.load(f)


def _best_perplexity(run_dir):
    """The lowest held-out perplexity among the evaluations (metrics.csv)."""
    path = os.path.join(run_dir, "metrics.csv")
    if not os.path.exists(path):
        return None
    best = None
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("event") == "eval" and row.get("perplexity"):
                p = float(row["perplexity"])
                if math.isfinite(p):
                    best = p if best is None else min(best, p)
    return best


def _scenario(run_dir):
    path = os.path.join(run_dir, "scenario.yaml")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return yaml.safe_load(f)


def _record(run_dir, label, setting, status="ok"):
    """The figures of one run directory (or of a point that did not complete)."""
    r = {"label": label, "setting": setting, "status": status, "path": run_dir}
    scenario = _scenario(run_dir)
    r["scheme"] = scheme_label(scenario) if scenario else ""
    if status != "ok":
        r["stopped_by"] = status
        return r
    s = _load_json(os.path.join(run_dir, "summary.json"))
    iteration = iteration_s(run_dir, s)
    r["iteration_ms"] = None if iteration is None else 1000 * iteration
    language = "final_perplexity" in s
    r["language"] = language
    r["stopped_by"] = s.get("stopped_by")
    r["diverged_at_update"] = s.get("diverged_at_update")
    r["has_target"] = "target_accuracy" in s
    r["target"] = s.get("target_accuracy")
    r["time_to_target_s"] = s.get("time_to_target_s")
    if language:
        r["final_perplexity"] = s.get("final_perplexity")
        r["best_perplexity"] = _best_perplexity(run_dir)
    elif "final_test_accuracy" in s:
        r["final_accuracy"] = 100 * s["final_test_accuracy"]
        r["best_accuracy"] = 100 * s["best_test_accuracy"]
    r["samples_per_s"] = s.get("samples_per_s")
    r["bytes_sent_gb"] = s.get("bytes_sent", 0) / 1e9
    r["mean_staleness"] = s.get("mean_staleness")
    bottleneck = s.get("bottleneck_link")
    if bottleneck:
        r["bottleneck"] = bottleneck["name"]
        r["bottleneck_utilization"] = 100 * bottleneck["mean_utilization"]
    r["sim_time_s"] = s.get("sim_time_s")
    r["seed"] = s.get("seed")
    return r


def collect(path, label=None):
    """Records of a run directory or of every point of a sweep directory; `label` names
    the run, or prefixes the sweep's settings."""
    if os.path.exists(os.path.join(path, "sweep.csv")):
        with open(os.path.join(path, "sweep.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows:
            return []
        columns = list(rows[0].keys())
        axes = columns[2:columns.index("status")]
        name = os.path.basename(os.path.normpath(path))
        records = []
        for row in rows:
            point = os.path.join(path, "points", f"{int(row['point']):04d}")
            scenario = None
            if os.path.exists(os.path.join(point, "scenario.yaml")):
                with open(os.path.join(point, "scenario.yaml")) as f:
                    scenario = yaml.safe_load(f)
            setting = setting_label({a: row[a] for a in axes}, scenario) or name
            if label is not None:
                setting = f"{label}: {setting}" if setting != name else label
            run_label = f"{setting}, seed {row['seed']}"
            status = row["status"] if row["status"] in ("failed", "missing") else "ok"
            if status == "ok" and not os.path.exists(os.path.join(point, "summary.json")):
                status = "missing"
            records.append(_record(point, run_label, setting, status))
        return records
    if os.path.exists(os.path.join(path, "curve.csv")):
        raise Baseline(path)
    if os.path.exists(os.path.join(path, "summary.json")):
        s = _load_json(os.path.join(path, "summary.json"))
        name = os.path.basename(os.path.normpath(path))
        label = label if label is not None else s.get("scenario", name)
        return [_record(path, label, label)]
    raise NotAResult(path)


def _distinct_labels(records):
    """Runs given directly that share a scenario name are told apart by their directory."""
    seen = {}
    for r in records:
        seen.setdefault(r["setting"], set()).add(os.path.dirname(r["path"]) if "points" in r["path"] else r["path"])
    for r in records:
        if len(seen[r["setting"]]) > 1 and "points" not in r["path"]:
            r["setting"] = r["label"] = f"{r['label']} ({os.path.basename(os.path.normpath(r['path']))})"


# ---- formatting ---------------------------------------------------------------------------

def _fmt(v, digits):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


# The 97.5 % quantile of Student's t with n - 1 degrees of freedom (1 to 30), for 95 %
# confidence intervals of a mean over n seeds; beyond 30, the normal's 1.96 is within 2 %.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def confidence_95(values):
    """The half-width of the 95 % confidence interval of the mean of `values` (Student t)."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return (T975[n - 2] if n - 1 <= len(T975) else 1.96) * sd / math.sqrt(n)


def _finite(values):
    return [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def _stat(values, digits):
    """'83.5 ± 0.4 (83.2-83.7)' for several values (mean, 95 % confidence interval of the
    mean, range), '83.5' for one or equal ones."""
    values = _finite(values)
    if not values:
        return ""
    mean = sum(values) / len(values)
    lo, hi = min(values), max(values)
    if len(values) == 1 or _fmt(lo, digits) == _fmt(hi, digits):
        return _fmt(mean, digits)
    return f"{_fmt(mean, digits)} ± {_fmt(confidence_95(values), digits)} ({_fmt(lo, digits)}-{_fmt(hi, digits)})"


def _mean(values):
    values = _finite(values)
    return sum(values) / len(values) if values else None


def _speedup(base, value, higher_is_better=False):
    """'1.52x': how many times faster than the baseline row."""
    if base is None or value is None or base <= 0 or value <= 0:
        return ""
    return f"{(value / base if higher_is_better else base / value):.2f}x"


def _time_to_target(group):
    ok = [r for r in group if r["status"] == "ok"]
    if not any(r.get("has_target") for r in ok):
        return ""
    reached = [r["time_to_target_s"] for r in ok if r.get("time_to_target_s") is not None]
    n = len(group)
    if not reached:
        failures = {r.get("stopped_by") for r in ok}
        if ok and failures <= set(FAILED_STOPS):
            return " or ".join(sorted(failures))
        return "not reached"
    text = _stat(reached, 2)
    return text if len(reached) == n else f"{text}, {len(reached)}/{n} reached"


def _stopped(group):
    words = []
    for r in group:
        w = STOPPED.get(r.get("stopped_by"), r.get("stopped_by") or "")
        if r.get("stopped_by") in FAILED_STOPS and r.get("diverged_at_update") is not None:
            w = f"{r['stopped_by']} at update {r['diverged_at_update']}"
        words.append(w)
    distinct = list(dict.fromkeys(words))
    if len(distinct) == 1:
        return distinct[0]
    return "; ".join(f"{w} ({words.count(w)})" for w in distinct)


def _bottleneck(group):
    names = list(dict.fromkeys(r["bottleneck"] for r in group if r.get("bottleneck")))
    if not names:
        return ""
    util = _stat([r.get("bottleneck_utilization") for r in group if r.get("bottleneck") == names[0]], 0)
    text = f"{names[0]} ({util} %)"
    return text + (f" and {len(names) - 1} other" if len(names) > 1 else "")


class BadBaseline(Exception):
    pass


def _pick_baseline(groups, baseline):
    """The group a --baseline names: its row number (from 1), or the one row whose name
    contains the words given."""
    labels = list(groups)
    if baseline.isdigit() and 1 <= int(baseline) <= len(labels):
        return labels[int(baseline) - 1]
    matches = [label for label in labels if baseline.lower() in label.lower()]
    if len(matches) == 1:
        return matches[0]
    raise BadBaseline(f"--baseline {baseline}: {'no row matches' if not matches else f'{len(matches)} rows match'}; "
                      f"give a row number (1-{len(labels)}) or words of one row's name")


def table(records, per_seed, baseline=None):
    """Header and rows of strings for text and markdown."""
    language = any(r.get("language") for r in records)
    classification = any("final_accuracy" in r for r in records)
    header = ["run", "scheme", "time to target (s)"]
    if classification:
        header += ["final accuracy (%)", "best accuracy (%)"]
    if language:
        header += ["final perplexity", "best perplexity"]
    header += ["iteration (ms)", "samples/s", "GB sent", "mean staleness", "bottleneck link (mean use)", "stopped by"]
    groups = {}
    for r in records:
        groups.setdefault(r["label"] if per_seed else r["setting"], []).append(r)

    def means(group):
        ok = [r for r in group if r["status"] == "ok"]
        reached = [r.get("time_to_target_s") for r in ok]
        return {"ttt": _mean(reached) if reached and None not in reached else None,
                "iteration": _mean([r.get("iteration_ms") for r in ok]),
                "samples": _mean([r.get("samples_per_s") for r in ok])}

    base = means(groups[_pick_baseline(groups, baseline)]) if baseline is not None else None
    if base is not None:
        header += ["speed-up: time to target", "speed-up: iteration", "speed-up: samples/s"]
    rows = []
    for label, group in groups.items():
        ok = [r for r in group if r["status"] == "ok"]
        schemes = list(dict.fromkeys(r["scheme"] for r in group if r.get("scheme")))
        row = [label + (f" ({len(group)} seeds)" if len(group) > 1 else ""), "; ".join(schemes), _time_to_target(group)]
        if classification:
            row += [_stat([r.get("final_accuracy") for r in ok], 2), _stat([r.get("best_accuracy") for r in ok], 2)]
        if language:
            row += [_stat([r.get("final_perplexity") for r in ok], 2), _stat([r.get("best_perplexity") for r in ok], 2)]
        row += [_stat([r.get("iteration_ms") for r in ok], 2), _stat([r.get("samples_per_s") for r in ok], 0),
                _stat([r.get("bytes_sent_gb") for r in ok], 3), _stat([r.get("mean_staleness") for r in ok], 2),
                _bottleneck(ok), _stopped(group)]
        if base is not None:
            m = means(group)
            row += [_speedup(base["ttt"], m["ttt"]), _speedup(base["iteration"], m["iteration"]),
                    _speedup(base["samples"], m["samples"], higher_is_better=True)]
        rows.append(row)
    keep = [i for i, h in enumerate(header)
            if i == 0 or any(row[i] for row in rows)]  # a column empty in every row says nothing
    if all(row[1] and row[1] in row[0] for row in rows):  # every row's name says its scheme already
        keep.remove(1)
    return [header[i] for i in keep], [[row[i] for i in keep] for row in rows]


NUMERIC = {"time to target (s)", "final accuracy (%)", "best accuracy (%)", "final perplexity", "best perplexity",
           "iteration (ms)", "samples/s", "GB sent", "mean staleness", "speed-up: time to target",
           "speed-up: iteration", "speed-up: samples/s"}


def render_text(header, rows):
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    numeric = [h in NUMERIC for h in header]

    def line(cells):
        return "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out) + "\n"


def render_markdown(header, rows):
    def esc(c):
        return c.replace("|", "\\|")

    out = ["| " + " | ".join(esc(h) for h in header) + " |",
           "|" + "|".join("---:" if h in NUMERIC else "---" for h in header) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


CSV_COLUMNS = ["setting", "run", "scheme", "seed", "status", "stopped_by", "diverged_at_update", "target_accuracy",
               "time_to_target_s", "final_test_accuracy_pct", "best_test_accuracy_pct", "final_perplexity",
               "best_perplexity", "iteration_ms", "samples_per_s", "bytes_sent_gb", "mean_staleness",
               "bottleneck_link", "bottleneck_utilization_pct", "sim_time_s", "path"]


def render_csv(records):
    buffer = io.StringIO()
    w = csv.writer(buffer, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in records:
        values = {"setting": r["setting"], "run": r["label"], "scheme": r.get("scheme"), "seed": r.get("seed"),
                  "status": r["status"], "iteration_ms": r.get("iteration_ms"),
                  "stopped_by": r.get("stopped_by"), "diverged_at_update": r.get("diverged_at_update"),
                  "target_accuracy": r.get("target"), "time_to_target_s": r.get("time_to_target_s"),
                  "final_test_accuracy_pct": r.get("final_accuracy"), "best_test_accuracy_pct": r.get("best_accuracy"),
                  "final_perplexity": r.get("final_perplexity"), "best_perplexity": r.get("best_perplexity"),
                  "samples_per_s": r.get("samples_per_s"), "bytes_sent_gb": r.get("bytes_sent_gb"),
                  "mean_staleness": r.get("mean_staleness"), "bottleneck_link": r.get("bottleneck"),
                  "bottleneck_utilization_pct": r.get("bottleneck_utilization"), "sim_time_s": r.get("sim_time_s"),
                  "path": r["path"]}
        w.writerow(["" if values[c] is None else values[c] for c in CSV_COLUMNS])
    return buffer.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--format", choices=("text", "markdown", "csv"), default="text")
    parser.add_argument("--per-seed", action="store_true", help="one row per run, seeds not averaged")
    parser.add_argument("--baseline", help="a row's number (from 1) or words of its name: adds speed-up columns")
    parser.add_argument("--label", action="append", default=[], help="names the paths, in order (repeatable)")
    args = parser.parse_args()
    if len(args.label) > len(args.paths):
        print(f"pssim compare: {len(args.label)} labels for {len(args.paths)} paths", file=sys.stderr)
        return 2
    records = []
    for i, path in enumerate(args.paths):
        try:
            records += collect(path, args.label[i] if i < len(args.label) else None)
        except NotAResult:
            print(f"pssim compare: {path}: no summary.json or sweep.csv: not a pssim result", file=sys.stderr)
            return 2
        except Baseline:
            print(f"pssim compare: {path}: a pssim train baseline (one process, no simulated time or network): "
                  f"compare compares runs and sweeps; draw a baseline beside runs with pssim plot "
                  f"(accuracy_vs_epochs)", file=sys.stderr)
            return 2
    _distinct_labels(records)
    if args.format == "csv":
        sys.stdout.write(render_csv(records))
        return 0
    try:
        header, rows = table(records, args.per_seed, args.baseline)
    except BadBaseline as e:
        print(f"pssim compare: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(render_markdown(header, rows) if args.format == "markdown" else render_text(header, rows))
    return 0


if __name__ == "__main__":
    command_main.run(main, "compare")
