#!/usr/bin/env bash
# fxscope-cli measured as a user meets it, whole processes (start, load, read, print, exit):
#   - `--version`: wall time (median of 20 runs) and peak resident memory (GNU time's %M);
#   - `summary --json` of the largest real samples: MB/s, median of 5 runs after a warm-up.
# Usage: [FXSCOPE_BENCH_RT=1] [GNU_TIME=PATH] bench/cli_process.sh [CLI] [LOG_OR_DIR...]
#   (default: build/app/cli/fxscope-cli on sample_graphs/llama_48layer and gpt2_48layer)
# Targets: --version under 20 ms and 60 MB; summary >= 300 MB/s.
# FXSCOPE_BENCH_RT=1 (root) runs each measured process at real-time priority (chrt -f): on a
# shared machine the others' builds then do not count as fxscope's time, close to an idle one.
set -euo pipefail
cd "$(dirname "$0")/.."
cli="${1:-build/app/cli/fxscope-cli}"
shift || true
logs=("$@")
((${#logs[@]})) || logs=(sample_graphs/llama_48layer sample_graphs/gpt2_48layer)
[ -x "$cli" ] || { echo "cli_process: no $cli (build first: bash tools/bootstrap.sh)" >&2; exit 1; }
gnu_time="${GNU_TIME:-/usr/bin/time}"  # GNU time: its %M is the peak resident memory
[ -x "$gnu_time" ] || { echo "cli_process: needs GNU time at $gnu_time (apt-get install time, or set GNU_TIME)" >&2; exit 1; }

run=()
[ "${FXSCOPE_BENCH_RT:-0}" = 1 ] && run=(chrt -f 10)

# Microseconds of wall time of one run of "$@" (bash's own clock: no process is started to read it).
wall_us() {
  local t0=$EPOCHREALTIME
  "${run[@]}" "$@" >/dev/null
  local t1=$EPOCHREALTIME
  echo $(( (${t1/./} - ${t0/./}) ))
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Wall times on a shared machine follow its load: say what it was.
echo "$(nproc) cores, load average $(cut -d ' ' -f 1-3 /proc/loadavg)${run:+, measured at real-time priority}"
"$cli" --version >/dev/null  # the binary in the page cache
version_us=$(for _ in $(seq 20); do wall_us "$cli" --version; done | median)
version_kb=$("${run[@]}" "$gnu_time" -f %M "$cli" --version 2>&1 >/dev/null | tail -n 1)
awk -v us="$version_us" -v kb="$version_kb" -v cli="$cli" 'BEGIN {
  printf "%s --version\n  median of 20 runs: %.1f ms, peak RSS %.1f MB (targets: < 20 ms, < 60 MB)\n",
         cli, us / 1e3, kb / 1024 }'

for path in "${logs[@]}"; do
  log="$path"
  [ -d "$path" ] && log=$(ls "$path"/dedicated_log_torch_trace*.log | head -n 1)
  bytes=$(stat -c %s "$log")
  "$cli" summary --json "$path" >/dev/null  # the log in the page cache
  summary_us=$(for _ in $(seq 5); do wall_us "$cli" summary --json "$path"; done | median)
  summary_kb=$("${run[@]}" "$gnu_time" -f %M "$cli" summary --json "$path" 2>&1 >/dev/null | tail -n 1)
  awk -v b="$bytes" -v us="$summary_us" -v kb="$summary_kb" -v p="$log" 'BEGIN {
    printf "summary --json %s (%.1f MB)\n  median of 5 runs: %.1f ms, %.0f MB/s, peak RSS %.0f MB (target >= 300 MB/s)\n",
           p, b / 1e6, us / 1e3, b / us, kb / 1024 }'
done
