#!/usr/bin/env bash
# The README's second command (and CI's): install what is missing, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
