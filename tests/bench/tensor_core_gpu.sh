#!/usr/bin/env bash
# Tensor cores against the vendor libraries on a CUDA GPU (issue 17's GPU
# goals): tunes gemm/mma on the 4096^3 GEMM and conv2d/implicit_gemm_mma on
# ResNet-50's four 3x3 layers at N=32 (NHWC, the layout tensor cores are fed
# well), in f16, with cuBLAS (cublasGemmEx) and cuDNN (tensor-op math
# allowed) measured in the same run, and prints each winner's time, TFLOP/s
# and its speed-up over the library (goal for the conv: >= 0.7x cuDNN's
# best FP16 algorithm, 1.0x the aim), the winner's SPLITK and the best time
# without split-K (SPLITK=1) in the same run. Needs a GPU: without one it
# says so and exits 2.
#
# Not a CTest test: it runs for minutes. Usage:
#   tests/bench/tensor_core_gpu.sh [DB]   (default: a new file under /tmp;
#                                          an existing one resumes)
# Environment: BEAST_MAX_CONFIGS (configs per pair, default 60),
# BEAST_TIME_BUDGET (each tune's measuring, e.g. 40s; default none), BEAST_DTYPE
# (f16 or bf16, default f16), BEAST_LAYOUT (the convs' layout: NHWC, the
# default, or NCHW, whose patch the template gathers element by element),
# BEAST_DEVICE (default cuda:0), BEAST (the beast binary, default
# build/beast/beast).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
DEVICE=${BEAST_DEVICE:-cuda:0}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-60}
DTYPE=${BEAST_DTYPE:-f16}
BUDGET=(--baselines nvidia)  # never empty: "${a[@]}" of an empty array fails set -u before bash 4.4
[ -n "${BEAST_TIME_BUDGET:-}" ] && BUDGET+=(--time-budget "$BEAST_TIME_BUDGET")
DB=${1:-$(mktemp -u /tmp/beast_tensor_cores_XXXXXX.db)}
[ -x "$BEAST" ] || { echo "tensor_core_gpu: no beast binary at $BEAST (build first)" >&2; exit 2; }
"$BEAST" devices 2>/dev/null | grep -q "^cuda:" ||
  { echo "tensor_core_gpu: no CUDA GPU here (beast devices lists none)" >&2; exit 2; }

JSON=$(mktemp /tmp/beast_tensor_cores_XXXXXX.json)
trap 'rm -f "$JSON"*' EXIT
CONV="N=32,R=3,S=3,stride=1,pad=1,layout=${BEAST_LAYOUT:-NHWC},dtype=$DTYPE"
"$BEAST" tune --device "$DEVICE" --db "$DB" --max-configs "$MAX_CONFIGS" "${BUDGET[@]}" \
  --quiet --json --template gemm/mma \
  --problem "gemm:M=4096,N=4096,K=4096,transA=0,transB=0,dtype=$DTYPE" >> "$JSON.lines"
"$BEAST" tune --device "$DEVICE" --db "$DB" --max-configs "$MAX_CONFIGS" "${BUDGET[@]}" \
  --quiet --json --template conv2d/implicit_gemm_mma \
  --problem "conv2d:C=64,H=56,W=56,K=64,$CONV" --problem "conv2d:C=128,H=28,W=28,K=128,$CONV" \
  --problem "conv2d:C=256,H=14,W=14,K=256,$CONV" --problem "conv2d:C=512,H=7,W=7,K=512,$CONV" \
  >> "$JSON.lines"
# Split-K's part: each pair's best config that does not split K (SPLITK=1),
# measured in the same run, beside the winner (on this run's device: the
# database may hold others).
DEVICE_NAME=$(PYTHONPATH="$ROOT/tests/bench" python3 -c \
  'import sys; from json_documents import documents; print(documents(sys.argv[1])[0]["device_name"])' \
  "$JSON.lines")
# A database whose configs of a template have no SPLITK (an earlier
# version's only) makes the second query one line on stderr: no column then.
for template in gemm/mma conv2d/implicit_gemm_mma; do
  "$BEAST" query --db "$DB" --best --device "$DEVICE_NAME" --template "$template" --json || true
  { "$BEAST" query --db "$DB" --best --device "$DEVICE_NAME" --template "$template" \
    --where SPLITK=1 --json || true; } | sed 's/"template": "/"template": "unsplit:/'
done >> "$JSON.best"
PYTHONPATH="$ROOT/tests/bench" python3 - "$JSON.lines" "$JSON.best" <<'PY'
import math, sys
from json_documents import documents
summaries = documents(sys.argv[1])
# (template, problem) -> the winner's SPLITK, and the best time with SPLITK=1.
splitk, unsplit = {}, {}
for rows in documents(sys.argv[2]):
    for r in rows:
        if r["template"].startswith("unsplit:"):
            unsplit[(r["template"][len("unsplit:"):], r["problem"])] = r["median_ms"]
        else:
            splitk[(r["template"], r["problem"])] = r["params"].get("SPLITK")
rows, ratios = [], []
for summary in summaries:
    libs = {b["problem"]: b for b in summary.get("baselines", []) if b["status"] == "ok"}
    for pair in summary["pairs"]:
        best = pair.get("best") or {}
        lib = libs.get(pair["problem"])
        ms = best.get("median_ms")
        ratio = lib["median_ms"] / ms if ms and lib else None
        if ratio:
            ratios.append(ratio)
        key = (pair["template"], pair["problem"])
        rows.append((pair["template"], pair["problem"].split(",dtype")[0], ms,
                     best.get("gflops"), lib["routine"] if lib else "-",
                     lib["median_ms"] if lib else None, ratio, splitk.get(key),
                     unsplit.get(key)))
print("%-26s %-44s %9s %8s %24s %9s %7s %6s %11s" % (
    "template", "problem", "best ms", "TFLOP/s", "library", "lib ms", "speedup", "SPLITK",
    "unsplit ms"))
for t, p, ms, gf, routine, lms, r, sk, ums in rows:
    print("%-26s %-44s %9s %8s %24s %9s %7s %6s %11s" % (
        t, p[:44], "%.4f" % ms if ms else "-", "%.1f" % (gf / 1000) if gf else "-", routine,
        "%.4f" % lms if lms else "-", "%.2fx" % r if r else "-", sk or "-",
        "%.4f" % ums if ums else "-"))
if ratios:
    print("geomean speed-up over the library: %.2fx" %
          math.exp(sum(map(math.log, ratios)) / len(ratios)))
PY
echo "database: $DB"
