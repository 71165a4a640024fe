#!/usr/bin/env bash
# Issue 20's bench: the algorithm as a tuning choice on ResNet-50's 3x3 layers
# (64->64 @56, 128->128 @28, 256->256 @14, 512->512 @7; N=1, NCHW, f32) on one
# OpenCL device (PoCL here). One beast tune without --template tunes every
# conv2d template that computes them — conv2d/direct_nchw, conv2d/implicit_gemm,
# conv2d/winograd (fused) and conv2d/winograd_split (four launches) — with the
# same budget per template in the same run;
# then oneDNN (PyTorch's CPU F.conv2d on every core, onednn_job_estimate.py)
# times the same shapes in the same script, twice: as F.conv2d (weights
# reordered in every call) and prepacked (weights reordered once, activations
# in oneDNN's layout: --prepacked), the counterpart of beast's prepared
# weights; the faster of the two is the reference. Prints per layer each algorithm's
# best time (winograd_split without its filter transform, a prepare stage run
# once per weight buffer, whose time is printed apart), Winograd against the
# best of the others, and the fastest against
# oneDNN, with geometric means. Not a CTest test: tens of minutes.
# Usage: tests/bench/winograd_resnet50.sh [DB]   (default: a new file in /tmp;
#        an existing one resumes)
# Environment: BEAST_MAX_CONFIGS (per template and layer, default 40),
# BEAST_DEVICE (default opencl:0), BEAST (the beast binary).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-40}
DEVICE=${BEAST_DEVICE:-opencl:0}
DB=${1:-$(mktemp -u /tmp/beast_winograd_XXXXXX.db)}
WORK=$(mktemp -d /tmp/beast_winograd_XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); database $DB" >&2
LAYERS=()
for shape in "64 56" "128 28" "256 14" "512 7"; do
  set -- $shape
  LAYERS+=("conv2d:N=1,C=$1,H=$2,W=$2,K=$1,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,dilation_h=1,dilation_w=1,groups=1,layout=NCHW,dtype=f32")
done
args=()
for p in "${LAYERS[@]}"; do args+=(--problem "$p"); done
start=$(date +%s)
"$BEAST" tune "${args[@]}" --device "$DEVICE" --db "$DB" --max-configs "$MAX_CONFIGS" \
  --baselines none --quiet > "$WORK/summary.txt"
echo "tuned in $(( $(date +%s) - start )) s" >&2
"$BEAST" query --db "$DB" --best --json > "$WORK/best.json"
"$BEAST" query --db "$DB" --status ok --json > "$WORK/all.json"
printf '%s\n' "${LAYERS[@]}" > "$WORK/layers.job"
/usr/bin/python3 "$ROOT/tests/bench/onednn_job_estimate.py" "$WORK/layers.job" --reps 30 --json \
  > "$WORK/onednn.json"
/usr/bin/python3 "$ROOT/tests/bench/onednn_job_estimate.py" "$WORK/layers.job" --reps 30 --json \
  --prepacked > "$WORK/onednn_prepacked.json"
python3 - "$WORK" "${LAYERS[@]}" <<'PY'
import json, math, sys
work, layers = sys.argv[1], sys.argv[2:]
best = json.load(open(f"{work}/best.json"))
every = json.load(open(f"{work}/all.json"))
onednn = json.load(open(f"{work}/onednn.json"))
prepacked = json.load(open(f"{work}/onednn_prepacked.json"))
def canon(key, rows=None):  # the rows of a layer (the database's key): by its C, H
    return [r for r in (best if rows is None else rows)
            if f"C={key.split('C=')[1].split(',')[0]}," in r["problem"]
            and f",H={key.split(',H=')[1].split(',')[0]}," in r["problem"]]
names = ["conv2d/direct_nchw", "conv2d/implicit_gemm", "conv2d/winograd", "conv2d/winograd_split"]
print(f"{'layer':<16}" + "".join(f"{n.split('/')[1]:>15}" for n in names)
      + f"{'prepare':>10}{'wino/other':>12}{'oneDNN':>10}{'prepacked':>11}{'best/oneDNN':>13}")
ratios, vs_onednn, plain_ratios = [], [], []
for key, plain, packed in zip(layers, onednn["problems"], prepacked["problems"]):
    ref_ms = min(plain["median_ms"], packed["median_ms"])  # oneDNN's faster way
    rows = {r["template"]: r["median_ms"] for r in canon(key)}
    prepare = {r["template"]: r.get("prepare_ms") for r in canon(key)}.get(names[3])
    times = [rows.get(n) for n in names]
    other = min(t for t in times[:2] if t)
    wino = min(t for t in times[2:] if t)  # the faster Winograd layout
    fastest = min(t for t in times if t)
    ratios.append(other / wino)
    # A plain call (no prepared weights) transforms them every time: the
    # split layout's best config by time plus transform, against the others.
    split_plain = min(r["median_ms"] + (r.get("prepare_ms") or 0)
                      for r in canon(key, every) if r["template"] == names[3])
    plain_ratios.append(other / min(t for t in (times[2], split_plain) if t))
    vs_onednn.append(ref_ms / fastest)
    c, h = key.split("C=")[1].split(",")[0], key.split(",H=")[1].split(",")[0]
    print(f"{c + '->' + c + ' @' + h:<16}" + "".join(f"{t:>15.4f}" for t in times)
          + (f"{prepare:>10.4f}" if prepare is not None else f"{'-':>10}")
          + f"{other / wino:>12.2f}{plain['median_ms']:>10.4f}{packed['median_ms']:>11.4f}"
          + f"{ref_ms / fastest:>13.2f}")
geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print(f"geomean: Winograd {geo(ratios):.2f}x the best direct/implicit-GEMM winner; "
      f"the fastest algorithm {geo(vs_onednn):.2f}x the speed of oneDNN's faster way "
      f"(PyTorch {onednn['torch']}, {onednn['threads']} threads); times in ms, medians; "
      "prepare: winograd_split's filter transform, run once per weight buffer "
      "(beast_conv2d_prepare), not in its time")
print(f"plain calls (the weight transform in every call): Winograd {geo(plain_ratios):.2f}x the "
      "best direct/implicit-GEMM winner (" + ", ".join(f"{r:.2f}" for r in plain_ratios) + ")")
PY
