#!/usr/bin/env bash
# What an events trace costs: a generated `worker_speed` trace of N lines (8 workers, one
# line per 0.1 ms of simulated time, about 38 bytes a line) played by a timing-only sync
# run that lasts as long as the trace, and checked by `pssim validate`. Prints the wall
# time and peak RSS of each, and the peak RSS above the same command without the trace,
# per line.
#
#   bench/trace_memory.sh [--build DIR] [N ...]      (defaults: build/release, 200000 2000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release"
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(200000 2000000)
pssim="$build/sim/cli/pssim"
[ -x "$pssim" ] || { echo "trace_memory.sh: build $pssim first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure COMMAND SCENARIO: "seconds peak_rss_kb" of `pssim COMMAND SCENARIO`.
measure() {
  local out=()
  [ "$1" = run ] && out=(-q -o "$tmp/out")
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$pssim" "$1" "$2" "${out[@]}" > /dev/null
  cat "$tmp/time"
}

scenario() {  # scenario FILE SECONDS [TRACE]
  cat > "$1" <<YAML
name: trace-memory
model: {kind: synthetic, params: 1M, flops_per_sample: 10MFLOP}
training: {stop: {sim_time: ${2}s}}
cluster:
  workers: {count: 8, throughput: 1TFLOPS}
  servers: {count: 1}
network:
  worker_nic: {bandwidth: 10Gbps, latency: 20us}
  server_nic: {bandwidth: 10Gbps, latency: 20us}
protocol: {mode: sync}
YAML
  [ -z "${3:-}" ] || echo "events_file: $3" >> "$1"
}

printf '%10s  %-8s  %9s  %12s  %14s\n' lines command wall_s peak_rss_MB bytes_per_line
for n in "${sizes[@]}"; do
  /usr/bin/python3 - "$n" "$tmp/trace.csv" <<'PY'
import random, sys
n, path = int(sys.argv[1]), sys.argv[2]
random.seed(1)
with open(path, "w") as f:
    f.write("time,kind,target,value\n")
    for i in range(n):
        f.write("%.6f,worker_speed,worker-%d,%.3f\n" % (i * 1e-4, random.randrange(8), random.uniform(0.5, 1.5)))
PY
  seconds=$(( n / 10000 + 1 ))
  scenario "$tmp/with.yaml" "$seconds" "$tmp/trace.csv"
  scenario "$tmp/without.yaml" "$seconds"
  for command in validate run; do
    read -r _ base_kb <<< "$(measure "$command" "$tmp/without.yaml")"
    read -r wall kb <<< "$(measure "$command" "$tmp/with.yaml")"
    printf '%10d  %-8s  %9.2f  %12.1f  %14.0f\n' "$n" "$command" "$wall" "$(echo "$kb / 1024" | bc -l)" \
      "$(echo "($kb - $base_kb) * 1024 / $n" | bc -l)"
  done
done
