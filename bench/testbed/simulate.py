"""The simulated side of the testbed: `pssim run` on a case's scenario, read back as a period.

period(): the mean round of the rounds after the warm-up, from rounds.csv's end times,
exactly as the real side measures it (testbed.py). Simulator runs are independent
processes; periods() runs them two at a time.
"""
import concurrent.futures
import csv
import pathlib
import subprocess
import tempfile

from cases import WARMUP, scenario


class SimulationError(RuntimeError):
    pass


def period(pssim, case, network, nic_latency_s, rounds):
    """Seconds per round of `case` under `network` (cases.scenario), by `pssim run`."""
    with tempfile.TemporaryDirectory(prefix="pssim-testbed-") as tmp:
        path = pathlib.Path(tmp) / "case.yaml"
        path.write_text(scenario(case, network, nic_latency_s, rounds))
        done = subprocess.run([str(pssim), "run", str(path), "-o", str(pathlib.Path(tmp) / "out"), "-q"],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise SimulationError("pssim run on {} failed: {}".format(case.name, done.stderr.strip()))
        with open(pathlib.Path(tmp) / "out" / "rounds.csv", newline="") as f:
            ends = [float(row["end_s"]) for row in csv.DictReader(f)]
    if len(ends) != WARMUP + rounds:
        raise SimulationError("{}: {} rounds simulated, {} expected".format(case.name, len(ends), WARMUP + rounds))
    return (ends[-1] - ends[WARMUP - 1]) / rounds


def periods(pssim, jobs, network, nic_latency_s, workers=2):
    """[period(...)] for each (case, rounds) of `jobs`, in order."""
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(period, pssim, case, network, nic_latency_s, rounds) for case, rounds in jobs]
        return [f.result() for f in futures]
