#!/usr/bin/python3
"""Compare pssim's loss and gradients with PyTorch's for exported gradient cases.

    /usr/bin/python3 analysis/check_against_torch.py CASE_DIR [CASE_DIR ...]

Each CASE_DIR is written by pssim (models::export_gradient_case: `pssim grad`, or
build/release/bench/models_export_case). The script rebuilds the nn.Module from
model.json, loads params/*.npy with load_state_dict(strict=True) (names, shapes and order
must match PyTorch's state_dict), replays the batch with pssim's dropout masks (or in
evaluation mode, module.eval(), for a case exported with "mode": "eval": an LSTM with
dropout), clips the gradient with torch.nn.utils.clip_grad_norm_ when the case was
exported with training.clip_norm, and compares the loss and every gradient tensor. Relative difference of a tensor:
max|g_pssim - g_torch| / max|g_torch|. Exit status 1 if any exceeds --tol (default 1e-4).

--near-ties: where a max-pool window holds two values within 1e-6 of each other, float32
rounding may rank them the other way than the float64 reference, sending that unit's
gradient to the neighbouring pixel (an equally valid subgradient; on Fashion-MNIST's flat
backgrounds such windows occur). With the option, a case beyond --tol is recomputed with
the runner-up taken in every subset of those windows (up to 2^12 subsets), and the best
is reported with the windows it flipped.
Needs Debian's python3-torch (scripts/install-deps.sh --torch); run with /usr/bin/python3.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch_models  # noqa: E402


def gradients(case_dir, info, dtype, near_tie_pools=False, flip=0, counts=()):
    """PyTorch's loss and gradients for the case; with near_tie_pools, the pooling layers
    take the runner-up in the near-tie windows selected by the bit mask `flip` (the windows
    of each pooling layer in turn, `counts` of them per layer). Returns (loss,
    {name: gradient}, near-tie windows per pooling layer, gradient norm before clipping or
    None). The case's mode (train or eval) and clip_norm apply."""
    manifest = info["model"]
    torch.manual_seed(0)
    module = torch_models.build(manifest, near_tie_pools).to(dtype)
    offset = 0
    for pool, count in zip(getattr(module, "pools", []), counts):
        pool.flip = (flip >> offset) & ((1 << count) - 1)
        offset += count
    names = list(module.state_dict().keys())
    state = {n: torch.from_numpy(np.load(os.path.join(case_dir, "params", n + ".npy"))).to(dtype)
             for n in names}
    module.load_state_dict(state, strict=True)
    batch = {}
    if manifest["kind"] == "lstm_lm":
        batch["tokens"] = torch.from_numpy(np.load(os.path.join(case_dir, "batch_tokens.npy")))
    else:
        batch["inputs"] = torch.from_numpy(np.load(os.path.join(case_dir, "batch_inputs.npy"))).to(dtype)
        batch["labels"] = torch.from_numpy(np.load(os.path.join(case_dir, "batch_labels.npy")))
        for key, m in module.dropouts.items():
            m.mask = torch.from_numpy(np.load(os.path.join(case_dir, "dropout", key + ".npy"))).to(dtype)
    eval_mode = info.get("mode", "train") == "eval"
    module.eval() if eval_mode else module.train()
    loss = torch_models.loss_of(module, manifest, batch)
    loss.backward()
    norm = None
    clip = info.get("clip_norm")
    if clip is not None:
        norm = float(torch.nn.utils.clip_grad_norm_(module.parameters(), clip))
    ties = [pool.near_ties() for pool in getattr(module, "pools", [])]
    return loss.item(), {name: p.grad.double().numpy() for name, p in module.named_parameters()}, ties, norm


def compare(case_dir, loss, grads):
    pssim_loss = float(np.load(os.path.join(case_dir, "loss.npy"))[0])
    loss_rel = abs(pssim_loss - loss) / abs(loss)
    rows = []
    for name, g_ref in grads.items():
        g = np.load(os.path.join(case_dir, "grads", name + ".npy")).astype(np.float64)
        rows.append((name, list(g.shape), float(np.abs(g - g_ref).max() / max(np.abs(g_ref).max(), 1e-30))))
    return pssim_loss, loss_rel, rows, max([loss_rel] + [r[2] for r in rows])


def check(case_dir, tol, dtype, near_ties):
    with open(os.path.join(case_dir, "model.json")) as f:
        info = json.load(f)
    manifest = info["model"]
    loss, grads, _, norm = gradients(case_dir, info, dtype)
    pssim_loss, loss_rel, rows, worst = compare(case_dir, loss, grads)
    label = manifest.get("label", manifest["kind"])
    extras = []
    if manifest.get("dropout"):
        extras.append(f"dropout {manifest['dropout']}, {'eval' if info.get('mode') == 'eval' else 'train'} mode")
    if info.get("clip_norm") is not None:
        extras.append(f"clipped to norm {info['clip_norm']:g} (norm before: {norm:.4g})")
    print(f"{label} ({case_dir}){' [' + '; '.join(extras) + ']' if extras else ''}: loss pssim {pssim_loss:.7f} "
          f"torch {loss:.7f} rel {loss_rel:.2e}")
    for name, shape, rel in rows:
        print(f"    {name:24s} {str(shape):18s} max rel diff {rel:.2e}")
    print(f"    worst relative difference {worst:.2e} ({'OK' if worst <= tol else 'FAIL'})")
    if worst > tol and near_ties and manifest["kind"] == "sequential":
        _, _, counts, _ = gradients(case_dir, info, dtype, True)
        ties = sum(counts)
        if 0 < ties <= 12:
            best, flip = min((compare(case_dir, *gradients(case_dir, info, dtype, True, f, counts)[:2])[3], f)
                             for f in range(1 << ties))
            flipped = [j for j in range(ties) if (flip >> j) & 1]
            print(f"    {ties} pooling window(s) hold two values within 1e-6; with the runner-up in window(s) "
                  f"{flipped}: worst relative difference {best:.2e} ({'OK' if best <= tol else 'FAIL'})")
            worst = best
        else:
            print(f"    {ties} pooling windows hold two values within 1e-6: not searched (0 or more than 12)")
    return worst <= tol


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--float32", action="store_true",
                    help="run PyTorch in float32 (default float64: the reference is exact to "
                         "pssim's float32 rounding, except where float32 makes values tie, "
                         "e.g. equal maxima in a pooling window)")
    ap.add_argument("--near-ties", action="store_true",
                    help="search the runner-up choices of near-tie max-pool windows (see above)")
    args = ap.parse_args()
    dtype = torch.float32 if args.float32 else torch.float64
    print(f"PyTorch {torch.__version__} in {'float32' if args.float32 else 'float64'}")
    ok = all([check(c, args.tol, dtype, args.near_ties) for c in args.cases])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
