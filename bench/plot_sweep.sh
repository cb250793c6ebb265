#!/usr/bin/env bash
# What `pssim plot` costs on a big sweep: a 78-point sweep (the timing-only sharded job of
# scenarios/timing/sharded-sync.yaml, 6 worker counts x 13 shard counts, 3 rounds each) is
# run once, then `pssim plot` draws it with its default outputs and with --per-point (each
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
base: $root/scenarios/timing/sharded-sync.yaml
set: {training.stop.updates: 3}
grid:
  cluster.workers.count: [4, 8, 16, 32, 64, 128]
  cluster.servers: [{count: 1, shards: 1}, {count: 2, shards: 2}, {count: 3, shards: 3}, {count: 4, shards: 4},
                    {count: 5, shards: 5}, {count: 6, shards: 6}, {count: 7, shards: 7}, {count: 8, shards: 8},
                    {count: 9, shards: 9}, {count: 10, shards: 10}, {count: 11, shards: 11},
                    {count: 12, shards: 12}, {count: 13, shards: 13}]
EOF
"$pssim" sweep "$tmp/sweep.yaml" -o "$tmp/sweep" -q
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
