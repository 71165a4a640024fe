#!/usr/bin/env bash
# Tuned kernels against CLBlast on one OpenCL device (issue 4, item 6): tunes
# SGEMM 1024x1024x1024 and the four ResNet-50 3x3 convolutions at N=1 with a
# bounded number of configs per template into a fresh database, with CLBlast
# baselines measured in the same run, then prints per problem the tuned time,
# CLBlast's time, their ratio and the winner's fraction of the measured peak,
# and the geometric mean of the convolution ratios. Targets: SGEMM >= 2x
# CLBlast, convolutions >= 1.5x Convgemm (geometric mean).
#
# Not a CTest test: it runs for minutes. Usage:
#   tests/bench/clblast_speedup.sh [DB]     (default: a new file under /tmp)
# Environment: BEAST_MAX_CONFIGS (configs per template and problem, default
# 30, the template's default config included), BEAST_DEVICE (default opencl:0),
# BEAST_SEED (default 1), BEAST (the beast binary, default build/beast/beast).
# Timings on a machine shared with other work are noisy: the load average is
# printed before and after.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
DEVICE=${BEAST_DEVICE:-opencl:0}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-30}
SEED=${BEAST_SEED:-1}
PYTHON=$ROOT/.venv/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
DB=${1:-$(mktemp -u /tmp/beast_clblast_speedup_XXXXXX.db)}
if [ -e "$DB" ]; then
  echo "clblast_speedup: $DB exists; give a new file (the comparison wants one fresh run)" >&2
  exit 2
fi
[ -x "$BEAST" ] || { echo "clblast_speedup: no beast binary at $BEAST (build first)" >&2; exit 2; }

GEMM="gemm:M=1024,N=1024,K=1024,transA=0,transB=0,dtype=f32"
CONVS=()
for ck in "64 56" "128 28" "256 14" "512 7"; do
  set -- $ck
  CONVS+=("conv2d:N=1,C=$1,H=$2,W=$2,K=$1,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32")
done

# Every conv2d template that takes NCHW competes; the problem's winner is the
# fastest of them.
TEMPLATES=(--template gemm/tiled)
for space in "$ROOT"/kernel_templates/conv2d/*.space.yaml; do
  if grep -Eq '^layouts:.*NCHW' "$space"; then
    name=$(basename "$space" .space.yaml)
    TEMPLATES+=(--template "conv2d/$name")
  fi
done
PROBLEMS=(--problem "$GEMM")
for c in "${CONVS[@]}"; do PROBLEMS+=(--problem "$c"); done

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "beast tune ${TEMPLATES[*]} on $DEVICE, $MAX_CONFIGS configs per pair, database $DB" >&2
JSON=$(mktemp /tmp/beast_clblast_speedup_XXXXXX.json)
trap 'rm -f "$JSON"' EXIT
"$BEAST" tune "${TEMPLATES[@]}" "${PROBLEMS[@]}" --device "$DEVICE" --db "$DB" \
  --max-configs "$MAX_CONFIGS" --seed "$SEED" --baselines clblast --json > "$JSON"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

"$PYTHON" - "$JSON" "$DB" <<'EOF'
import json, math, sys
summary = json.load(open(sys.argv[1]))
best = {}  # problem -> (ms, gflops, template, fraction of peak)
for p in summary["pairs"]:
    b = p["best"]
    if b is None:
        continue
    if p["problem"] not in best or b["median_ms"] < best[p["problem"]][0]:
        best[p["problem"]] = (b["median_ms"], b["gflops"], p["template"], p["fraction_of_peak"])
base = {b["problem"]: b for b in summary["baselines"]}
peak = summary["peak"]
print(f"device {summary['device']} ({summary['device_name']}), database {sys.argv[2]}")
if peak:
    print(f"peak {peak['gflops']:.1f} GFLOP/s fp32, measured by {peak['method']} (best: {peak['best_variant']})")
print(f"{'problem':<44} {'template':<20} {'tuned ms':>9} {'CLBlast ms':>10} {'ratio':>7} {'%peak':>6}")
conv_ratios, gemm_ratio = [], None
problems = list(dict.fromkeys(p["problem"] for p in summary["pairs"]))  # run order, once each
for problem in problems:
    short = problem.split(",stride")[0].replace(",transA=0,transB=0,dtype=f32", "")
    b = base.get(problem)
    t = best.get(problem)
    clblast = b["median_ms"] if b and b["status"] == "ok" else None
    ratio = clblast / t[0] if t and clblast else None
    if ratio and problem.startswith("conv2d"):
        conv_ratios.append(ratio)
    elif ratio:
        gemm_ratio = ratio
    frac = f"{100 * t[3]:.1f}%" if t and t[3] else "n/a"
    print(f"{short:<44} {t[2] if t else '(none ok)':<20} "
          f"{t[0] if t else float('nan'):>9.3f} "
          f"{clblast if clblast else float('nan'):>10.3f} "
          f"{(f'{ratio:.2f}x') if ratio else (b['status'] if b else 'n/a'):>7} {frac:>6}")
if gemm_ratio:
    print(f"SGEMM 1024^3: {gemm_ratio:.2f}x CLBlast (target 2x: {'met' if gemm_ratio >= 2 else 'not met'})")
if conv_ratios:
    g = math.exp(sum(math.log(r) for r in conv_ratios) / len(conv_ratios))
    print(f"ResNet-50 3x3 convolutions, geometric mean over {len(conv_ratios)}: {g:.2f}x CLBlast Convgemm "
          f"(target 1.5x: {'met' if g >= 1.5 else 'not met'})")
EOF
