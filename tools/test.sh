#!/usr/bin/env bash
# The README's second command (and CI's): install what is missing, build, run every test.
#
# FXSCOPE_SANITIZE_GUI_TESTS=1 then builds test_views (with the app and the CLI it starts) in
# build-asan under AddressSanitizer and UBSan, without CUDA, and runs it: use after free, objects
# used while destroyed, undefined behaviour in the views and the engine they drive fail a test.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"

if [ "${FXSCOPE_SANITIZE_GUI_TESTS:-0}" = 1 ]; then
  # Leaks are not checked: the test process keeps its QApplication to the end on purpose, and Qt
  # and fontconfig keep caches for the process's life.
  export ASAN_OPTIONS=detect_leaks=0
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  if [ ! -f build-asan/build.ninja ]; then
    # -O1: the sanitizers' own advice, and the LLaMA tests stay inside their timeout.
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
          -DFXSCOPE_WITH_CUDA=OFF \
          -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" \
          -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
  fi
  cmake --build build-asan --target test_views
  # Opening every sample in one test case takes about 110 s of CPU under the sanitizers, past
  # CTest's 120 s limit on a loaded machine: it runs on its own, without a limit.
  ctest --test-dir build-asan -R '^test_views:' -E 'Every sample opens' --output-on-failure \
        -j "$(nproc)"
  QT_QPA_PLATFORM=offscreen build-asan/tests/views/test_views '[every_sample]'
fi
