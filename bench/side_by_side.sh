#!/bin/sh
# The side-by-side benchmark of PyTorch and fxscope's engine on one GPU host, in one call:
#   bench/side_by_side.sh FXSCOPE_CLI [--repeat N] [--only a,b] [--json OUT]
# It needs a Python with PyTorch, torchvision and transformers (python3, or $PYTHON).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 FXSCOPE_CLI [--repeat N] [--only a,b] [--json OUT]" >&2; exit 2; }
cli=$1
shift
exec "${PYTHON:-python3}" "$here/side_by_side.py" --cli "$cli" "$@"
