#!/usr/bin/python3
"""pssim against real Linux TCP: the testbed's driver (bench/testbed/run.sh runs it as root).

  1. builds the testbed (netns.py): one namespace per host on a bridge, NICs shaped by htb;
  2. checks it: the payload rate of one flow at each rate the cases use (and unshaped), of
     as many flows at once as a case runs, and the round trip of a 1-byte message, which
     becomes every NIC's latency in the scenarios (a quarter of it: a route crosses two
     NICs, a round trip four). A case whose checks (one flow at each of its rates, and
     as many flows at once as it runs) fall short of line x 1448/1538 by more than 3 % is
     not emulated (the machine's CPU is the limit): it is measured and shown, but left
     out of the summaries and the fit;
  3. runs every case (cases.py) --reps times, repetitions interleaved, with the round
     program (peer.py); a case's figure is the median of its repetitions;
  4. removes the testbed, then simulates each case with `pssim run` under maxmin and tcp,
     each without and with network.framing (ethernet, MTU 1500; tcp then with
     bandwidth_factor 1, as the schema advises), and fits tcp's bandwidth_factor and
     latency_factor on top of the framing (fit.py);
  5. prints the tables (report.py): per case, and per regime the median and worst error.

--save FILE keeps the measurements (JSON); --load FILE redoes steps 4-5 from them, without
root. Exit status: 0, 1 on a failed measurement or simulation, 2 on bad arguments, 130
when interrupted (the testbed is removed in every case).
"""
import argparse
import json
import os
import pathlib
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

import cases as case_sets
from cases import ETHERNET, Case, payload_rate
import fit as calibration
import measure
import report
import simulate
from netns import Testbed, netem_available

ROOT = pathlib.Path(__file__).resolve().parents[2]
LV08_LATENCY_FACTOR = 13.01  # the fit starts from it, and from bandwidth_factor 1 (with framing)


class Interrupted(Exception):
    pass


