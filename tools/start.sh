#!/usr/bin/env bash
# The README's first command: install what is missing, build, and open the default sample.
# With a display and the GUI built, that is the desktop app; otherwise the CLI summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh fxscope_apps
sample="${1:-sample_graphs/graph_breaks}"
if [ -x build/app/gui/fxscope ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/app/gui/fxscope "$sample"
fi
exec build/app/cli/fxscope-cli summary "$sample"
