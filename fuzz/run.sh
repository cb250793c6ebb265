#!/usr/bin/env bash
# Builds the scenario fuzzer (clang, ASan + UBSan) and runs it for SECONDS (default 600)
# on a working copy of the seed corpus: the shipped scenarios and the bad-input corpus.
# A crash leaves crash-* in the current directory: add the input to
# tests/cli/bad_scenarios (with its expected message) once fixed.
#
#   fuzz/run.sh [SECONDS]
set -euo pipefail
seconds=${1:-600}
cd "$(dirname "$0")/.."
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz --target scenario_fuzzer
work=fuzz/corpus-work
mkdir -p "$work"
cp scenarios/*.yaml scenarios/timing/*.yaml tests/cli/bad_scenarios/*.yaml "$work"/ 2>/dev/null || true
# -rss_limit_mb guards against inputs that blow up memory; -timeout against hangs.
build/fuzz/fuzz/scenario_fuzzer "$work" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1
