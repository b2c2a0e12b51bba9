#!/usr/bin/env bash
# Summary speed of a log plain, gzip-compressed and zstd-compressed (the tools' default levels),
# in MB/s of the log's text: in process (bench_summary) and as a whole `fxscope-cli summary
# --json` process (summary_process.sh). Usage:
#   bench/compressed_summary.sh [SAMPLE_DIR...]   (default: sample_graphs/llama_48layer and
#                                                  sample_graphs/gpt2_48layer)
# Targets: >= 300 MB/s plain, >= 150 MB/s compressed. Needs gzip and zstd (Debian's zstd).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=build/bench/bench_summary
[ -x "$bench" ] || { echo "compressed_summary: build bench_summary and fxscope-cli first" >&2; exit 1; }
for tool in gzip zstd; do
  command -v "$tool" >/dev/null || { echo "compressed_summary: $tool is not installed" >&2; exit 1; }
done
samples=("$@")
[ ${#samples[@]} -gt 0 ] || samples=(sample_graphs/llama_48layer sample_graphs/gpt2_48layer)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for sample in "${samples[@]}"; do
  log=$(ls "$sample"/dedicated_log_torch_trace*.log | head -n 1)
  name=$(basename "$sample")
  gzip -c "$log" >"$scratch/$name.log.gz"
  zstd -q -c "$log" >"$scratch/$name.log.zst"
  for copy in "$log" "$scratch/$name.log.gz" "$scratch/$name.log.zst"; do
    "$bench" "$copy" 15
    bash bench/summary_process.sh "$copy" 21
    echo
  done
done
