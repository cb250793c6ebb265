#!/usr/bin/env bash
# The main job: installs what is missing, builds the pssim command (only what it needs:
# scripts/build.sh pssim), trains the quickstart MLP on Fashion-MNIST inside a simulated
# 8-worker cluster three ways (sync through one server, async through one server, sync
# sharded over 4 servers; scenarios/sweeps/quickstart.yaml) and draws the figures.
# Results: results/quickstart/ (sweep.csv, points/NNNN/ per run), figures:
# results/quickstart/plots/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh pssim
pssim=build/release/sim/cli/pssim
"$pssim" sweep scenarios/sweeps/quickstart.yaml -o results/quickstart -j "$(nproc)"
"$pssim" plot results/quickstart -o results/quickstart/plots
echo "quickstart: table results/quickstart/sweep.csv, figures results/quickstart/plots/"
