#!/usr/bin/env bash
# Installs what is missing, builds (release preset) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --preset release
