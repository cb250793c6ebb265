#!/usr/bin/env bash
# The main job: installs what is missing, builds pssim, runs the quickstart scenario and
# draws its figures into results/quickstart/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target pssim
build/release/sim/cli/pssim run scenarios/quickstart.yaml
