#!/usr/bin/env bash
# pssim against real Linux TCP on this machine (needs root): hosts as network namespaces on
# a bridge, NICs shaped with tc htb, a real round program over TCP (sync PS, sharded PS,
# ring all-reduce), the same cases through `pssim run` under maxmin and tcp, with and
# without network.framing, and a calibration of tcp's factors; prints the tables.
#
#   bench/testbed/run.sh [--quick] [--reps N] [--cases REGEX] [--max-load L] [--save FILE] ...
#   bench/testbed/run.sh --load FILE      the tables again from saved measurements (no root)
#
# The default set takes about 3 minutes on a 2-core machine (183 s measured; --quick 89 s).
# Timing is sensitive to CPU load: run it on a quiet machine (--max-load 1.0 waits for one).
# Everything the run creates (namespaces, their veths, bridge and qdiscs) is removed when it
# ends, fails or is interrupted: by the driver, and here on exit for anything of this run's
# prefix that is left (if the driver itself was killed).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix="pssimtb$$"

cleanup() {  # what the driver left: its round programs still running, its namespaces
  local ns
  for ns in $(ip netns list 2>/dev/null | awk -v p="$prefix-" 'index($1, p) == 1 {print $1}'); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" && echo "run.sh: removed leftover namespace $ns" >&2
  done
}
trap cleanup EXIT

/usr/bin/python3 "$root/bench/testbed/testbed.py" --prefix "$prefix" "$@" &
driver=$!
# The driver (in the background, so this shell can react) gets the signal as a TERM and
# removes the testbed itself; wait again until it is gone.
trap 'kill -TERM "$driver" 2>/dev/null' INT TERM HUP
status=0
while :; do
  wait "$driver"
  status=$?
  kill -0 "$driver" 2>/dev/null || break
done
exit "$status"
