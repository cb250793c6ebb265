# %% [markdown]
# # Your PyTorch model on a simulated cluster
#
# A convolutional network of one's own, written in PyTorch, trained on Fashion-MNIST inside a
# simulated cluster of 8 workers on 1 Gbps links, three ways: synchronous parameter server,
# asynchronous parameter server, ring all-reduce. pssim simulates who sends what over which
# link and when; PyTorch computes every worker's gradient at exactly the parameters that
# worker holds. Run it as a script (`/usr/bin/python3 analysis/examples/torch_cluster.py`,
# about 2 minutes on 2 cores) or cell by cell (`# %%`) in an editor that knows the format.
# PSSIM_EXAMPLE_QUICK=1 runs a short version (the tests do); PSSIM_EXAMPLE_OUT sets where
# the figure goes (default results/examples/torch_cluster).

# %%
import os
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))  # the pssim package of these sources
import pssim  # noqa: E402

QUICK = os.environ.get("PSSIM_EXAMPLE_QUICK") == "1"
OUT = pathlib.Path(os.environ.get("PSSIM_EXAMPLE_OUT", "results/examples/torch_cluster"))


# %% [markdown]
# The model: two convolutions with GroupNorm (BatchNorm's running statistics are not
# parameters a server could hold, so pssim refuses them), 11,000 parameters.

# %%
class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3), nn.GroupNorm(2, 8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


# %% [markdown]
# The cluster, as a dict (a YAML file works the same): 8 workers of 2 GFLOPS with
# lognormal speeds, 1 Gbps NICs, Fashion-MNIST batches of 32, plain SGD at 0.05 (at 0.1 the
# stale gradients of 8 asynchronous workers kill the network: its loss stays at ln 10).

# %%
scenario = {
    "name": "my-cnn",
    "data": {"kind": "fashion-mnist", "batch_size": 32, "eval_max": 2000},
    "training": {"optimizer": {"kind": "sgd", "lr": 0.05},
                 "stop": {"sim_time": "1s" if QUICK else "20s"}, "eval": {"every": "0.25s" if QUICK else "1s"}},
    "cluster": {"workers": {"count": 8, "throughput": "2GFLOPS", "speed": {"dist": "lognormal", "sigma": 0.3}}},
    "network": {"worker_nic": {"bandwidth": "1Gbps", "latency": "50us"},
                "server_nic": {"bandwidth": "1Gbps", "latency": "50us"}},
    "model": {"kind": "torch"},
}

# %% [markdown]
# Three schemes, each from the same initial parameters.

# %%
schemes = {
    "sync PS": {"mode": "sync"},
    "async PS": {"mode": "async"},
    "ring all-reduce": {"mode": "allreduce", "algorithm": "ring"},
}
runs = {}
for label, protocol in schemes.items():
    torch.manual_seed(0)
    runs[label] = pssim.run(scenario, overrides={"protocol": protocol}, model=SmallCnn())
    print("{:16s} final test accuracy {:.3f}, {} updates, {:.3g} GB sent".format(
        label, runs[label].summary["final_test_accuracy"], runs[label].summary["updates"],
        runs[label].summary["bytes_sent"] / 1e9))

# %% [markdown]
# Test accuracy against simulated time, and against bytes sent.

# %%
fig, (by_time, by_bytes) = plt.subplots(1, 2, figsize=(10, 4))
for label, r in runs.items():
    e = r.evals
    by_time.plot(e["time_s"], e["test_accuracy"], label=label)
    by_bytes.plot(e["bytes_sent"] / 1e9, e["test_accuracy"], label=label)
by_time.set(xlabel="simulated time (s)", ylabel="test accuracy", title="SmallCnn (PyTorch), 8 workers, 1 Gbps")
by_bytes.set(xlabel="bytes sent (GB)", ylabel="test accuracy", title="accuracy per byte")
for ax in (by_time, by_bytes):
    ax.grid(alpha=0.3)
    ax.legend()
fig.tight_layout()
OUT.mkdir(parents=True, exist_ok=True)
fig.savefig(OUT / "accuracy.png", dpi=120)
print("figure:", OUT / "accuracy.png")
