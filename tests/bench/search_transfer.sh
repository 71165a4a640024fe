#!/usr/bin/env bash
# Transfer between problems, live on the device (issue 15, item 4): two
# ResNet-50 3x3 layers tuned one after the other with conv2d/direct_nchw.
# For each seed: layer A (64 channels, 56x56) is tuned into a database,
# then layer B (128 channels, 28x28) into the same database (the model
# learns from A's trials: --transfer auto) and, for comparison, into a
# fresh one (nothing to learn from). Prints, per run of B, how many configs
# it measured before its best so far came within 5% of B's best known (the
# best of every run of B here), and the means. Not a CTest test: about ten
# minutes on PoCL with 2 cores.
# Usage: tests/bench/search_transfer.sh [WORKDIR]   (default: a new /tmp folder)
# Environment: BEAST (default build/beast/beast), SEEDS (default "1 2 3"),
# BUDGET (configs per layer, default 30).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
SEEDS=${SEEDS:-1 2 3}
BUDGET=${BUDGET:-30}
WORK=${1:-$(mktemp -d /tmp/beast-search-transfer.XXXXXX)}
LAYER_A="conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32"
LAYER_B="conv2d:N=1,C=128,H=28,W=28,K=128,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); work in $WORK"
mkdir -p "$WORK"
tune() { # DB PROBLEM SEED
  "$BEAST" tune --template conv2d/direct_nchw --problem "$2" --seed "$3" \
    --max-configs "$BUDGET" --max-reps 10 --baselines none --confirm-top 0 --quiet \
    --json --db "$1" >"$1.$(echo "$2" | cut -c12-20).json"
}
for seed in $SEEDS; do
  [ -f "$WORK/done-$seed" ] && continue # a rerun of the script resumes
  tune "$WORK/warm-$seed.db" "$LAYER_A" "$seed"
  tune "$WORK/warm-$seed.db" "$LAYER_B" "$seed"
  tune "$WORK/cold-$seed.db" "$LAYER_B" "$seed"
  touch "$WORK/done-$seed"
done
python3 - "$WORK" "$LAYER_B" <<'PY'
import glob, os, sqlite3, statistics, sys
work, layer_b = sys.argv[1], sys.argv[2]
runs = {}
for db in sorted(glob.glob(os.path.join(work, "*.db"))):
    name = os.path.basename(db)[:-3]
    rows = sqlite3.connect(db).execute(
        "SELECT CASE WHEN m.status = 'ok' THEN m.median_ms END FROM measurements m "
        "JOIN problems p ON p.id = m.problem_id WHERE p.key LIKE 'conv2d:N=1,C=128,H=28%' "
        "ORDER BY m.id").fetchall()
    runs[name] = [r[0] for r in rows]
known = min(t for times in runs.values() for t in times if t is not None)
print(f"layer B ({layer_b}): best known {known:.4f} ms")
def reached(times):
    best = float("inf")
    for i, t in enumerate(times, start=1):
        if t is not None:
            best = min(best, t)
        if best <= 1.05 * known:
            return i
    return None
counts = {"warm": [], "cold": []}
for name, times in sorted(runs.items()):
    kind = name.split("-")[0]
    n = reached(times)
    best = min((t for t in times if t is not None), default=float("inf"))
    print(f"  {name:8} best {best:.4f} ms ({best / known:.3f} x known), within 5% after "
          f"{n if n else 'never (>' + str(len(times)) + ')'} configs")
    counts[kind].append(n if n else len(times) + 1)
for kind, label in (("warm", "with transfer from layer A"), ("cold", "without transfer")):
    print(f"  {label}: {statistics.mean(counts[kind]):.1f} configs on average to come within 5%"
          f" (never counted as budget + 1)")
PY
