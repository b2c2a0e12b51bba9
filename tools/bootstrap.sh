#!/usr/bin/env bash
# Installs the Debian packages fxscope needs (only those that are missing), then configures and
# builds into build/: the targets named as arguments, else everything. Idempotent: a second run
# with nothing changed installs nothing and builds nothing. Needs root only when something is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# dpkg-dev and file are for tools/package.sh (dpkg-shlibdeps computes the .deb's Depends); ccache
# and mold shorten rebuilds (cmake/FxscopeBuildSpeed.cmake).
packages=(cmake ninja-build g++ pkg-config clang-format catch2 nlohmann-json3-dev libcli11-dev
          zlib1g-dev libzstd-dev qt6-base-dev qt6-svg-dev libgraphviz-dev time dpkg-dev file
          ccache mold)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "bootstrap: these Debian packages are missing and installing them needs root: ${missing[*]}" >&2
    exit 1
  fi
  echo "bootstrap: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja ${FXSCOPE_CMAKE_ARGS:-}
fi
if (($#)); then
  cmake --build build --target "$@"
else
  cmake --build build
fi
