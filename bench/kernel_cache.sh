#!/bin/bash
# bench/kernel_cache.sh LOG...: compiles ahead, on this machine (NVRTC needs no GPU), the kernels
# `fxscope-cli run` would compile for each LOG in every mode (bench_kernel_compile), and packs
# NVRTC's cache into .devbin-gpu/kernel_cache.tar.xz, which bench/gpu_survey.sh unpacks on the GPU
# host. Build the cache from the commit the install in .devbin-gpu/ was built from: a kernel whose
# source changed is compiled again there. The carried tree stays within 64 MiB: watch the size
# printed.
cd "$(dirname "$0")/.." || exit 1
BENCH=${BENCH:-build/bench/bench_kernel_compile}
CACHE=${CACHE:-/tmp/fxscope_kernel_cache}
mkdir -p "$CACHE" .devbin-gpu
for log in "$@"; do
  echo "== $log"
  "$BENCH" "$log" "$CACHE" 2>/dev/null | tail -1
done
tar cf - -C "$CACHE" . | xz -T0 -6 > .devbin-gpu/kernel_cache.tar.xz
echo "$(ls "$CACHE" | wc -l) cubins, packed in $(du -h .devbin-gpu/kernel_cache.tar.xz | cut -f1)"
