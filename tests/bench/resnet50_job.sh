#!/usr/bin/env bash
# Issue 21's bench: ResNet-50's batch-1 job (jobs/resnet50_b1.job: 23 conv
# shapes and the classifier's GEMM, 54 layers) tuned on one OpenCL device
# within a time budget (default 55m, under the hour), then the network
# estimate — the job's weighted sum of best times — beside CLBlast's (the
# baselines measured in the run) and oneDNN's (PyTorch's CPU operators on the
# same cores, tests/bench/onednn_job_estimate.py), with their ratios.
#
# Not a CTest test: it runs for the budget. Usage:
#   tests/bench/resnet50_job.sh [DB]   (default: a new file under /tmp; an
#                                      existing one resumes: the same command
#                                      after a kill goes on where it stopped)
# Environment: BEAST_BUDGET (default 55m), BEAST_DEVICE (default opencl:0),
# BEAST (the beast binary, default build/beast/beast).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
BUDGET=${BEAST_BUDGET:-55m}
DEVICE=${BEAST_DEVICE:-opencl:0}
JOB=$ROOT/jobs/resnet50_b1.job
DB=${1:-$(mktemp -u /tmp/beast_resnet50_XXXXXX.db)}
[ -x "$BEAST" ] || { echo "resnet50_job: no beast binary at $BEAST (build first)" >&2; exit 2; }
[ -e "$DB" ] && echo "resnet50_job: $DB exists: resuming it" >&2

JSON=$(mktemp /tmp/beast_resnet50_XXXXXX.json)
trap 'rm -f "$JSON"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); database $DB" >&2
start=$(date +%s)
# Exit 3: some spaces were empty (gemm/tiled has none for the classifier's
# M=1): the job goes on without them, and says so below.
rc=0
"$BEAST" tune --problems "$JOB" --template conv2d/direct_nchw --template conv2d/implicit_gemm \
  --template gemm/tiled --device "$DEVICE" --db "$DB" --time-budget "$BUDGET" \
  --baselines auto --quiet --json > "$JSON" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { echo "resnet50_job: beast tune exited $rc" >&2; exit "$rc"; }
wall=$(( $(date +%s) - start ))
# The job as the database holds it (what a resumed run measured before too;
# one device per database here).
VIEW=$("$BEAST" query --db "$DB" --problems "$JOB" --json)
echo "oneDNN: timing every problem of the job with PyTorch's CPU operators" >&2
ONEDNN=$(/usr/bin/python3 "$ROOT/tests/bench/onednn_job_estimate.py" "$JOB" --json)

/usr/bin/python3 - "$JSON" "$wall" "$ONEDNN" "$VIEW" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
wall, onednn, job = int(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])[0]
beast, clblast, ref = job["weighted_best_ms"], job["weighted_library_ms"], onednn["weighted_ms"]
print("ResNet-50, batch 1 (jobs/resnet50_b1.job: %d problems, %d layers), tuned in %d s"
      % (len(job["problems"]), job["layers"], wall))
print("  beast (weighted sum of the best times):  %9.2f ms per forward pass" % beast)
if clblast is not None:
    print("  CLBlast (Convgemm / SGEMM, same run):     %9.2f ms   beast %.2fx faster"
          % (clblast, clblast / beast))
print("  oneDNN (PyTorch %s, %d threads):  %9.2f ms   beast / oneDNN %.2fx the time"
      % (onednn["torch"], onednn["threads"], ref, beast / ref))
if job["no_winner"]:
    print("  no ok winner: " + ", ".join(job["no_winner"]))
measured = sum(p["measured"] + p["skipped"] for p in summary["pairs"])
print("  configs: %d over %d template/problem pairs" % (measured, len(summary["pairs"])))
PY
