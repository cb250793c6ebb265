#!/usr/bin/env bash
# One-epoch Fashion-MNIST test accuracy of pssim's single-process baseline and of the same
# network in PyTorch, over several seeds (issue 4, item 10: SGD lr 0.05, momentum 0.9,
# batch 64, one epoch). The final accuracy of one run varies by several points with the
# seed at this learning rate, so both sides are run for every seed and summarized.
#
#   bench/accuracy_vs_torch.sh "convnet-small mlp" "1 2 3 4 5" [BUILD_DIR]
#
# PyTorch side: /usr/bin/python3 with python3-torch (skipped when absent), one thread.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
presets=${1:-"convnet-small mlp mnist-net"}
seeds=${2:-"1 2 3"}
build=${3:-"$root/build/release"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
"$build/bench/models_bench" --steps 1 --manifests "$tmp/m" > /dev/null
have_torch=0
/usr/bin/python3 -c "import torch" 2>/dev/null && have_torch=1
for p in $presets; do
  for s in $seeds; do
    acc=$("$build/bench/train_baseline" "$p" --seed "$s" --eval-every 0 | sed -n 's/^# final test accuracy \([0-9.]*\)%.*/\1/p')
    echo "pssim $p $s $acc"
  done
  if [ "$have_torch" = 1 ]; then
    /usr/bin/python3 "$root/analysis/torch_train_baseline.py" "$tmp/m/$p.json" --seeds $seeds |
      sed -n "s/^.* seed \([0-9]*\): test accuracy \([0-9.]*\)%/torch $p \1 \2/p"
  fi
done | tee "$tmp/all.txt"
/usr/bin/python3 - "$tmp/all.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    side, preset, seed, acc = line.split()
    runs.setdefault((preset, side), []).append(float(acc))
print(f"{'preset':14s} {'side':6s} {'runs':>4s} {'mean':>7s} {'sd':>5s} {'min':>7s} {'max':>7s}")
for (preset, side), a in runs.items():
    sd = statistics.stdev(a) if len(a) > 1 else 0.0
    print(f"{preset:14s} {side:6s} {len(a):4d} {statistics.mean(a):7.2f} {sd:5.2f} {min(a):7.2f} {max(a):7.2f}")
PY
