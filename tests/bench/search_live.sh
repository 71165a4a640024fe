#!/usr/bin/env bash
# The default search strategy against random, live on the device (issue 15):
# `beast tune` of gemm/tiled on SGEMM 1024^3 and of conv2d/direct_nchw on the
# ResNet-50 64-channel 3x3 convolution, each strategy with several seeds at a
# budget of 60 configs, each run into a database of its own. A trajectory of
# 30 configs is the first 30 of one of 60 (the driver cuts the budget after
# whole batches), so one run gives both budgets. Prints the best time after
# 30 and 60 configs, per seed and on average, beside the best any run of the
# script found (the space's best known here). Not a CTest test: about half
# an hour on PoCL with 2 cores.
# Usage: tests/bench/search_live.sh [WORKDIR]   (default: a new /tmp folder)
# Environment: BEAST (default build/beast/beast), SEEDS (default "1 2 3"),
# DEVICE (default: beast's best device).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
SEEDS=${SEEDS:-1 2 3}
WORK=${1:-$(mktemp -d /tmp/beast-search-live.XXXXXX)}
DEVICE_ARGS=()
[ -n "${DEVICE:-}" ] && DEVICE_ARGS=(--device "$DEVICE")
GEMM="gemm:M=1024,N=1024,K=1024,dtype=f32"
CONV="conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); work in $WORK"
mkdir -p "$WORK"
for case in "gemm/tiled $GEMM" "conv2d/direct_nchw $CONV"; do
  read -r template problem <<<"$case"
  for strategy in model random; do
    for seed in $SEEDS; do
      db="$WORK/$(echo "$template" | tr / _)-$strategy-$seed.db"
      [ -f "$db.done" ] && continue # a rerun of the script resumes
      "$BEAST" tune --template "$template" --problem "$problem" "${DEVICE_ARGS[@]}" \
        --strategy "$strategy" --seed "$seed" --max-configs 60 --max-reps 10 \
        --baselines none --confirm-top 0 --quiet --json --db "$db" >"$db.json"
      touch "$db.done"
    done
  done
done
python3 - "$WORK" <<'PY'
import collections, glob, json, os, sqlite3, statistics, sys
work = sys.argv[1]
best = collections.defaultdict(dict)  # (template, strategy) -> seed -> (best@30, best@60)
seconds = collections.defaultdict(list)
for db in sorted(glob.glob(os.path.join(work, "*.db"))):
    template, strategy, seed = os.path.basename(db)[:-3].rsplit("-", 2)
    times = [r[0] for r in sqlite3.connect(db).execute(
        "SELECT CASE WHEN status = 'ok' THEN median_ms END FROM measurements ORDER BY id")]
    ok = lambda ts: min([t for t in ts if t is not None], default=float("inf"))
    best[(template, strategy)][seed] = (ok(times[:30]), ok(times[:60]))
    summary = json.load(open(db + ".json"))
    seconds[(template, strategy)].append(
        (summary["proposal_seconds"], summary["wall_seconds"]))
for template in sorted({t for t, _ in best}):
    known = min(v[1] for s in ("model", "random") for v in best[(template, s)].values())
    print(f"\n{template}: best known {known:.4f} ms (the best of every run here)")
    print(f"  {'strategy':8} {'seed':>4} {'best@30 ms':>11} {'x known':>8} {'best@60 ms':>11} {'x known':>8}")
    for strategy in ("model", "random"):
        runs = best[(template, strategy)]
        for seed, (b30, b60) in sorted(runs.items()):
            print(f"  {strategy:8} {seed:>4} {b30:11.4f} {b30 / known:8.3f} {b60:11.4f} {b60 / known:8.3f}")
        m30 = statistics.mean(v[0] for v in runs.values())
        m60 = statistics.mean(v[1] for v in runs.values())
        print(f"  {strategy:8} {'mean':>4} {m30:11.4f} {m30 / known:8.3f} {m60:11.4f} {m60 / known:8.3f}")
    proposal = sum(p for p, _ in seconds[(template, "model")])
    wall = sum(w for _, w in seconds[(template, "model")])
    print(f"  model: {proposal:.1f} s fitting and proposing of {wall:.0f} s wall ({100 * proposal / wall:.2f}%)")
PY
