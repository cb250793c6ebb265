#!/usr/bin/env bash
# pssim against SimGrid 3.32's flow model on one workload: sharded sync, N workers x 8
# shards on 8 servers, worker NICs 10 Gbps, server NICs 25 Gbps, 4.8 MB model, 10 rounds
# (bench/sharded_sync_workload.hpp), in two variants: `equal` (every worker computes
# 10 ms) and `uneven` (worker i computes 10 ms x (1 + 0.5 i / (N - 1))).
#
# The pssim side is what a user runs: `pssim run` on bench/scenarios/simgrid-sharded-sync.yaml
# with the default outputs (every CSV, summary), timed as a process. The library-level
# program bench/pssim_sharded_sync (no scenario, no outputs) is an extra column. SimGrid
# runs the same workload with the pure max-min model, in the same invocation. Each run is
# its own process (SimGrid allows one engine per process; peak memory is per run).
#
#   bench/compare_simgrid.sh [--build DIR] [--workloads "equal uneven"] [--model maxmin|tcp] [N ...]
#
# --model tcp compares pssim's `network.model: tcp` with SimGrid's LV08 at its defaults
# (latency x 13.01, rate x 0.97, cross-traffic 0.05, TCP-gamma 4 MiB, weight-S 20537);
# the default, maxmin, pssim's max-min model with CM02 without cross-traffic or gamma.
#
# Default N: 64 256 1024 (SimGrid takes 80 s at 1,024 workers). Larger N are optional
# and slow on the SimGrid side: 2,048 takes ~500 s, and from 4,096 on SimGrid runs 2
# rounds only (pssim is then timed on 2 rounds as well for the speed-up).
# Columns: round end times compared (largest relative difference), wall times, speed-up
# of `pssim run` over SimGrid, pssim's cost per round and peak RSS.
# Needs SimGrid for the comparison (scripts/install-deps.sh --simgrid, then rebuild);
# without it, prints the pssim side only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release"
workloads="equal uneven"
model=maxmin
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(64 256 1024)
pssim="$build/sim/cli/pssim"
library="$build/bench/pssim_sharded_sync"
simgrid="$build/bench/simgrid_sharded_sync"
case "$model" in
  maxmin) cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0); pssim_model=maxmin ;;
  tcp) cfg=(--cfg=network/model:LV08); pssim_model=tcp ;;
  *) echo "compare_simgrid.sh: --model maxmin or tcp, not '$model'" >&2; exit 2 ;;
esac
cfg+=(--log=root.thres:warning)
[ -x "$pssim" ] && [ -x "$library" ] || { echo "compare_simgrid.sh: build pssim first (scripts/build.sh)" >&2; exit 1; }
have_simgrid=0
[ -x "$simgrid" ] && have_simgrid=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b - a) / 1e9}'; }
# scenario WORKLOAD N: the scenario file for one run.
scenario() {
  local file="$tmp/$1-$2.yaml"
  if [ "$1" = equal ]; then
    sed "s/count: 64, throughput: 1GFLOPS}/count: $2, throughput: 1GFLOPS}/" "$root/bench/scenarios/simgrid-sharded-sync.yaml" > "$file"
  else
    local factors
    factors=$(awk -v n="$2" 'BEGIN {for (i = 0; i < n; ++i) printf "%s%.17g", (i ? ", " : ""), 1 / (1 + (n > 1 ? 0.5 * i / (n - 1) : 0))}')
    sed "s/count: 64, throughput: 1GFLOPS}/count: $2, throughput: 1GFLOPS, speed: {dist: list, factors: [$factors]}}/" \
      "$root/bench/scenarios/simgrid-sharded-sync.yaml" > "$file"
  fi
  echo "$file"
}
# pssim_run FILE ROUNDS OUT: `pssim run` with default outputs; prints its wall seconds.
pssim_run() {
  local start end
  start=$(now)
  local model=()
  [ "$pssim_model" = maxmin ] || model=(--set network.model="$pssim_model")
  /usr/bin/time -f %M -o "$3.rss" "$pssim" run "$1" --set training.stop.updates="$2" "${model[@]}" -q -o "$3"
  end=$(now)
  seconds "$start" "$end"
}

echo "# model $model; $(uptime)"
printf '%-7s %6s %6s %10s %9s %10s %9s %12s %10s %8s\n' workload N rounds pssim_run_s library_s simgrid_s speedup \
  max_rel_diff ms/round peak_MB
for w in $workloads; do
  for n in "${sizes[@]}"; do
    rounds=10
    file=$(scenario "$w" "$n")
    p_wall=$(pssim_run "$file" "$rounds" "$tmp/p")
    start=$(now)
    "$library" "$n" "$rounds" "$w" > "$tmp/lib"
    l_wall=$(seconds "$start" "$(now)")
    s_wall=- speedup=- diff=- s_rounds=$rounds
    if [ $have_simgrid = 1 ]; then
      [ "$n" -ge 4096 ] && s_rounds=2
      start=$(now)
      "$simgrid" "$n" "$s_rounds" "$w" "${cfg[@]}" > "$tmp/s" 2> "$tmp/s.err"
      s_wall=$(seconds "$start" "$(now)")
      # pssim's wall time for the same number of rounds: rerun if SimGrid ran fewer.
      cmp_wall=$p_wall
      [ "$s_rounds" != "$rounds" ] && cmp_wall=$(pssim_run "$file" "$s_rounds" "$tmp/p2")
      speedup=$(awk -v a="$s_wall" -v b="$cmp_wall" 'BEGIN {printf "%.0fx", a / b}')
      # Round end times: rounds.csv (round,end_s,...) against SimGrid's "round r end".
      diff=$(awk -F'[ ,]' 'FNR == NR && FNR > 1 {p[$1] = $2; next}
                           FNR != NR && $1 == "round" && ($2 in p) {d = ($3 - p[$2]) / $3; if (d < 0) d = -d; if (d > m) m = d}
                           END {printf "%.2e", m}' "$tmp/p/rounds.csv" "$tmp/s")
    fi
    printf '%-7s %6s %6s %10s %9s %10s %9s %12s %10.2f %8.0f\n' "$w" "$n" "$rounds/$s_rounds" "$p_wall" "$l_wall" \
      "$s_wall" "$speedup" "$diff" "$(awk -v w="$p_wall" -v r="$rounds" 'BEGIN {print 1000 * w / r}')" \
      "$(awk -v k="$(cat "$tmp/p.rss")" 'BEGIN {print k / 1024}')"
    rm -rf "$tmp/p" "$tmp/p2"
  done
done
[ $have_simgrid = 1 ] || echo "(SimGrid not built: install it with scripts/install-deps.sh --simgrid and rebuild)"
