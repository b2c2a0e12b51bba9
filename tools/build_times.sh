#!/usr/bin/env bash
# Prints how long fxscope takes to build on this machine, in a scratch build directory
# (build-times/, or $FXSCOPE_TIMES_DIR) configured like build/:
#   - a clean build's wall time, with the compiler cache off (what a first build costs);
#   - the 10 slowest translation units of that build (from ninja's log);
#   - a no-op rebuild;
#   - the rebuild after touching a widely included engine header, and after touching one leaf
#     engine .cpp, cache off (what an edit costs);
#   - touching that .cpp, building its test executable and running that test file alone.
# Usage: tools/build_times.sh [--cached] [TARGET]   (TARGET defaults to everything; --cached keeps
# ccache on for the clean build, to time a clone on a machine whose cache is warm).
set -euo pipefail
cd "$(dirname "$0")/.."
cached=0
if [ "${1:-}" = --cached ]; then cached=1; shift; fi
target="${1:-all}"
dir="${FXSCOPE_TIMES_DIR:-build-times}"
header=engine/include/fxscope/graph/graph.h
leaf=engine/report/summary_text.cpp
leaf_test=test_report
leaf_test_file=test_summary

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
steps_since() { awk -v n="$1" 'NR > n + 1 && $0 !~ /^#/' "$dir/.ninja_log" | wc -l; }
build() { cmake --build "$dir" --target "$@" >"$dir/build_times.out" 2>&1 || { cat "$dir/build_times.out"; exit 1; }; }

rm -rf "$dir"
cmake -S . -B "$dir" -G Ninja ${FXSCOPE_CMAKE_ARGS:-} >/dev/null
if ((cached)); then unset CCACHE_DISABLE; else export CCACHE_DISABLE=1; fi
t0=$(now); build "$target"; t1=$(now)
echo "clean build ($target, $(nproc) cores, ccache $( ((cached)) && echo on || echo off)): $(seconds "$t0" "$t1") s, $(steps_since 0) steps"
echo "slowest translation units:"
awk '!/^#/ && $4 ~ /\.o$/ { printf "%8.1f s  %s\n", ($2 - $1) / 1000, $4 }' "$dir/.ninja_log" |
  sort -rn | head -10

export CCACHE_DISABLE=1
t0=$(now); build "$target"; t1=$(now)
echo "no-op rebuild: $(seconds "$t0" "$t1") s"
lines=$(wc -l <"$dir/.ninja_log")
touch "$header"
t0=$(now); build "$target"; t1=$(now)
echo "touch $header: $(seconds "$t0" "$t1") s, $(steps_since "$lines") steps rebuilt"
lines=$(wc -l <"$dir/.ninja_log")
touch "$leaf"
t0=$(now); build "$target"; t1=$(now)
echo "touch $leaf: $(seconds "$t0" "$t1") s, $(steps_since "$lines") steps rebuilt"
touch "$leaf"
t0=$(now); build "$leaf_test"
"$dir/tests/$leaf_test" -# "[#$leaf_test_file]" >"$dir/build_times.out" 2>&1 || { cat "$dir/build_times.out"; exit 1; }
t1=$(now)
echo "touch $leaf, build $leaf_test, run $leaf_test_file: $(seconds "$t0" "$t1") s"
