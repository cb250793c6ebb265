#!/usr/bin/python3
"""Times one PyTorch training step (forward + backward + SGD momentum step) per network
described in DIR/*.json (written by `models_bench --manifests DIR`), on the CPU with the
given number of threads. Prints CSV: preset,ms_per_step (median of the timed steps).

    /usr/bin/python3 bench/torch_bench.py DIR [--threads 1] [--only PRESET]
"""
import argparse
import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
import torch  # noqa: E402
import torch_models  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--only", default=None, help="time only this preset (its label)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print("preset,torch_ms_per_step")
    for path in sorted(glob.glob(os.path.join(args.dir, "*.json"))):
        with open(path) as f:
            case = json.load(f)
        if args.only and case["label"] != args.only:
            continue
        manifest = case["model"]
        module = torch_models.build(manifest)
        module.train()
        opt = torch.optim.SGD(module.parameters(), lr=0.05, momentum=0.9)
        b = case["batch"]
        if manifest["kind"] == "lstm_lm":
            batch = {"tokens": torch.randint(0, manifest["vocab_size"], (b, case["seq_len"] + 1))}
        else:
            c, h, w = manifest["input"]
            batch = {"inputs": torch.rand(b, c, h, w),
                     "labels": torch.randint(0, manifest["num_classes"], (b,))}
        times = []
        for step in range(case["steps"] + 3):
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            loss = torch_models.loss_of(module, manifest, batch)
            loss.backward()
            opt.step()
            if step >= 3:
                times.append(time.perf_counter() - t0)
        times.sort()
        print(f"{case['label']},{times[len(times) // 2] * 1e3:.4f}", flush=True)


if __name__ == "__main__":
    main()
