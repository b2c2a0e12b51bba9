#!/usr/bin/env bash
# Times `fxscope-cli summary --json` as a whole process (start, read, parse, print, exit) on a log,
# median of N runs after one warm-up, and prints MB/s of the log's text (after decompression, for
# a .gz or .zst log). Usage:
#   bench/summary_process.sh [LOG_OR_DIR] [N]      (default: sample_graphs/llama_48layer, 21)
set -euo pipefail
cd "$(dirname "$0")/.."
path="${1:-sample_graphs/llama_48layer}"
runs="${2:-21}"
cli=build/app/cli/fxscope-cli
[ -x "$cli" ] || { echo "summary_process: build first (bash tools/test.sh)" >&2; exit 1; }
# The warm-up run (it fills the page cache) says how many bytes of text the log holds.
bytes=$("$cli" summary --json "$path" | sed -n 's/^ "bytes": \([0-9]*\),$/\1/p')
[ -n "$bytes" ] || { echo "summary_process: no byte count in the summary of $path" >&2; exit 1; }
times=()
for _ in $(seq "$runs"); do
  t0=$(date +%s%N)
  "$cli" summary --json "$path" >/dev/null
  t1=$(date +%s%N)
  times+=($(( (t1 - t0) / 1000 )))
done
median_us=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
awk -v b="$bytes" -v us="$median_us" -v n="$runs" -v p="$path" 'BEGIN {
  printf "fxscope-cli summary --json %s\n  %.1f MB, median of %d runs: %.1f ms, %.0f MB/s (target >= 300 MB/s plain, 150 compressed)\n",
         p, b / 1e6, n, us / 1e3, b / us }'
