#!/usr/bin/env bash
# Runs every shipped scenario (scenarios/*.yaml and scenarios/timing/*.yaml, each with its
# trace) and the quickstart sweep into DIR, with the wall-clock fields of summary.json
# (wall_time_s, events_per_s, flows_per_s, peak_rss_bytes) and of pssim train's curve.csv removed, so that two trees can
# be compared byte for byte: how a refactor shows it changed no result.
#
#   scripts/golden_outputs.sh DIR [PSSIM]      then: diff -r DIR_BEFORE DIR_AFTER
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/golden_outputs.sh DIR [PSSIM]}
pssim=${2:-build/release/sim/cli/pssim}
rm -rf "$out"
mkdir -p "$out"
strip_wall_clock() {  # the only fields that differ between two runs of the same scenario
  find "$1" -name summary.json | while read -r f; do
    sed -E -i 's/"(wall_time_s|events_per_s|flows_per_s|peak_rss_bytes)": ?[^,}]*,?//g' "$f"
  done
  find "$1" -name curve.csv | while read -r f; do  # pssim train: its last column is wall time
    sed -E -i 's/,[^,]*$//' "$f"
  done
}
for f in scenarios/*.yaml scenarios/timing/*.yaml; do
  name=$(basename "$(dirname "$f")")_$(basename "$f" .yaml)
  case "$f" in scenarios/baseline-*) "$pssim" train "$f" -o "$out/$name" >/dev/null; continue ;; esac
  "$pssim" run "$f" --set output.trace=true -o "$out/$name" -q
done
"$pssim" sweep scenarios/sweeps/quickstart.yaml -o "$out/sweep_quickstart" -j "$(nproc)" -q
strip_wall_clock "$out"
