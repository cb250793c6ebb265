"""The testbed's tables: per case, and per regime, measured against predicted (Markdown).

An error is (predicted - measured) / measured, signed: negative when the model is
optimistic (predicts shorter rounds). A summary gives the median of |error| and the worst
error (the signed error of largest magnitude).
"""
import statistics

from cases import payload_rate, rate_text


def error(predicted, measured):
    return (predicted - measured) / measured


def summary(errors):
    """(median |e|, worst e) of a non-empty list of errors."""
    return statistics.median(abs(e) for e in errors), max(errors, key=abs)


def pct(e):
    return "{:+.1f} %".format(100 * e)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def case_table(results, variants):
    """results: dicts with case, rounds, measured (seconds per round, one per repetition),
    pull_spread (optional: per repetition, the time from the first to the last worker
    holding a round's parameters over the round, or None), predicted ({variant: seconds})
    and emulated (optional; False: the machine could not carry the case's rates, marked);
    variants: the prediction columns, in order."""
    header = ["case", "regime", "rounds", "measured ms (min-max)", "pull spread"]
    header += ["{} ms".format(v) for v in variants[:2]]
    header += [v for v in variants]
    rows = []
    for r in results:
        m = statistics.median(r["measured"])
        name = r["case"].name + ("" if r.get("emulated", True) else " (not emulated)")
        row = [name, r["case"].regime, r["rounds"],
               "{:.1f} ({:.1f}-{:.1f})".format(1e3 * m, 1e3 * min(r["measured"]), 1e3 * max(r["measured"])),
               spread_text(r.get("pull_spread"))]
        row += ["{:.1f}".format(1e3 * r["predicted"][v]) for v in variants[:2]]
        row += [pct(error(r["predicted"][v], m)) for v in variants]
        rows.append(row)
    return table(header, rows)


def spread_text(spreads):
    """The median pull spread of the repetitions, as a share of the round ("" if none)."""
    spreads = [x for x in spreads or [] if x is not None]
    return "{:.0f} %".format(100 * statistics.median(spreads)) if spreads else ""


def regime_table(results, variants):
    """Per regime and over all cases: median |error| and worst error of each variant."""
    regimes = []
    for r in results:
        if r["case"].regime not in regimes:
            regimes.append(r["case"].regime)
    rows = []
    for regime in regimes + ["all"]:
        chosen = [r for r in results if regime in ("all", r["case"].regime)]
        row = [regime, len(chosen)]
        for v in variants:
            med, worst = summary([error(r["predicted"][v], statistics.median(r["measured"])) for r in chosen])
            row.append("{:.1f} % ({})".format(100 * med, pct(worst)))
        rows.append(row)
    return table(["regime", "cases"] + ["{}: median (worst)".format(v) for v in variants], rows)


def checks_table(checks):
    """The line-rate checks: payload of the slowest flow against line x 1448/1538."""
    rows = []
    for c in checks:
        if c["line_bps"] is None:
            rows.append(["one flow, unshaped", "{:.1f}".format(c["payload_Bps"][0] / 1e6), "", ""])
            continue
        expected = payload_rate(c["line_bps"])
        what = "one flow" if c["flows"] == 1 else "{} flows at once".format(c["flows"])
        rows.append(["{}, {}".format(what, rate_text(c["line_bps"])), "{:.2f}".format(min(c["payload_Bps"]) / 1e6),
                     "{:.2f}".format(expected / 1e6), "{:.1%}".format(min(c["payload_Bps"]) / expected)])
    return table(["check", "payload MB/s (slowest flow)", "line x 1448/1538", "ratio"], rows)


def emulated(case, checks, tolerance=0.03):
    """Whether the machine carried what `case` needs, by the checks: one flow at each of its
    rates, and case.busy_flows() flows at once at its workers' rate, each within tolerance
    of line x 1448/1538. A case it did not carry would measure its CPU, not TCP."""
    def ok(bps, flows):
        found = [c for c in checks if c["line_bps"] == bps and c["flows"] == flows]
        return bool(found) and all(min(c["payload_Bps"]) >= (1 - tolerance) * payload_rate(bps) for c in found)
    return (ok(case.worker_bps, 1) and ok(case.server_rate, 1)
            and (case.busy_flows() == 1 or ok(case.worker_bps, case.busy_flows())))


def calibration_table(results, fitted):
    """The tcp model before and after the fit: median |error| and worst, over `results`."""
    rows = []
    for label, name in (("LV08 defaults (0.97, 13.01), no framing", "tcp"),
                        ("framing, bandwidth_factor 1, latency_factor 13.01", "tcp+framing"),
                        ("fitted: bandwidth_factor {:.3f}, latency_factor {:.2f}".format(*fitted), "tcp fitted")):
        med, worst = summary([error(r["predicted"][name], statistics.median(r["measured"])) for r in results])
        rows.append([label, "{:.1f} %".format(100 * med), pct(worst)])
    return table(["tcp model (framing: ethernet, MTU 1500)", "median |error|", "worst"], rows)


def full_report(data, results, fitted):
    """Everything the testbed prints, in Markdown."""
    names = list(results[0]["predicted"])
    kept = [r for r in results if r["emulated"]]
    out = ["## pssim against real TCP", "",
           "{}; {} repetitions; 1-min load {}; netem {}; round trip {:.1f} us (NIC latency {:.1f} us).".format(
               data["machine"], data["reps"], ", ".join("{:.2f}".format(x) for x in data["loads"]),
               "present" if data["netem"] else "absent", data["rtt_s"] * 1e6, data["rtt_s"] / 4 * 1e6),
           "", "### Line rates", "", checks_table(data["checks"]), "",
           "### Per case (errors: predicted / measured - 1)", "", case_table(results, names), ""]
    if len(kept) < len(results):
        out += ["Cases marked (not emulated) need flows whose check fell short of the line by more than 3 %: "
                "they measure this machine's CPU, and are left out below.", ""]
    if kept:
        out += ["### Per regime: median |error| (worst error)", "", regime_table(kept, names), ""]
    if fitted:
        out += ["### Calibration", "", calibration_table(kept, fitted), "",
                "network: {{model: tcp, framing: {{kind: ethernet, mtu: 1500}}, tcp: {{bandwidth_factor: {:.3f}, "
                "latency_factor: {:.2f}}}}}".format(*fitted)]
    return "\n".join(out)
