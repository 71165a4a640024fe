#!/usr/bin/env bash
# Precisions on one OpenCL device (issue 17's goals): tunes the 1024^3 GEMM
# (gemm/tiled) and ResNet-50's 64-channel 3x3 layer at N=1 (conv2d/
# implicit_gemm, NCHW) in f32, f64, f16 and bf16 with the same budget and
# seed into one fresh database, with CLBlast baselines measured in the same
# run, then prints per problem and dtype the winner's time and GFLOP/s, its
# ratio to the f32 winner's GFLOP/s (target for the 16-bit storage types:
# >= 0.9x, they move half the bytes and sum in float) and to CLBlast (target
# for f64: DGEMM >= 2x CLBlast's Dgemm).
#
# Not a CTest test: it runs for minutes. Usage:
#   tests/bench/dtypes.sh [DB]     (default: a new file under /tmp; an
#                                  existing one resumes)
# Environment: BEAST_MAX_CONFIGS (configs per pair, default 30, the default
# config included), BEAST_DEVICE (default opencl:0), BEAST_SEED (default 1),
# BEAST (the beast binary, default build/beast/beast).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
DEVICE=${BEAST_DEVICE:-opencl:0}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-30}
SEED=${BEAST_SEED:-1}
PYTHON=$ROOT/.venv/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
DB=${1:-$(mktemp -u /tmp/beast_dtypes_XXXXXX.db)}
[ -e "$DB" ] && echo "dtypes: $DB exists: resuming it" >&2
[ -x "$BEAST" ] || { echo "dtypes: no beast binary at $BEAST (build first)" >&2; exit 2; }

JSON=$(mktemp /tmp/beast_dtypes_XXXXXX.json)
trap 'rm -f "$JSON"*' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# One run per template: a template meets only its own op's problems.
for dtype in f32 f64 f16 bf16; do
  for pair in "gemm/tiled gemm:M=1024,N=1024,K=1024,transA=0,transB=0,dtype=$dtype" \
    "conv2d/implicit_gemm conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=$dtype"; do
    set -- $pair
    echo "beast tune --template $1 --problem $2 ($MAX_CONFIGS configs, seed $SEED)" >&2
    "$BEAST" tune --template "$1" --problem "$2" --device "$DEVICE" --db "$DB" \
      --max-configs "$MAX_CONFIGS" --seed "$SEED" --baselines clblast --quiet --json \
      >> "$JSON.lines"
    echo >> "$JSON.lines"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

"$PYTHON" - "$JSON.lines" "$DB" <<'PYEOF'
import json, sys
runs = [json.loads(block) for block in open(sys.argv[1]).read().split("\n\n") if block.strip()]
rows = []
for run in runs:
    for p in run["pairs"]:
        b, base = p["best"], p["baseline"]
        dtype = p["problem"].rsplit("dtype=", 1)[1]
        op = "GEMM 1024^3" if p["problem"].startswith("gemm") else "ResNet-50 64ch 3x3"
        clblast = (base or {}).get("median_ms")
        rows.append((op, dtype, p["template"], b, clblast, base))
f32 = {op: b["gflops"] for op, dtype, _, b, _, _ in rows if dtype == "f32" and b}
print(f"device {runs[0]['device']} ({runs[0]['device_name']}), database {sys.argv[2]}")
print(f"{'problem':<20} {'dtype':<5} {'tuned ms':>9} {'GFLOP/s':>8} {'vs f32':>7} "
      f"{'CLBlast':>24}")
for op, dtype, template, b, clblast, base in rows:
    if not b:
        print(f"{op:<20} {dtype:<5} (no ok config)")
        continue
    vs32 = f"{b['gflops'] / f32[op]:.2f}x" if op in f32 else "n/a"
    if clblast:
        cl = f"{base['routine']} {clblast:.3f} ms {clblast / b['median_ms']:.2f}x"
    else:
        cl = f"{base['routine']}: unsupported" if base else "n/a"
    print(f"{op:<20} {dtype:<5} {b['median_ms']:>9.3f} {b['gflops']:>8.1f} {vs32:>7} {cl:>24}")
print("vs f32: GFLOP/s over the f32 winner's (target >= 0.9x for f16 and bf16); CLBlast: its "
      "routine's time and the tuned speed-up over it (target DGEMM >= 2x)")
PYEOF
