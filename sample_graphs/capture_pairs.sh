#!/bin/bash
# capture_pairs.sh OUT: every capture of capture_pairs.py, each in its own process and TORCH_TRACE
# directory under OUT (an absolute path). The pairs compile from source (Inductor's caches off), except the cache
# captures, which share one cache directory that starts empty.
set -u
OUT=$1
cd "$(dirname "$0")"
one() {
  local name=$1; shift
  local s=$(date +%s)
  mkdir -p "$OUT/$name"
  env "$@" TORCH_TRACE="$OUT/$name" timeout 300 python3 capture_pairs.py "$name" \
      > "$OUT/$name/stdout.txt" 2>&1
  echo "$name rc=$? $(( $(date +%s) - s ))s"
}
nocache=(TORCHINDUCTOR_FX_GRAPH_CACHE=0 TORCHINDUCTOR_AUTOGRAD_CACHE=0
         TORCHINDUCTOR_CACHE_DIR=/tmp/pairs_inductor_cache)
# The two sides of a pair run one after the other; the pairs run side by side.
(one break_before "${nocache[@]}"; one break_after "${nocache[@]}") &
(one dynamic_off "${nocache[@]}"; one dynamic_on "${nocache[@]}"; one cudagraph_skip "${nocache[@]}") &
(one mode_default "${nocache[@]}"; one mode_max_autotune "${nocache[@]}") &
cache=$(mktemp -d)
for name in cache_cold cache_warm cache_config; do
  one "$name" TORCHINDUCTOR_FX_GRAPH_CACHE=1 TORCHINDUCTOR_AUTOGRAD_CACHE=1 \
      TORCHINDUCTOR_CACHE_DIR="$cache"
done
wait
