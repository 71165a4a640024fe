#!/usr/bin/env bash
# Precisions on one OpenCL device (issue 17's goals): tunes the 1024^3 GEMM
# (gemm/tiled) and ResNet-50's 64-channel 3x3 layer at N=1 (NCHW; by default
# conv2d/implicit_gemm and conv2d/winograd_split, the f32 winner on it) in
# f32, f64, f16 and bf16 with the same budget and seed into one fresh
# database, with CLBlast baselines measured in the same run, then prints per
# problem, dtype and template the winner's time and GFLOP/s, its ratio to
# the f32 winner's GFLOP/s over every template (target for the 16-bit
# storage types: >= 0.9x, they move half the bytes and sum in float) and to
# CLBlast (target for f64: DGEMM >= 2x CLBlast's Dgemm), and per problem and
# dtype the fastest template.
#
# Not a CTest test: it runs for minutes. Usage:
#   tests/bench/dtypes.sh [DB]     (default: a new file under /tmp; an
#                                  existing one resumes)
# Environment: BEAST_MAX_CONFIGS (configs per pair, default 30, the default
# config included), BEAST_DEVICE (default opencl:0), BEAST_SEED (default 1),
# BEAST_CONV_TEMPLATES (default "conv2d/implicit_gemm conv2d/winograd_split"),
# BEAST_DTYPES (default "f32 f64 f16 bf16"), BEAST (the beast binary,
# default build/beast/beast).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
DEVICE=${BEAST_DEVICE:-opencl:0}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-30}
SEED=${BEAST_SEED:-1}
CONV_TEMPLATES=${BEAST_CONV_TEMPLATES:-conv2d/implicit_gemm conv2d/winograd_split}
DTYPES=${BEAST_DTYPES:-f32 f64 f16 bf16}
PYTHON=$ROOT/.venv/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
DB=${1:-$(mktemp -u /tmp/beast_dtypes_XXXXXX.db)}
[ -e "$DB" ] && echo "dtypes: $DB exists: resuming it" >&2
[ -x "$BEAST" ] || { echo "dtypes: no beast binary at $BEAST (build first)" >&2; exit 2; }

JSON=$(mktemp /tmp/beast_dtypes_XXXXXX.json)
trap 'rm -f "$JSON"*' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# One run per dtype: each template meets only its own op's problems.
for dtype in $DTYPES; do
  templates=(--template gemm/tiled)
  for t in $CONV_TEMPLATES; do templates+=(--template "$t"); done
  echo "beast tune ${templates[*]} ($dtype, $MAX_CONFIGS configs per pair, seed $SEED)" >&2
  "$BEAST" tune "${templates[@]}" --problem "gemm:M=1024,N=1024,K=1024,transA=0,transB=0,dtype=$dtype" \
    --problem "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=$dtype" \
    --device "$DEVICE" --db "$DB" --max-configs "$MAX_CONFIGS" --seed "$SEED" \
    --baselines clblast --quiet --json >> "$JSON.lines"
  echo >> "$JSON.lines"
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
        rows.append((op, dtype, p["template"], b, base))
# The reference: the f32 winner of each problem over every template.
f32 = {}
for op, dtype, _, b, _ in rows:
    if dtype == "f32" and b:
        f32[op] = max(f32.get(op, 0), b["gflops"])
print(f"device {runs[0]['device']} ({runs[0]['device_name']}), database {sys.argv[2]}")
print(f"{'problem':<19} {'dtype':<5} {'template':<22} {'tuned ms':>9} {'GFLOP/s':>8} "
      f"{'vs f32':>7} {'CLBlast':>26}")
winners = {}
for op, dtype, template, b, base in rows:
    if not b:
        print(f"{op:<19} {dtype:<5} {template:<22} (no ok config)")
        continue
    if b["gflops"] > winners.get((op, dtype), (0, ""))[0]:
        winners[(op, dtype)] = (b["gflops"], template)
    vs32 = f"{b['gflops'] / f32[op]:.2f}x" if op in f32 else "n/a"
    clblast = (base or {}).get("median_ms")
    if clblast:
        cl = f"{base['routine']} {clblast:.3f} ms {clblast / b['median_ms']:.2f}x"
    else:
        cl = f"{base['routine']}: unsupported" if base else "n/a"
    print(f"{op:<19} {dtype:<5} {template:<22} {b['median_ms']:>9.3f} {b['gflops']:>8.1f} "
          f"{vs32:>7} {cl:>26}")
print("winners (GFLOP/s over the f32 winner's):")
for (op, dtype), (gflops, template) in winners.items():
    vs32 = f"{gflops / f32[op]:.2f}x" if op in f32 else "n/a"
    print(f"  {op:<19} {dtype:<5} {template:<22} {gflops:>8.1f} {vs32:>7}")
print("vs f32: GFLOP/s over the f32 winner's of that problem, every template (target >= 0.9x "
      "for f16 and bf16); CLBlast: its routine's time and the tuned speed-up over it (target "
      "DGEMM >= 2x)")
PYEOF
