#!/usr/bin/python3
"""The Python path's cost per gradient against the built-in Eigen path (issue 15).

For `mnist-net` (1.2 M parameters, batch 64, its dropout off as in the torch version) and
`mlp` (203 k, batch 32), one thread:
  eigen        a pssim run of the built-in network: wall time per gradient
  torch        the same run with the same network as a torch module (model=...)
  torch alone  a plain PyTorch loop: forward + backward of one batch (one intra-op thread)
The runs are 4 synchronous workers, evaluation on 64 test images only, so the wall time is
the gradients'. "glue" = torch - torch alone: what the bridge adds per gradient (GIL,
NumPy views, copying the parameters in and the gradient out, and each run's one-time costs:
module replicas, PyTorch's first calls). Median of REPEATS.

    /usr/bin/python3 bench/torch_overhead.py [REPEATS]     (after scripts/build.sh)
"""
import pathlib
import statistics
import sys
import time

import torch
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "python"))
import pssim  # noqa: E402
from test_torch import Mlp, MnistNet  # noqa: E402  the built-in networks, written in PyTorch

REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
CASES = [
    ("mnist-net", {"kind": "cnn", "preset": "mnist-net", "dropout": 0}, MnistNet, 64, 30),
    ("mlp", {"kind": "mlp", "hidden": [256]}, Mlp, 32, 100),
]


def per_gradient(overrides, model_factory=None):
    times = []
    for _ in range(REPEATS):
        model = model_factory() if model_factory else None
        r = pssim.run(ROOT / "scenarios/quickstart.yaml", overrides=overrides, threads=1, model=model,
                      progress=False)
        times.append(r.summary["wall_time_s"] / r.summary["gradients_applied"])
    return statistics.median(times)


def torch_alone(factory, batch, steps):
    torch.set_num_threads(1)
    module = factory()
    x, y = torch.randn(batch, 1, 28, 28), torch.randint(0, 10, (batch,))
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(steps):
            module.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(module(x), y).backward()
        times.append((time.perf_counter() - start) / steps)
    return statistics.median(times)


print("per gradient, one thread, median of {}:".format(REPEATS))
print("{:10s} {:>10s} {:>10s} {:>12s} {:>10s} {:>12s}".format("network", "eigen", "torch", "torch alone",
                                                               "glue", "torch/eigen"))
for name, model, factory, batch, rounds in CASES:
    sets = {"model": model, "data.batch_size": batch, "data.eval_max": 64, "cluster.workers.count": 4,
            "training.stop": {"updates": rounds}, "training.eval": {}}
    eigen = per_gradient(sets)
    sets_torch = dict(sets, model={"kind": "torch"})
    torched = per_gradient(sets_torch, factory)
    alone = torch_alone(factory, batch, 4 * rounds)
    print("{:10s} {:>8.2f}ms {:>8.2f}ms {:>10.2f}ms {:>8.3f}ms {:>11.2f}x".format(
        name, eigen * 1e3, torched * 1e3, alone * 1e3, (torched - alone) * 1e3, torched / eigen))
