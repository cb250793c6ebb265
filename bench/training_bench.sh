#!/usr/bin/env bash
# Training inside the simulation (issue 5): speed-up from threads, simulator overhead, and
# the peak memory of async training with 256 workers.
#
#   bench/training_bench.sh [build dir, default build/release]
#
# 1. sync16-mnist-net on 1 and 2 threads: wall time and speed-up (outputs are identical).
# 2. The same with model.math=false: everything but the math. Overhead = that wall time
#    over the 1-thread wall time.
# 3. async256-mnist-net: peak RSS (summary.json), wall time.
set -euo pipefail
build=${1:-build/release}
pssim="$build/sim/cli/pssim"
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
field() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

for t in 1 2; do
  "$pssim" run "$here/scenarios/sync16-mnist-net.yaml" --threads $t -q -o "$out/sync-$t"
done
"$pssim" run "$here/scenarios/sync16-mnist-net.yaml" --set model.math=false -q -o "$out/sync-nomath"
w1=$(field "$out/sync-1/summary.json" wall_time_s)
w2=$(field "$out/sync-2/summary.json" wall_time_s)
w0=$(field "$out/sync-nomath/summary.json" wall_time_s)
same=$(cmp -s "$out/sync-1/metrics.csv" "$out/sync-2/metrics.csv" && echo yes || echo NO)
printf 'sync16-mnist-net (12 rounds, 192 gradients of batch 64):\n'
printf '  1 thread  %8.2f s wall\n  2 threads %8.2f s wall   speed-up %.2fx (target >= 1.7x); identical metrics.csv: %s\n' \
  "$w1" "$w2" "$(awk -v a="$w1" -v b="$w2" 'BEGIN {print a / b}')" "$same"
printf '  math off  %8.4f s wall   simulator overhead %.3f%% of the 1-thread run (target < 5%%)\n' \
  "$w0" "$(awk -v a="$w0" -v b="$w1" 'BEGIN {print 100 * a / b}')"

"$pssim" run "$here/scenarios/async256-mnist-net.yaml" -q -o "$out/async"
rss=$(field "$out/async/summary.json" peak_rss_bytes)
printf 'async256-mnist-net (768 gradients): %.2f s wall, peak RSS %.0f MiB (target <= 1024 MiB)\n' \
  "$(field "$out/async/summary.json" wall_time_s)" "$(awk -v b="$rss" 'BEGIN {print b / 1048576}')"
