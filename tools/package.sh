#!/usr/bin/env bash
# Builds the Debian package build-package/fxscope_VERSION_ARCH.deb (the GUI, the CLI, a desktop
# entry and an icon) and prints its fields. Install it with `sudo apt install ./fxscope_*.deb`.
#
#   tools/package.sh [--with-cuda]
#
# Without --with-cuda the package has no GPU runtime (`fxscope-cli run` says so). With it the
# package also holds the GPU runtime, which opens NVRTC, cuBLASLt, CUPTI and cuDNN only when a run
# needs them; they are no Debian package, so the package names no dependency on them, and without
# them every command but `run` works. FXSCOPE_JOBS sets the build's parallelism (default: every
# core).
set -euo pipefail
cd "$(dirname "$0")/.."

cuda=OFF
build=build-package
for arg in "$@"; do
  case "$arg" in
    --with-cuda) cuda=ON; build=build-package-cuda ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "package: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done
for tool in cmake:cmake ninja:ninja-build dpkg-shlibdeps:dpkg-dev file:file; do
  if ! command -v "${tool%%:*}" >/dev/null; then
    echo "package: ${tool%%:*} is missing; install the Debian package ${tool#*:}" >&2
    exit 1
  fi
done

targets=(fxscope fxscope-cli)
if [ "$cuda" = ON ]; then targets+=(fxscope_cupti); fi
# Installing builds only what it installs (not the tests and benchmarks of a full build).
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFXSCOPE_WITH_GUI=ON \
      -DFXSCOPE_WITH_CUDA="$cuda" -DFXSCOPE_BUILD_TESTS=OFF -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON \
      ${FXSCOPE_CMAKE_ARGS:-}
cmake --build "$build" --target "${targets[@]}" -j "${FXSCOPE_JOBS:-$(nproc)}"
rm -f "$build"/fxscope_*.deb
(cd "$build" && cpack -G DEB)
deb=$(ls "$build"/fxscope_*.deb)
dpkg-deb --field "$deb" Package Version Architecture Installed-Size Depends
echo "package: $deb ($(du -h "$deb" | cut -f1))"
