#!/usr/bin/env bash
# Sharded sync, N workers x 8 shards, worker NIC 10 Gbps, server NIC 25 Gbps, 4.8 MB model,
# uneven compute, 10 rounds (SimGrid: 2 rounds at N = 4096, where it is slow): round end
# times side by side, their largest relative difference, wall times and speed-up, and
# pssim's flows/s, events/s and peak memory per N. Each run is its own process (SimGrid
# allows one engine per process; peak memory is per run).
#
#   bench/compare_simgrid.sh [build dir, default build/release] [N ...]
# Needs SimGrid for the comparison (scripts/install-deps.sh --simgrid); without it, prints
# the pssim side only.
set -euo pipefail
build=${1:-build/release}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(64 128 256 512 1024 2048 4096)
pssim="$build/bench/pssim_sharded_sync"
simgrid="$build/bench/simgrid_sharded_sync"
cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0 --log=root.thres:warning)
[ -x "$pssim" ] || { echo "compare_simgrid.sh: build $pssim first (cmake --build --preset release)" >&2; exit 1; }
have_simgrid=0
[ -x "$simgrid" ] && have_simgrid=1

value() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%6s %6s %12s %12s %9s %12s %12s %12s %10s %12s\n' N rounds pssim_s simgrid_s speedup max_rel_diff \
  pssim_s/round flows/s events/s peak_MB
for n in "${sizes[@]}"; do
  rounds=10
  "$pssim" "$n" "$rounds" > "$tmp/p"
  p_wall=$(value wall_s "$tmp/p")
  s_wall=- speedup=- diff=- s_rounds=$rounds
  if [ $have_simgrid = 1 ]; then
    [ "$n" -ge 4096 ] && s_rounds=2
    "$simgrid" "$n" "$s_rounds" "${cfg[@]}" > "$tmp/s" 2> "$tmp/s.err"
    s_wall=$(value wall_s "$tmp/s")
    # pssim's wall time for the same number of rounds: rerun if SimGrid ran fewer.
    if [ "$s_rounds" != "$rounds" ]; then "$pssim" "$n" "$s_rounds" > "$tmp/p2"; cmp_wall=$(value wall_s "$tmp/p2"); else cmp_wall=$p_wall; fi
    speedup=$(awk -v a="$s_wall" -v b="$cmp_wall" 'BEGIN {printf "%.1fx", a / b}')
    diff=$(awk 'FNR == NR && $1 == "round" {p[$2] = $3; next}
                $1 == "round" {d = ($3 - p[$2]) / $3; if (d < 0) d = -d; if (d > m) m = d}
                END {printf "%.2e", m}' "$tmp/p" "$tmp/s")
  fi
  printf '%6s %6s %12s %12s %9s %12s %12.4f %12.0f %10.0f %12.1f\n' "$n" "$rounds/$s_rounds" "$p_wall" "$s_wall" \
    "$speedup" "$diff" "$(awk -v w="$p_wall" -v r="$rounds" 'BEGIN {print w / r}')" "$(value flows_per_s "$tmp/p")" \
    "$(value events_per_s "$tmp/p")" "$(awk -v b="$(value peak_rss_bytes "$tmp/p")" 'BEGIN {print b / 1048576}')"
done
[ $have_simgrid = 1 ] || echo "(SimGrid not built: install it with scripts/install-deps.sh --simgrid and rebuild)"
