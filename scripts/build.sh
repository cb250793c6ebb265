#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh), configures the release preset and
# builds. Used by the other scripts.
#
#   scripts/build.sh              everything: the pssim command, the Python package's
#                                 extension module, the tests and the benchmarks
#   scripts/build.sh pssim        the pssim command alone, with only what it needs installed
#                                 (what the main job, scripts/quickstart.sh, builds)
#   scripts/build.sh TARGET...    these targets of the full build
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$*" = pssim ]; then
  scripts/install-deps.sh
  # A build directory configured for everything stays so; a new one gets only the command.
  parts=()
  grep -qs '^PSSIM_BUILD_TESTS:BOOL=ON' build/release/CMakeCache.txt ||
    parts=(-DPSSIM_BUILD_TESTS=OFF -DPSSIM_BUILD_PYTHON=OFF -DPSSIM_BUILD_BENCH=OFF)
else
  scripts/install-deps.sh --all
  parts=(-DPSSIM_BUILD_TESTS=ON -DPSSIM_BUILD_PYTHON=ON -DPSSIM_BUILD_BENCH=ON)
fi
# The same build directory either way: the libraries are compiled with the same flags, so
# going from the command alone to everything never rebuilds what is already built.
cmake --preset release "${parts[@]}"
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset release -j "$(nproc)" "${targets[@]}"