def log(message):
    print("[testbed {}] {}".format(time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="a subset: one or two cases per regime")
    p.add_argument("--reps", type=int, default=5, help="repetitions of each case (default 5)")
    p.add_argument("--cases", default="", help="only the cases whose name matches this regular expression")
    p.add_argument("--pssim", default=str(ROOT / "build/release/sim/cli/pssim"), help="the pssim command")
    p.add_argument("--prefix", default="pssimtb{}".format(os.getpid()), help="namespace name prefix")
    p.add_argument("--max-load", type=float, default=0.0,
                   help="before each repetition, wait (up to 10 min) for the 1-min load average to drop below this")
    p.add_argument("--no-fit", action="store_true", help="skip the calibration")
    p.add_argument("--save", help="write the measurements to this JSON file")
    p.add_argument("--load", help="use the measurements of this JSON file instead of measuring (no root)")
    a = p.parse_args(argv)
    if a.reps < 1:
        p.error("--reps must be at least 1")
    try:
        re.compile(a.cases)
    except re.error as e:
        p.error("--cases: {}".format(e))
    if not os.access(a.pssim, os.X_OK):
        p.error("no pssim command at {} (build it: scripts/build.sh pssim)".format(a.pssim))
    if not a.load:
        if os.geteuid() != 0:
            p.error("the testbed needs root (network namespaces and tc); --load FILE redoes the tables without")
        for tool in ("ip", "tc"):
            if not shutil.which(tool):
                p.error("the testbed needs `{}` (Debian package iproute2)".format(tool))
    return a


def chosen_cases(a, netem):
    chosen = list(case_sets.QUICK if a.quick else case_sets.DEFAULT)
    if netem:
        chosen += case_sets.QUICK_LATENCY if a.quick else case_sets.LATENCY_CASES
    chosen = [c for c in chosen if re.search(a.cases, c.name)]
    for c in chosen:
        c.check()
    return chosen


def leftover_namespaces():
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n")
    return [n.split()[0] for n in names if n.startswith("pssimtb")]


def measure_all(a):
    """Steps 1-3: the measurements, as a JSON-ready dict."""
    stale = leftover_namespaces()
    if stale:
        raise measure.MeasurementError("namespaces of another testbed run exist ({}): wait for it, or remove "
                                       "them with `ip netns del NAME`".format(", ".join(stale)))
    netem = netem_available(a.prefix)
    log("netem: {}".format("present, latency cases included" if netem else
                           "absent in this kernel, no latency cases (no propagation delay can be added)"))
    chosen = chosen_cases(a, netem)
    if not chosen:
        raise measure.MeasurementError("no case matches --cases {}".format(a.cases))
    out = {"machine": "{} {}, {} cores".format(platform.system(), platform.release(), os.cpu_count()),
           "netem": netem, "reps": a.reps, "loads": []}
    hosts = max(case_sets.hosts_needed(chosen), 2 * max(c.busy_flows() for c in chosen))  # checks: 2 per flow
    with Testbed(a.prefix, hosts) as tb:
        log("testbed: {} hosts on a bridge ({}-*)".format(tb.hosts, a.prefix))
        rates = sorted({c.worker_bps for c in chosen} | {c.server_rate for c in chosen if c.scheme == "ps"})
        out["checks"] = [check(tb, None, 1)]  # the machine's own speed
        for bps in rates:
            out["checks"].append(check(tb, bps, 1))
            # As many flows at once as each case at this workers' rate may run.
            for flows in sorted({c.busy_flows() for c in chosen if c.worker_bps == bps} - {1}):
                out["checks"].append(check(tb, bps, flows))
        out["rtt_s"] = measure.rtt(tb, max(rates))
        log("round trip of 1 byte: {:.1f} us (median of 300): NIC latency {:.1f} us in the scenarios".format(
            out["rtt_s"] * 1e6, out["rtt_s"] / 4 * 1e6))
        results = [{"case": dataclass_dict(c), "rounds": c.rounds(), "measured": [], "pull_spread": []}
                   for c in chosen]
        estimate = sum((1 + c.rounds()) * c.estimate_s() for c in chosen) * a.reps
        log("{} cases x {} repetitions, about {:.0f} s of rounds".format(len(chosen), a.reps, estimate))
        for rep in range(a.reps):
            load = measure.wait_for_load(a.max_load, 600, log)
            out["loads"].append(load)
            log("repetition {}/{} (1-min load {:.2f})".format(rep + 1, a.reps, load))
            for c, r in zip(chosen, results):
                once = measure.run_case(tb, c, r["rounds"])
                r["measured"].append(once["period"])
                r["pull_spread"].append(once["pull_spread"])
        out["loads"].append(measure.load_average())
    out["results"] = results
    return out


def check(tb, bps, flows):
    """Payload rates of `flows` flows at once at line rate bps (None: unshaped), logged."""
    got = [measure.line_rate(tb, bps)] if flows == 1 else measure.parallel_flows(tb, flows, bps)
    result = {"line_bps": bps, "flows": flows, "payload_Bps": got}
    if bps is None:
        log("one flow, unshaped: {:.1f} MB/s of payload".format(got[0] / 1e6))
    else:
        log("{} flow{} at {}: the slowest {:.2f} MB/s of payload, {:.1%} of line x 1448/1538".format(
            flows, "s at once" if flows > 1 else "", case_sets.rate_text(bps), min(got) / 1e6,
            min(got) / payload_rate(bps)))
    return result


def dataclass_dict(c):
    return {f: getattr(c, f) for f in Case.__dataclass_fields__}


def analyse(data, a):
    """Steps 4-5: simulate, fit, print."""
    results = [dict(r, case=Case(**r["case"])) for r in data["results"]]
    for r in results:
        r["emulated"] = report.emulated(r["case"], data["checks"])
    latency = data["rtt_s"] / 4
    jobs = [(r["case"], r["rounds"]) for r in results]
    for name, network in VARIANTS.items():
        log("simulating: {}".format(name))
        for r, p in zip(results, simulate.periods(a.pssim, jobs, network, latency)):
            r.setdefault("predicted", {})[name] = p
    fitted = None
    kept = [r for r in results if r["emulated"]]
    if not a.no_fit and kept:
        log("fitting tcp's bandwidth_factor and latency_factor on top of the framing ({} cases)".format(len(kept)))
        fitted = fit_tcp(a.pssim, kept, latency)
        for r, p in zip(results, simulate.periods(a.pssim, jobs, fitted_network(*fitted), latency)):
            r["predicted"]["tcp fitted"] = p
    print(report.full_report(data, results, fitted))


# The predictions compared: each model without and with the wire's framing (tcp then with
# bandwidth_factor 1: LV08's 0.97 has the headers inside it).
VARIANTS = {
    "maxmin": {},
    "tcp": {"model": "tcp"},
    "maxmin+framing": {"framing": ETHERNET},
    "tcp+framing": {"model": "tcp", "tcp": {"bandwidth_factor": 1.0}, "framing": ETHERNET},
}


def fitted_network(bandwidth_factor, latency_factor):
    return {"model": "tcp", "tcp": {"bandwidth_factor": bandwidth_factor, "latency_factor": latency_factor},
            "framing": ETHERNET}


def fit_tcp(pssim, results, latency):
    """tcp's (bandwidth_factor, latency_factor) on top of the framing, fitted to `results`."""
    jobs = [(r["case"], r["rounds"]) for r in results]
    measured = [statistics.median(r["measured"]) for r in results]

    def predict(bandwidth_factor, latency_factor):
        return simulate.periods(pssim, jobs, fitted_network(bandwidth_factor, latency_factor), latency)

    fitted, _ = calibration.fit(predict, measured, start=(1.0, LV08_LATENCY_FACTOR),
                                bounds=((0.5, 1.0), (0.0, 100.0)))
    return fitted


def main(argv):
    a = parse(argv)

    def interrupted(signum, frame):
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # a second one must not cut the clean-up short
            signal.signal(s, signal.SIG_IGN)
        raise Interrupted(signal.Signals(signum).name)

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, interrupted)
    start = time.monotonic()
    try:
        if a.load:
            data = json.loads(pathlib.Path(a.load).read_text())
        else:
            data = measure_all(a)
            log("testbed removed")
            if a.save:
                pathlib.Path(a.save).write_text(json.dumps(data, indent=1))
        analyse(data, a)
    except Interrupted as e:
        log("interrupted ({}); the testbed is removed".format(e))
        return 130
    except (measure.MeasurementError, simulate.SimulationError, RuntimeError, OSError, ValueError, KeyError) as e:
        log("error: {}".format(e))
        return 1
    log("done in {:.0f} s".format(time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
