#!/usr/bin/env bash
# beast tune under mpirun on PoCL with 1, 2 and 4 device ranks (issue 18,
# item 5): each rank's PoCL runs kernels on one thread (POCL_MAX_PTHREAD_COUNT
# =1) and compiles in its own device worker (--compile-jobs 0), ranks beyond
# the two cores are oversubscribed. Every run tunes the same random configs
# of gemm/tiled on a 256^3 SGEMM from cold caches (fresh PoCL kernel cache
# and program cache), and one process without mpirun, measured in the same
# script, is the reference. Prints per run the configs per second over the
# pair's measuring time, its ratio to the reference, and each rank's configs
# and device-busy share of the run's wall time. Not a CTest test: minutes.
# Usage: tests/bench/mpi_scaling.sh [WORKDIR]   (default: a new /tmp folder)
# Environment: BEAST_MAX_CONFIGS (default 48), BEAST (the beast binary).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-48}
WORK=${1:-$(mktemp -d /tmp/beast-mpi-scaling.XXXXXX)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); work in $WORK"
ARGS=(tune --template gemm/tiled --problem gemm:M=256,N=256,K=256 --max-configs "$MAX_CONFIGS"
  --strategy random --seed 1 --compile-jobs 0 --baselines none --confirm-top 0 --quiet --json)

# run NAME [LAUNCHER...]: one run in $WORK/NAME with fresh caches; its JSON.
run() {
  local name=$1
  shift
  mkdir -p "$WORK/$name"
  POCL_MAX_PTHREAD_COUNT=1 POCL_CACHE_DIR="$WORK/$name/pocl" "$@" "$BEAST" "${ARGS[@]}" \
    --db "$WORK/$name/beast.db" --cache-dir "$WORK/$name/cache" > "$WORK/$name/summary.json"
}

run one
for n in 1 2 4; do
  run "ranks$n" mpirun --oversubscribe -x POCL_MAX_PTHREAD_COUNT -x POCL_CACHE_DIR -np $((n + 1))
done

python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
def load(name):
    s = json.load(open(f"{work}/{name}/summary.json"))
    s = s[0] if isinstance(s, list) else s
    pair = s["pairs"][0]
    return s, pair["measured"] / pair["seconds"]
_, ref = load("one")
print(f"{'run':<26} {'configs/s':>9} {'vs one':>7}  per rank: configs, device busy")
print(f"{'one process, no mpirun':<26} {ref:9.2f} {1.0:7.2f}")
for n in (1, 2, 4):
    s, rate = load(f"ranks{n}")
    ranks = ", ".join(f"rank {r['rank']} {r['measured']} {100 * r['busy_seconds'] / s['wall_seconds']:.0f}%"
                      for r in s["ranks"])
    print(f"{'mpirun, ' + str(n) + ' device rank(s)':<26} {rate:9.2f} {rate / ref:7.2f}  {ranks}")
PY
