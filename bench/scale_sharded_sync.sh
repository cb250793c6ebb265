#!/usr/bin/env bash
# What a user gets from `pssim run` at scale: timing-only sharded sync
# (scenarios/timing/sharded-sync.yaml: a 100 MB model in 8 shards on 8 servers, 10 Gbps
# worker NICs, 25 Gbps server NICs, one switch) with N workers and 10 rounds, with the
# default outputs, and the same run without utilization bins (output.utilization_interval
# longer than the run). For each N the two runs alternate R times; the table shows the
# medians of the process wall times (everything: build, run, every output file), the
# ratio of the two, the default run's cost per round and per worker-round, how the cost
# per round grew from the previous N, and the largest peak RSS of the default runs.
#
#   bench/scale_sharded_sync.sh [--repeats R] [--build DIR] [N ...]
#
# Defaults: R = 3, DIR = build/release, N = 1024 2048 4096 16384 65536 262144. Timings
# on a shared machine move with its load: compare medians, and look at `uptime`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release"
repeats=3
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) repeats=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(1024 2048 4096 16384 65536 262144)
pssim="$build/sim/cli/pssim"
[ -x "$pssim" ] || { echo "scale_sharded_sync.sh: build $pssim first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL N [--set ...]: one run; appends "seconds rss_kb" to $tmp/LABEL-N.
run() {
  local label=$1 n=$2
  shift 2
  local start end
  start=$(date +%s%N)
  /usr/bin/time -f %M -o "$tmp/rss" "$pssim" run "$root/scenarios/timing/sharded-sync.yaml" -q -o "$tmp/out" \
    --set cluster.workers.count="$n" --set training.stop.updates=10 "$@"
  end=$(date +%s%N)
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", (b - a) / 1e9}') $(cat "$tmp/rss")" >> "$tmp/$label-$n"
  rm -rf "$tmp/out"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "# $(uptime)"
printf '%8s %11s %11s %7s %11s %14s %8s %9s %10s\n' N default_s no_bins_s ratio ms/round ns/worker-round growth peak_MB B/worker
previous=""
for n in "${sizes[@]}"; do
  for ((i = 0; i < repeats; ++i)); do
    run default "$n"
    run nobins "$n" --set output.utilization_interval=1000000s
  done
  d=$(cut -d' ' -f1 "$tmp/default-$n" | median)
  b=$(cut -d' ' -f1 "$tmp/nobins-$n" | median)
  rss=$(cut -d' ' -f2 "$tmp/default-$n" | sort -n | tail -1)
  per_round=$(awk -v d="$d" 'BEGIN {print d / 10}')
  growth=-
  [ -n "$previous" ] && growth=$(awk -v a="$per_round" -v p="$previous" 'BEGIN {printf "%.2fx", a / p}')
  printf '%8s %11.3f %11.3f %7.2f %11.1f %14.1f %8s %9.0f %10.0f\n' "$n" "$d" "$b" \
    "$(awk -v d="$d" -v b="$b" 'BEGIN {print d / b}')" "$(awk -v r="$per_round" 'BEGIN {print r * 1000}')" \
    "$(awk -v r="$per_round" -v n="$n" 'BEGIN {print r / n * 1e9}')" "$growth" \
    "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(awk -v k="$rss" -v n="$n" 'BEGIN {print k * 1024 / n}')"
  previous=$per_round
done
