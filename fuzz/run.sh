#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS (default
# 600), one after the other, on a working copy of its seed corpus:
#
#   scenario   the scenario loader and validator: the shipped and the bad scenarios
#   events     the events CSV reader (events_file) and the timeline checks: small traces
#              of every event kind, a byte order mark, comments, bad lines
#   idx        the IDX reader and image/label pairs: small generated IDX files and
#              Fashion-MNIST's label files when installed
#   corpus     the text corpus reader, tokenizer and language-model data: heads of
#              fortune files and of the docs
#
# A crash leaves crash-* in the repository root and stops the script. Once fixed, add
# the input to the tests: a scenario to tests/cli/bad_scenarios (with its expected
# message), a trace to tests/scenario/events_test.cpp, a data file as a file the data
# tests generate.
#
#   fuzz/run.sh [SECONDS] [TARGET...]      (default: scenario events idx corpus)
set -euo pipefail
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario events idx corpus)
cd "$(dirname "$0")/.."
scripts/install-deps.sh --fuzz
cmake --preset fuzz > /dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "${t}_fuzzer"); done
cmake --build --preset fuzz -j 1 "${build_targets[@]}"
# UBSan findings (signed overflow, bad shifts ...) are crashes too.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

seed_idx() {  # small IDX files, raw: 2 images of 3x2 with labels, and edge cases
  local d=$1
  printf '\0\0\x08\x03\0\0\0\x02\0\0\0\x03\0\0\0\x02abcdefghijkl' > "$d/images"
  printf '\0\0\x08\x01\0\0\0\x02\x01\x07' > "$d/labels"
  # a pair for the split input: first byte 0x80 cuts it about in the middle
  printf '\x80\0\0\x08\x03\0\0\0\x01\0\0\0\x02\0\0\0\x02wxyz\0\0\x08\x01\0\0\0\x01\x05' > "$d/pair"
  printf '\0\0\x08\x03\x10\0\0\0\x40\0\0\0\x40\0\0\0' > "$d/overflow"
  for f in /usr/share/datasets/fashion-mnist/*labels*.gz; do
    [ -e "$f" ] && cp "$f" "$d/"
  done
}
seed_events() {  # the first byte is options (workers, servers, scheme); the rest is a trace
  local d=$1
  printf '\x1ftime,kind,target,value\n0.5,worker_crash,worker-1,2s\n1,link,server-0,500Mbps\n3,worker_speed,worker-2,0.5\n' > "$d/kinds"
  printf '\x1ftime,kind,target,value,latency\n# a comment\n\n1ms,link,worker-0--switch,0,\n2ms,link,worker-0--switch,1Gbps,5us\n' > "$d/latency"
  printf '\x0b\xef\xbb\xbftime,kind,target,value\n1,server_crash,server-1,\n2,server_recover,server-1,\n3,worker_recover,worker-0,\n' > "$d/bom"
  printf '\x67time,kind,target,value\n1e-9,worker_crash,worker-01,-1\n0.5,worker_cr\0ash,worker-1,\n' > "$d/bad"
}
seed_corpus() {  # the first 2 bytes are options; the rest is text
  local d=$1 i=0
  for f in /usr/share/games/fortunes/fortunes /usr/share/games/fortunes/science README.md docs/models.md; do
    [ -e "$f" ] || continue
    { printf '\x%02x\x07' $((i * 37 % 256)); head -c 3000 "$f"; } > "$d/seed$i"
    i=$((i + 1))
  done
}

for t in "${targets[@]}"; do
  work=fuzz/corpus-work/$t
  mkdir -p "$work"
  case $t in
    scenario) cp scenarios/*.yaml scenarios/timing/*.yaml tests/cli/bad_scenarios/*.yaml "$work"/ 2>/dev/null || true
              max_len=8192 ;;
    events) seed_events "$work"; max_len=8192 ;;
    idx) seed_idx "$work"; max_len=16384 ;;
    corpus) seed_corpus "$work"; max_len=8192 ;;
    *) echo "fuzz/run.sh: unknown target '$t' (scenario, events, idx, corpus)" >&2; exit 2 ;;
  esac
  echo "== ${t}_fuzzer for ${seconds} s"
  # -rss_limit_mb guards against inputs that blow up memory; -timeout against hangs.
  build/fuzz/fuzz/"${t}_fuzzer" "$work" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1
done
