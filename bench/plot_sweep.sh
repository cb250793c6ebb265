#!/usr/bin/env bash
# What `pssim plot` costs on a big sweep: a 78-point sweep (the quickstart job, 6 worker
# counts x 13 learning rates, 1 simulated second each, evaluated every 0.25 s) is run once,
# then `pssim plot` draws it with its default outputs (accuracy against time and bytes,
# time to target, accuracy and staleness against workers) and with --per-point (each
# point's own link-utilization figure too), alternating, R times each; prints the medians
# of the process wall times and the files written.
#
#   bench/plot_sweep.sh [--repeats R] [--build DIR]
#
# Defaults: R = 3, DIR = build/release. A shared machine's load moves timings: compare
# medians, and look at `uptime`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release"
repeats=3
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) repeats=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "plot_sweep.sh: unknown argument '$1' (known: --repeats R, --build DIR)" >&2; exit 2 ;;
  esac
done
pssim="$build/sim/cli/pssim"
[ -x "$pssim" ] || { echo "plot_sweep.sh: build $pssim first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/sweep.yaml" <<EOF
name: plot-78
base: $root/scenarios/quickstart.yaml
set: {training.stop.sim_time: 1s, training.eval.every: 0.25s, data.eval_max: 500}
grid:
  cluster.workers.count: [2, 4, 8, 16, 32, 64]
  training.optimizer.lr: [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13]
EOF
"$pssim" sweep "$tmp/sweep.yaml" -o "$tmp/sweep" -q -j "$(nproc)"
echo "load average $(cut -d" " -f1-3 /proc/loadavg)"
points=$(($(wc -l < "$tmp/sweep/sweep.csv") - 1))

# plot LABEL [ARG...]: one pssim plot; appends its wall seconds to $tmp/LABEL and keeps
# the number of files it wrote.
plot() {
  local label=$1
  shift
  rm -rf "$tmp/plots"
  local start end
  start=$(date +%s%N)
  "$pssim" plot "$tmp/sweep" -o "$tmp/plots" "$@" > "$tmp/$label.files"
  end=$(date +%s%N)
  echo "scale=3; ($end - $start) / 1000000000" | bc >> "$tmp/$label"
}
median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for _ in $(seq "$repeats"); do
  plot default
  plot per-point --per-point
done
echo "pssim plot of a ${points}-point sweep, medians of $repeats runs (process wall time):"
printf '  %-24s %7s s  %4d files\n' "default" "$(median "$tmp/default")" "$(wc -l < "$tmp/default.files")"
printf '  %-24s %7s s  %4d files\n' "--per-point" "$(median "$tmp/per-point")" "$(wc -l < "$tmp/per-point.files")"
