#!/usr/bin/env bash
# pssim's models vs PyTorch on the CPU, one thread each, same networks and batch sizes:
# ms per training step (forward + backward + SGD-momentum step) side by side, pssim's
# GFLOP/s and its share of the core's Eigen GEMM rate.
#
#   bench/models_vs_torch.sh [BUILD_DIR] [--steps N]     (BUILD_DIR default build/release)
#
# The PyTorch side runs with /usr/bin/python3 when Debian's python3-torch is importable
# (scripts/install-deps.sh --torch also installs libopenblas0-openmp so that PyTorch does
# not use the reference BLAS); otherwise it is skipped. OMP/OpenBLAS/MKL threads are
# pinned to 1 so both sides use one core.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release"
steps=20
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    *) build=$1; shift ;;
  esac
done
bench="$build/bench/models_bench"
[ -x "$bench" ] || { echo "models_vs_torch: $bench not built; run cmake --build --preset release" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
"$bench" --csv --steps "$steps" --manifests "$tmp/manifests" > "$tmp/pssim.csv"
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  /usr/bin/python3 "$root/bench/torch_bench.py" "$tmp/manifests" --threads 1 > "$tmp/torch.csv"
  torch_version=$(/usr/bin/python3 -c "import torch; print(torch.__version__)")
else
  echo "preset,torch_ms_per_step" > "$tmp/torch.csv"
  torch_version="not installed (scripts/install-deps.sh --torch)"
fi
/usr/bin/python3 - "$tmp/pssim.csv" "$tmp/torch.csv" "$torch_version" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
torch = {r["preset"]: float(r["torch_ms_per_step"]) for r in csv.DictReader(open(sys.argv[2]))}
peak = float(rows[0]["gflops"])
print(f"Eigen 512^3 float GEMM, one thread: {peak:.1f} GFLOP/s;  PyTorch: {sys.argv[3]}")
print(f"{'preset':14s} {'batch':>5s} {'GFLOP/step':>10s} {'pssim ms':>9s} {'GFLOP/s':>8s} "
      f"{'%GEMM':>6s} {'torch ms':>9s} {'pssim/torch':>11s}")
for r in rows[1:]:
    ms, g = float(r["ms_per_step"]), float(r["gflops"])
    t = torch.get(r["preset"])
    tcol = f"{t:9.2f}" if t else f"{'-':>9s}"
    ratio = f"{ms / t:10.2f}x" if t else f"{'-':>11s}"
    print(f"{r['preset']:14s} {r['batch']:>5s} {float(r['gflop_per_step']):10.4f} {ms:9.2f} "
          f"{g:8.2f} {100 * g / peak:5.1f}% {tcol} {ratio}")
PY
