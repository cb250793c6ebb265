#!/usr/bin/python3
"""PyTorch reference for pssim's single-process baseline: trains the twin of a pssim
network (analysis/torch_models.py) on Fashion-MNIST for one epoch with SGD and prints the
final test accuracy, so pssim's bench/train_baseline can be compared on the same machine.

    /usr/bin/python3 analysis/torch_train_baseline.py MANIFEST_JSON [--seeds 1 2 3]
        [--lr 0.05] [--momentum 0.9] [--batch 64] [--mean 0 --std 1] [--threads 1]

MANIFEST_JSON: a file written by `models_bench --manifests DIR` (or a model.json of an
exported gradient case). Data: Debian's dataset-fashion-mnist IDX files.
"""
import argparse
import gzip
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch_models  # noqa: E402

DIR = "/usr/share/datasets/fashion-mnist"


def idx(name):
    with gzip.open(os.path.join(DIR, name)) as f:
        data = f.read()
    ndims = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndims).reshape(dims)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("manifest")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--mean", type=float, default=0.0)
    ap.add_argument("--std", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    with open(args.manifest) as f:
        manifest = json.load(f)["model"]
    norm = lambda x: (torch.from_numpy(x.astype(np.float32) / 255.0) - args.mean) / args.std
    xtr = norm(idx("train-images-idx3-ubyte.gz")).unsqueeze(1)
    ytr = torch.from_numpy(idx("train-labels-idx1-ubyte.gz").astype(np.int64))
    xte = norm(idx("t10k-images-idx3-ubyte.gz")).unsqueeze(1)
    yte = torch.from_numpy(idx("t10k-labels-idx1-ubyte.gz").astype(np.int64))
    for seed in args.seeds:
        torch.manual_seed(seed)
        model = torch_models.build(manifest)
        opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
        model.train()
        perm = torch.randperm(len(ytr))
        for start in range(0, len(ytr), args.batch):
            i = perm[start:start + args.batch]
            opt.zero_grad(set_to_none=True)
            F.nll_loss(model(xtr[i]), ytr[i]).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = (model(xte).argmax(1) == yte).float().mean().item()
        print(f"{manifest.get('label', manifest['kind'])} seed {seed}: test accuracy {100 * acc:.2f}%",
              flush=True)


if __name__ == "__main__":
    main()
