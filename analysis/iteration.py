"""How long one iteration of a run takes, shared by compare.py and the figures."""
import csv
import os


def iteration_s(run_dir, summary):
    """A round (schemes with rounds: summary.json's mean_round_s), else a worker's mean
    iteration (async): the simulated time over the iterations of each worker that made
    some (workers.csv), averaged over those workers. None when neither is known."""
    if summary.get("mean_round_s") is not None:
        return summary["mean_round_s"]
    path = os.path.join(run_dir, "workers.csv")
    if not os.path.exists(path) or not summary.get("sim_time_s"):
        return None
    with open(path, newline="") as f:
        iterations = [int(row["iterations"]) for row in csv.DictReader(f) if int(row["iterations"]) > 0]
    return sum(summary["sim_time_s"] / i for i in iterations) / len(iterations) if iterations else None
