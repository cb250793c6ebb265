#!/usr/bin/env bash
# Installs what is missing, builds (release preset) and runs the whole test suite: the
# C++ tests (ctest), then the Python package's (pytest, with Debian's /usr/bin/python3,
# which imports this tree's pssim/ and build/release/python/_pssim*.so).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --preset release
/usr/bin/python3 -m pytest tests/python -q -p no:cacheprovider
scripts/check_docs.sh
