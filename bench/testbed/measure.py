"""The real side of the testbed: round programs (peer.py) run in the namespaces of a Testbed.

run_case() shapes the hosts a case uses, starts its servers and workers (or ring members),
each in its namespace with a timeout, and returns the period of the rounds after the
warm-up: the mean round between the end of round WARMUP and the end of the last round,
where a round ends when every server has every push of it (PS: the barrier, as pssim's
rounds.csv) or every ring member holds the result. line_rate() and rtt() are the checks
made before the cases, with parallel_flows(): whether the machine keeps up with as many
flows as a case runs.
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import time

from cases import WARMUP

PEER = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer.py")]
PORT = 5000


class MeasurementError(RuntimeError):
    pass


def run_peers(testbed, commands, timeout_s):
    """Runs (host, peer.py arguments) pairs at once; returns their JSON results in order.
    Every process gets the timeout; past timeout_s + 5 s, or on any failure or interrupt,
    all of them are killed (each is the leader of its own process group)."""
    procs = []
    try:
        for host, args in commands:
            argv = testbed.command(host, PEER + list(args) + ["--timeout", str(timeout_s)])
            procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          start_new_session=True))
        results = []
        for p in procs:
            out, err = p.communicate(timeout=timeout_s + 5)
            if p.returncode != 0:
                raise MeasurementError("a round program failed ({}): {}".format(p.returncode, err.strip()))
            results.append(json.loads(out))
        return results
    except subprocess.TimeoutExpired:
        raise MeasurementError("a round program did not end within {:g} s".format(timeout_s + 5))
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def line_rate(testbed, bps, seconds=2.0):
    """Payload bytes/s of one TCP flow from host 0 to host 1, both NICs at bps (None: unshaped)."""
    for i in (0, 1):
        if bps:
            testbed.shape(i, bps, bps)
        else:
            testbed.unshape(i)
    sink, _ = run_peers(testbed, [(1, ["sink", "--listen", str(PORT)]),
                                  (0, ["source", "--to", testbed.address(1) + ":" + str(PORT),
                                       "--seconds", str(seconds)])], seconds + 20)
    return sink["rate_Bps"]


def parallel_flows(testbed, flows, bps, seconds=2.0):
    """Payload bytes/s of each of `flows` flows at once, host i to host flows + i, NICs at
    bps: whether the machine can carry that many. Each flow has NICs of its own, and its
    ACKs cross directions that carry no data (in a ring of flows they would take about 3 %
    of every upload: TCP's cross-traffic, not the machine)."""
    for i in range(2 * flows):
        testbed.shape(i, bps, bps)
    commands = [(flows + i, ["sink", "--listen", str(PORT)]) for i in range(flows)]
    commands += [(i, ["source", "--to", "{}:{}".format(testbed.address(flows + i), PORT),
                      "--seconds", str(seconds)]) for i in range(flows)]
    return [r["rate_Bps"] for r in run_peers(testbed, commands, seconds + 20)[:flows]]


def rtt(testbed, bps):
    """Median round trip of a 1-byte message between hosts 0 and 1, NICs at bps."""
    for i in (0, 1):
        testbed.shape(i, bps, bps)
    _, ping = run_peers(testbed, [(1, ["echo", "--listen", str(PORT)]),
                                  (0, ["ping", "--to", testbed.address(1) + ":" + str(PORT), "--count", "300"])],
                        30)
    return ping["rtt_median_ns"] * 1e-9


def run_case(testbed, case, rounds):
    """One measurement of `case`: {"period": seconds per round (rounds after WARMUP),
    "pull_spread": for PS with several workers, the median over those rounds of the time
    between the first and the last worker holding a round's parameters, over the period
    (None otherwise)}."""
    total = WARMUP + rounds
    timeout = 20 + 10 * total * case.estimate_s()
    spread = None
    if case.scheme == "ring":
        for i in range(case.workers):
            testbed.shape(i, case.worker_bps, case.worker_bps, case.delay_s)
        commands = [(i, ["ring", "--size", str(case.workers), "--listen", str(PORT),
                         "--right", "{}:{}".format(testbed.address((i + 1) % case.workers), PORT),
                         "--bytes", str(case.bytes), "--rounds", str(total)])
                    for i in range(case.workers)]
        ends = round_ends(run_peers(testbed, commands, timeout), total)
    else:
        k = case.servers
        servers, workers = range(k), range(k, k + case.workers)
        for i in servers:
            testbed.shape(i, case.server_rate, case.server_rate, case.delay_s)
        for i in workers:
            testbed.shape(i, case.worker_bps, case.worker_bps, case.delay_s)
        part = str(case.bytes // k)
        commands = [(i, ["server", "--listen", str(PORT), "--workers", str(case.workers), "--bytes", part,
                         "--rounds", str(total)]) for i in servers]
        addresses = [a for i in servers for a in ("--server", "{}:{}".format(testbed.address(i), PORT))]
        commands += [(i, ["worker", "--bytes", part, "--rounds", str(total)] + addresses) for i in workers]
        results = run_peers(testbed, commands, timeout)
        ends = round_ends(results[:k], total)  # the servers' barriers
        if case.workers > 1:  # held_ns[r]: the parameters of round r (0: the initial ones)
            held = [r["held_ns"] for r in results[k:]]
            spread = statistics.median(max(h[r] for h in held) - min(h[r] for h in held)
                                       for r in range(WARMUP, total))
    period = (ends[-1] - ends[WARMUP - 1]) * 1e-9 / rounds
    return {"period": period, "pull_spread": None if spread is None else spread * 1e-9 / period}


def round_ends(results, total):
    """When each round ended: the last of the peers' ends of it."""
    return [max(r["ends_ns"][j] for r in results) for j in range(total)]


def load_average():
    return os.getloadavg()[0]


def wait_for_load(limit, patience_s, log):
    """Waits (up to patience_s) until the 1-minute load average is below limit; returns it."""
    start = time.monotonic()
    load = load_average()
    while limit and load > limit and time.monotonic() - start < patience_s:
        log("load {:.2f} > {:.2f}: waiting".format(load, limit))
        time.sleep(15)
        load = load_average()
    return load
