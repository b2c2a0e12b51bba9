#!/bin/bash
# bench/gpu_survey.sh MODES PAR TIMEOUT [LOG ...]: `fxscope-cli run LOG --mode MODES --json` for
# every corpus log (or each LOG), PAR at a time, each stopped after TIMEOUT s, within BUDGET s in
# all (default 500). The runs (MODEL.json, MODEL.err) go to $OUT/runs.tgz: what
# bench/corpus_side_by_side.py --engine-runs tabulates. Several at once on one GPU: a check of
# what runs and of its numbers, not of kernel times. FXSCOPE_CLI names the binary
# (default: .devbin-gpu/bin/fxscope-cli, an install carried to the GPU host). BACKEND=pytorch
# runs the log's fx_graph_runnable under real torch.compile instead (PAR 1 for its timings): what
# corpus_side_by_side.py --torch-runs reads. REPEAT sets the engine's timed calls per mode (3).
MODES=$1; PAR=$2; T=$3; shift 3
CLI=${FXSCOPE_CLI:-$PWD/.devbin-gpu/bin/fxscope-cli}
# The working tree travels to the GPU host within 64 MiB (as a tar): an install carried there may
# hold its binary xz-compressed (a stripped fxscope-cli is ~5.7 MB, ~1.9 MB compressed).
if [ ! -x "$CLI" ] && [ -f "$CLI.xz" ]; then xz -dk "$CLI.xz" || exit 1; fi
export XDG_CACHE_HOME=/tmp/xdg
mkdir -p /tmp/runs
# Kernels compiled ahead on the build machine (bench/kernel_cache.sh): NVRTC's cache, carried
# xz-compressed (cubins shrink about 20 times), so the runs find them built.
if [ -f .devbin-gpu/kernel_cache.tar.xz ] && [ ! -d "$XDG_CACHE_HOME/fxscope/kernels" ]; then
  mkdir -p "$XDG_CACHE_HOME/fxscope/kernels"
  tar xJf .devbin-gpu/kernel_cache.tar.xz -C "$XDG_CACHE_HOME/fxscope/kernels" &&
    echo "kernel cache: $(ls "$XDG_CACHE_HOME/fxscope/kernels" | wc -l) cubins" >&2
fi
if (($#)); then logs=("$@"); else logs=(sample_graphs/corpus/*/); fi
printf '%s\n' "${logs[@]}" | timeout ${BUDGET:-500} xargs -P "$PAR" -I{} bash -c '
  n=$(basename {}); s=$(date +%s)
  timeout '"$T"' '"$CLI"' run {} --mode '"$MODES"' '"${BACKEND:+--backend $BACKEND}"' --repeat ${REPEAT:-3} --json > /tmp/runs/$n.json 2> /tmp/runs/$n.err
  echo "$n rc=$? $(( $(date +%s) - s ))s"'
tar czf "${OUT:-.}/runs.tgz" -C /tmp runs
