#!/usr/bin/env bash
# Runs shipped scenarios over seeds 1-5 and prints one row per scenario and seed (pssim
# compare --per-seed): how each claim of a scenario's comment and of the README holds
# for every seed, not only the one it was written with. Results in results/seeds/<name>.
#
#   scripts/check_seeds.sh [SCENARIO.yaml ...]     (default: the training scenarios)
set -euo pipefail
cd "$(dirname "$0")/.."
pssim=build/release/sim/cli/pssim
[ -x "$pssim" ] || scripts/build.sh pssim
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(scenarios/quickstart.yaml scenarios/sync.yaml scenarios/async.yaml
  scenarios/sharded.yaml scenarios/ssp.yaml scenarios/stragglers.yaml scenarios/allreduce.yaml
  scenarios/local-sgd.yaml scenarios/lstm.yaml)
mkdir -p results/seeds
for f in "${files[@]}"; do
  name=$(basename "$f" .yaml)
  sweep=results/seeds/$name.yaml
  printf 'name: seeds-%s\nbase: %s\nseeds: [1, 2, 3, 4, 5]\n' "$name" "$(realpath "$f")" > "$sweep"
  "$pssim" sweep "$sweep" -o "results/seeds/$name" -j "$(nproc)" -q
  echo "== $f"
  "$pssim" compare "results/seeds/$name" --per-seed
done
