#!/usr/bin/env bash
# What a newcomer waits for: builds a clean clone of this repository (or of COMMIT) the way
# the set-up scripts do, and prints the wall time and CPU seconds of each build and its
# slowest compilation units (from ninja's log). Needs the dependencies installed
# (scripts/install-deps.sh --all); downloads nothing.
#
#   bench/build_time.sh [--commit REV] [--top N]
#
#   command   scripts/build.sh pssim: the pssim command alone (what scripts/quickstart.sh builds)
#   full      then scripts/build.sh: everything else (tests, Python module, benchmarks), as
#             scripts/test.sh builds it after the quickstart
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
commit=HEAD
top=8
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) commit=$2; shift 2 ;;
    --top) top=$2; shift 2 ;;
    *) echo "build_time.sh: unknown argument '$1' (known: --commit REV, --top N)" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/src"
git -C "$work/src" checkout -q "$commit"
cd "$work/src"
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# build NAME COMMAND...: runs the build, prints its times and the units it compiled.
build() {
  local name=$1; shift
  local log_lines=0
  [ -f build/release/.ninja_log ] && log_lines=$(wc -l < build/release/.ninja_log)
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" > "$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; exit 1; }
  read -r wall user sys < "$work/time"
  printf '%-8s %7.1f s wall, %7.1f CPU s (%s user + %s sys)\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys"
  # ninja's log: start and end (ms) of each unit since the build began; units of this build only.
  tail -n +"$((log_lines + 1))" build/release/.ninja_log | grep -v '^#' |
    awk -F'\t' '{ printf "%.3f\t%s\n", ($2 - $1) / 1000, $4 }' | sort -rn > "$work/units"
  awk -F'\t' '{ sum += $1 } END { printf "         %d units, %.1f s summed over units\n", NR, sum }' "$work/units"
  head -n "$top" "$work/units" | awk -F'\t' '{ printf "         %6.1f s  %s\n", $1, $2 }'
}

build command scripts/build.sh pssim
build full scripts/build.sh
