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
#   tests/bench/clblast_speedup.sh [DB]     (default: a new file under /tmp;
#                                           an existing one resumes)
# Environment: BEAST_MAX_CONFIGS (configs per template and problem, default
# 30, the template's default config included), BEAST_DEVICE (default opencl:0),
# BEAST_SEED (default 1), BEAST_PAIRED_ROUNDS (default 3), BEAST (the beast
# binary, default build/beast/beast).
# The tuning run measures CLBlast once, at its start; on a machine whose load
# changes during the run that ratio drifts, so each winner is then timed again
# beside CLBlast in BEAST_PAIRED_ROUNDS short reruns (each a fresh database,
# the winner pinned by a constraint) and the median of those paired ratios is
# printed too. The load average is printed before and after.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
DEVICE=${BEAST_DEVICE:-opencl:0}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-30}
SEED=${BEAST_SEED:-1}
PAIRED_ROUNDS=${BEAST_PAIRED_ROUNDS:-3}
PYTHON=$ROOT/.venv/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
DB=${1:-$(mktemp -u /tmp/beast_clblast_speedup_XXXXXX.db)}
# An existing database resumes: what it holds is not measured again (its
# baselines included), so a finished run is only summarized and re-paired.
[ -e "$DB" ] && echo "clblast_speedup: $DB exists: resuming it" >&2
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

"$PYTHON" - "$JSON" "$DB" "$BEAST" "$DEVICE" "$PAIRED_ROUNDS" <<'EOF'
import json, math, os, statistics, subprocess, sys, tempfile
summary = json.load(open(sys.argv[1]))
beast, device, rounds = sys.argv[3], sys.argv[4], int(sys.argv[5])
best = {}  # problem -> the fastest pair's best: (ms, template, config, fraction of peak)
for p in summary["pairs"]:
    b = p["best"]
    if b is not None and (p["problem"] not in best or b["median_ms"] < best[p["problem"]][0]):
        best[p["problem"]] = (b["median_ms"], p["template"], b["config"], p["fraction_of_peak"])
base = {b["problem"]: b for b in summary["baselines"]}
problems = list(dict.fromkeys(p["problem"] for p in summary["pairs"]))  # run order, once each


def paired_ratio(problem, template, config):
    """CLBlast median / the winner's median, both measured by one short beast
    tune run (a fresh database, the winner pinned by a hard constraint), so the
    two times are seconds apart, under the same load."""
    pin = " and ".join(f"{k} == {v}" for k, v in (kv.split("=", 1) for kv in config.split(",")))
    with tempfile.TemporaryDirectory() as d:
        run = subprocess.run([beast, "tune", "--template", template, "--problem", problem,
                              "--device", device, "--db", os.path.join(d, "paired.db"),
                              "--constraint", "hard: " + pin, "--baselines", "clblast",
                              "--quiet", "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"paired rerun failed: {run.stderr.strip()}", file=sys.stderr)
        return None
    baseline = json.loads(run.stdout)["pairs"][0]["baseline"]
    return baseline["speedup"] if baseline else None


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


peak = summary["peak"]
print(f"device {summary['device']} ({summary['device_name']}), database {sys.argv[2]}")
if peak:
    print(f"peak {peak['gflops']:.1f} GFLOP/s fp32, measured by {peak['method']} "
          f"(best: {peak['best_variant']})")
print(f"{'problem':<42} {'winner':<20} {'tuned ms':>9} {'CLBlast ms':>10} {'ratio':>7} "
      f"{'paired':>7} {'%peak':>6}")
ratios, paired = {}, {}
for problem in problems:
    short = problem.split(",stride")[0].replace(",transA=0,transB=0,dtype=f32", "")
    b, t = base.get(problem), best.get(problem)
    clblast = b["median_ms"] if b and b["status"] == "ok" else None
    if t and clblast:
        ratios[problem] = clblast / t[0]
        got = [r for r in (paired_ratio(problem, t[1], t[2]) for _ in range(rounds)) if r]
        if got:
            paired[problem] = statistics.median(got)
    ratio = f"{ratios[problem]:.2f}x" if problem in ratios else (b["status"] if b else "n/a")
    pair = f"{paired[problem]:.2f}x" if problem in paired else "n/a"
    frac = f"{100 * t[3]:.1f}%" if t and t[3] else "n/a"
    print(f"{short:<42} {t[1] if t else '(none ok)':<20} {t[0] if t else float('nan'):>9.3f} "
          f"{clblast if clblast else float('nan'):>10.3f} {ratio:>7} {pair:>7} {frac:>6}")
print(f"ratio: CLBlast's median at the start of the run / the winner's median during it; "
      f"paired: the median over {rounds} short reruns timing both seconds apart")
for name, table in (("ratio", ratios), ("paired", paired)):
    gemm = [r for p, r in table.items() if p.startswith("gemm")]
    conv = [r for p, r in table.items() if p.startswith("conv2d")]
    if gemm:
        print(f"{name}: SGEMM 1024^3 {gemm[0]:.2f}x CLBlast (target 2x: "
              f"{'met' if gemm[0] >= 2 else 'not met'})")
    if conv:
        g = geomean(conv)
        print(f"{name}: ResNet-50 3x3 convolutions, geometric mean over {len(conv)}: {g:.2f}x "
              f"CLBlast Convgemm (target 1.5x: {'met' if g >= 1.5 else 'not met'})")
EOF
