#!/usr/bin/env bash
# One all-reduce of M bytes among N workers on a star (NICs 10 Gbps each way, 10 us
# latency each, so 20 us between two workers), no compute: pssim (`pssim run`, protocol
# allreduce) against SimGrid 3.32's SMPI running a real MPI_Allreduce with the same
# algorithm under the pure max-min model (CM02, no cross-traffic, no TCP window, no SMPI
# size factors). Prints both times and their relative difference per algorithm and N.
#   ring               <-> smpi/allreduce:lr       (logical ring)
#   halving-doubling   <-> smpi/allreduce:rab_rdb  (MPICH's Rabenseifner)
#   recursive-doubling <-> smpi/allreduce:rdb
#
#   bench/compare_smpi_allreduce.sh [build dir, default build/release] [N ...]
# Needs SimGrid (scripts/install-deps.sh --simgrid) for the SMPI side; without it, prints
# the pssim side only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(4 8 16 32 64 128 256 6 24 96)
count=${COUNT:-1048576}  # floats: 4 MiB, divisible by every power of two up to 256
pssim="$build/sim/cli/pssim"
[ -x "$pssim" ] || { echo "compare_smpi_allreduce.sh: build $pssim first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_smpi=0
if command -v smpicc >/dev/null && command -v smpirun >/dev/null; then
  smpicc -O2 -o "$tmp/smpi_allreduce" bench/smpi_allreduce.c 2> "$tmp/smpicc.err" && have_smpi=1
fi

platform() {  # platform N: a star of N hosts, one split-duplex link each, a non-blocking backbone
  cat > "$tmp/star.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="star" prefix="node-" suffix="" radical="0-$(($1 - 1))" speed="1Gf" bw="1.25GBps" lat="10us"
           sharing_policy="SPLITDUPLEX" bb_bw="100TBps" bb_lat="0us" bb_sharing_policy="FATPIPE"
           loopback_bw="100TBps" loopback_lat="0us"/>
</platform>
XML
  seq 0 $(($1 - 1)) | sed 's/^/node-/' > "$tmp/hosts"
}

scenario() {  # scenario N ALGORITHM: one all-reduce on pssim's star
  cat > "$tmp/ar.yaml" <<YAML
name: smpi-compare
model: {kind: synthetic, params: $count, flops_per_sample: 1FLOP}
data: {batch_size: 1}
training: {stop: {updates: 1}}
cluster: {workers: {count: $1, throughput: 1000000TFLOPS}}
network: {topology: star, worker_nic: {bandwidth: 10Gbps, latency: 10us}}
protocol: {mode: allreduce, algorithm: $2}
YAML
}

printf '%-19s %5s %14s %14s %12s\n' algorithm N pssim_s smpi_s rel_diff
for pair in ring:lr halving-doubling:rab_rdb recursive-doubling:rdb; do
  algorithm=${pair%%:*} smpi=${pair##*:}
  for n in "${sizes[@]}"; do
    # lr needs the vector to divide into N segments.
    [ "$smpi" = lr ] && [ $((count % n)) -ne 0 ] && continue
    scenario "$n" "$algorithm"
    "$pssim" run "$tmp/ar.yaml" -o "$tmp/run" -q
    p=$(awk -F, 'NR == 2 {print $2}' "$tmp/run/rounds.csv")
    s=- diff=-
    if [ $have_smpi = 1 ]; then
      platform "$n"
      smpirun -np "$n" -platform "$tmp/star.xml" -hostfile "$tmp/hosts" \
        --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0 \
        --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:1 --cfg=smpi/lat-factor:1 \
        --cfg=smpi/wtime:0 --cfg=smpi/allreduce:"$smpi" --log=root.thres:critical \
        "$tmp/smpi_allreduce" "$count" > "$tmp/s" 2> "$tmp/s.err" || { cat "$tmp/s.err" >&2; exit 1; }
      s=$(awk '$1 == "end" {e = $2} $1 == "start" {b = $2} END {printf "%.9f", e - b}' "$tmp/s")
      diff=$(awk -v a="$p" -v b="$s" 'BEGIN {d = (a - b) / b; printf "%+.2e", d}')
    fi
    printf '%-19s %5s %14.9f %14s %12s\n' "$algorithm" "$n" "$p" "$s" "$diff"
  done
done
[ $have_smpi = 1 ] || echo "(SMPI not found: install it with scripts/install-deps.sh --simgrid)"
