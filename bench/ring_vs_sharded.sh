#!/usr/bin/env bash
# Per-flow speed of the ring all-reduce benchmark against sharded sync, as a user runs
# them (`pssim run`, default outputs; flows_per_s of summary.json: flows over the wall
# time of the simulation itself):
#   ring      bench/scenarios/ring-allreduce-1024.yaml (1,024 workers, 10 iterations, 21 M flows)
#   shard1k   bench/scenarios/sharded-sync-1024.yaml for 100 rounds (1.6 M flows; its own
#             10 rounds last 0.04 s, too short to time on a shared host)
#   shard16k  scenarios/timing/sharded-sync.yaml with 16,384 workers, 10 rounds (2.6 M flows)
# The three alternate R times; the table shows each one's median and range, and the
# ring's rate over each sharded run's, per repetition (median and range).
#
#   bench/ring_vs_sharded.sh [--repeats R] [--build DIR]
#
# Defaults: R = 5, DIR = build/release. Timings on a shared machine move with its load.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release"
repeats=5
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) repeats=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "ring_vs_sharded.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
pssim="$build/sim/cli/pssim"
[ -x "$pssim" ] || { echo "ring_vs_sharded.sh: build $pssim first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# rate LABEL SCENARIO [--set ...]: one run; appends its flows_per_s to $tmp/LABEL.
rate() {
  local label=$1 scenario=$2
  shift 2
  "$pssim" run "$root/$scenario" -q -o "$tmp/out" "$@"
  sed -n 's/^ *"flows_per_s": *\([0-9.e+-]*\),*$/\1/p' "$tmp/out/summary.json" >> "$tmp/$label"
  rm -rf "$tmp/out"
}
# summary FILE UNIT: "median [min-max]" of the numbers in FILE, divided by UNIT.
summary() {
  sort -g "$1" | awk -v u="$2" '{v[NR] = $1 / u}
    END {printf "%.2f [%.2f-%.2f]", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR]}'
}

echo "# $(uptime)"
for ((i = 0; i < repeats; ++i)); do
  rate ring bench/scenarios/ring-allreduce-1024.yaml
  rate shard1k bench/scenarios/sharded-sync-1024.yaml --set training.stop.updates=100
  rate shard16k scenarios/timing/sharded-sync.yaml --set cluster.workers.count=16384 --set training.stop.updates=10
done
paste "$tmp/ring" "$tmp/shard1k" | awk '{print $1 / $2}' > "$tmp/ratio1k"
paste "$tmp/ring" "$tmp/shard16k" | awk '{print $1 / $2}' > "$tmp/ratio16k"
echo "median [range] of $repeats"
printf '%-22s %s\n' "ring M flows/s" "$(summary "$tmp/ring" 1e6)" "shard1k M flows/s" "$(summary "$tmp/shard1k" 1e6)" \
  "shard16k M flows/s" "$(summary "$tmp/shard16k" 1e6)" "ring / shard1k" "$(summary "$tmp/ratio1k" 1)" \
  "ring / shard16k" "$(summary "$tmp/ratio16k" 1)"
