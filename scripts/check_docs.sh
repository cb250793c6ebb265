#!/usr/bin/env bash
# Runs the long blocks of README.md and docs/ (marked `long`: the main job, the tutorial's
# sweeps ...) as written, with the quick ones of their pages, and checks what they print
# (tests/python/test_docs.py, tests/python/doc_blocks.py). scripts/test.sh runs it last.
#
#   scripts/check_docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PSSIM_DOCS_LONG=1 /usr/bin/python3 -m pytest tests/python/test_docs.py -q -p no:cacheprovider -k long
