#!/usr/bin/env bash
# What keeping a workspace in the context saves an exported library's plain
# calls (OpenCL): tunes conv2d/winograd_split (its transforms need a
# workspace) on one layer, exports it, builds workspace_calls/main.c on the
# export and times plain beast_conv2d_forward calls with the workspace the
# context keeps against calls that each allocate their own (the workspace
# released before each call: what every call did before), interleaved in the
# same run, and prints both medians and their ratio. Not a CTest test: about
# a minute. Usage: tests/bench/export_workspace.sh [N C HW K] (default
# ResNet-50's 64-channel 3x3 layer at N=1: 1 64 56 64)
# Environment: BEAST_DEVICE (default opencl:0), BEAST (the beast binary),
# BEAST_ROUNDS and BEAST_CALLS (default 7 rounds of 10 calls).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
DEVICE=${BEAST_DEVICE:-opencl:0}
N=${1:-1} C=${2:-64} HW=${3:-56} K=${4:-64}
WORK=$(mktemp -d /tmp/beast_workspace_XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
PROBLEM="conv2d:N=$N,C=$C,H=$HW,W=$HW,K=$K,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,dilation_h=1,dilation_w=1,groups=1,layout=NCHW,dtype=f32"
"$BEAST" tune --template conv2d/winograd_split --problem "$PROBLEM" --device "$DEVICE" \
  --db "$WORK/beast.db" --max-configs 1 --baselines none --quiet > /dev/null
"$BEAST" export --db "$WORK/beast.db" --out "$WORK/tuned" > /dev/null
cmake -S "$ROOT/tests/bench/workspace_calls" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release \
  -DBEAST_TUNED_SOURCE_DIR="$WORK/tuned" > /dev/null
cmake --build "$WORK/build" -j2 > /dev/null
BEAST_TUNED_CACHE_DIR= "$WORK/build/workspace_calls" "$N" "$C" "$HW" "$K" \
  "${BEAST_ROUNDS:-7}" "${BEAST_CALLS:-10}"
