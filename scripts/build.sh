#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh), configures the release preset and
# builds the given targets (default: everything). Used by the other scripts.
#
#   scripts/build.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset release -j "$(nproc)" "${targets[@]}"
