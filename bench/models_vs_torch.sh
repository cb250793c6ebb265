#!/usr/bin/env bash
# pssim's models vs PyTorch on the CPU, one thread each, same networks and batch sizes:
# ms per training step (forward + backward + SGD-momentum step) side by side, pssim's
# GFLOP/s and its share of the core's Eigen GEMM rate.
#
#   bench/models_vs_torch.sh [BUILD_DIR] [--steps N] [--rounds R]
#
# BUILD_DIR defaults to build/release. For each preset, pssim and PyTorch are timed
# alternately R times (default 3) and the median of the R medians is shown, so that a
# load change on a shared machine hits both sides alike. The PyTorch side runs with
# /usr/bin/python3 when Debian's python3-torch is importable (scripts/install-deps.sh
# --torch also installs libopenblas0-openmp so that PyTorch does not use the reference
# BLAS); otherwise it is skipped. OMP/OpenBLAS/MKL threads are pinned to 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release"
steps=20
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) build=$1; shift ;;
  esac
done
bench="$build/bench/models_bench"
[ -x "$bench" ] || { echo "models_vs_torch: $bench not built; run cmake --build --preset release" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
have_torch=0
torch_version="not installed (scripts/install-deps.sh --torch)"
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  have_torch=1
  torch_version=$(/usr/bin/python3 -c "import torch; print(torch.__version__)")
fi
"$bench" --csv --steps 1 --manifests "$tmp/manifests" > "$tmp/list.csv"
presets=$(tail -n +3 "$tmp/list.csv" | cut -d, -f1)
: > "$tmp/pssim.csv"
: > "$tmp/torch.csv"
for round in $(seq "$rounds"); do
  for p in $presets; do
    "$bench" --csv --steps "$steps" --only "$p" | tail -n +2 >> "$tmp/pssim.csv"
    if [ "$have_torch" = 1 ]; then
      /usr/bin/python3 "$root/bench/torch_bench.py" "$tmp/manifests" --threads 1 --only "$p" |
        tail -n +2 >> "$tmp/torch.csv"
    fi
  done
done
/usr/bin/python3 - "$tmp/pssim.csv" "$tmp/torch.csv" "$torch_version" "$rounds" <<'PY'
import csv, statistics, sys
med = statistics.median
rows, gemm, torch = {}, [], {}
for r in csv.reader(open(sys.argv[1])):
    if r[0] == "eigen-gemm-512":
        gemm.append(float(r[4]))
    else:
        rows.setdefault(r[0], []).append(r)
for r in csv.reader(open(sys.argv[2])):
    torch.setdefault(r[0], []).append(float(r[1]))
peak = med(gemm)
print(f"Eigen 512^3 float GEMM, one thread: {peak:.1f} GFLOP/s (median of {len(gemm)}, "
      f"range {min(gemm):.1f}-{max(gemm):.1f});  PyTorch: {sys.argv[3]};  rounds: {sys.argv[4]}")
print(f"{'preset':14s} {'batch':>5s} {'GFLOP/step':>10s} {'pssim ms':>9s} {'GFLOP/s':>8s} "
      f"{'%GEMM':>6s} {'torch ms':>9s} {'pssim/torch':>11s}  (pssim ms per round | torch ms per round)")
for name, rs in rows.items():
    ms = med([float(r[2]) for r in rs])
    gflop = float(rs[0][3])
    g = gflop / ms * 1e3
    t = med(torch[name]) if name in torch else None
    tcol = f"{t:9.2f}" if t else f"{'-':>9s}"
    ratio = f"{ms / t:10.2f}x" if t else f"{'-':>11s}"
    detail = " ".join(f"{float(r[2]):.2f}" for r in rs) + " | " + " ".join(f"{x:.2f}" for x in torch.get(name, []))
    print(f"{name:14s} {rs[0][1]:>5s} {gflop:10.4f} {ms:9.2f} {g:8.2f} {100 * g / peak:5.1f}% {tcol} {ratio}  ({detail})")
PY
