#!/bin/sh
# Stands in for a PyTorch training script in the capture tests, which have no PyTorch: prints to
# stdout and stderr, writes a copy of a real log into $TORCH_TRACE as torch.compile would, and
# exits with the status asked for.
#
#   fake_torch_program.sh LOG [STATUS [SECONDS]]
#
# LOG is the log to copy, "-" for none. With SECONDS it writes $TORCH_TRACE/ready once the log is
# there, then waits that long (a SIGTERM ends the wait with status 42), so that a test can
# interrupt it.
echo "step 0 loss 1.25"
echo "fake: TORCH_TRACE=$TORCH_TRACE" \
     "FX_GRAPH_CACHE=${TORCHINDUCTOR_FX_GRAPH_CACHE-unset}" \
     "AUTOGRAD_CACHE=${TORCHINDUCTOR_AUTOGRAD_CACHE-unset}"
echo "fake: a warning on stderr" >&2
if [ "$1" != "-" ]; then
  cp "$1" "$TORCH_TRACE/dedicated_log_torch_trace_fake.log" || exit 99
fi
echo "step 1 loss 0.75"
if [ -n "$3" ]; then
  trap 'echo "fake: caught SIGTERM"; kill "$sleeper" 2>/dev/null; exit 42' TERM
  touch "$TORCH_TRACE/ready"
  sleep "$3" &
  sleeper=$!
  wait "$sleeper"
fi
exit "${2:-0}"
