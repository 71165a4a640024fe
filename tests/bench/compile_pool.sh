#!/usr/bin/env bash
# The program cache and compile pool against the device-busy fraction (issue
# 5, items 1 and 5): runs `./run tune`'s job (conv2d/direct_nchw and
# gemm/tiled on the ResNet-50 3x3 convolution and SGEMM 512^3, CLBlast
# baselines included) five ways, each with a fresh PoCL kernel cache
# (POCL_CACHE_DIR) and a fresh program cache, so every compile is cold:
#   A  --no-cache --compile-jobs 0 --confirm-top 0   what beast did before
#   B  cache, --compile-jobs 0 --confirm-top 0       the device worker stores
#   C  cache and pool, --confirm-top 0
#   D  the defaults (pool, --confirm-top 3)
#   D2 the defaults again into another database, with D's caches
# and prints each run's wall, compile, first-launch, benchmark and
# confirmation seconds and device-busy fraction. Not a CTest test: minutes.
# Usage: tests/bench/compile_pool.sh [WORKDIR]   (default: a new /tmp folder)
# Environment: BEAST_MAX_CONFIGS (per template and problem, default 20),
# BEAST (the beast binary, default build/beast/beast).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-20}
WORK=${1:-$(mktemp -d /tmp/beast-compile-pool.XXXXXX)}
CONV="conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32"
GEMM="gemm:M=512,N=512,K=512,dtype=f32"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); work in $WORK"

# run NAME DB [ARGS...]: one tuning run in $WORK/NAME, its summary line kept.
run() {
  local name=$1 db=$2
  shift 2
  mkdir -p "$WORK/$name"
  POCL_CACHE_DIR="$WORK/$name/pocl" "$BEAST" tune --template conv2d/direct_nchw \
    --template gemm/tiled --problem "$CONV" --problem "$GEMM" --db "$WORK/$name/$db" \
    --max-configs "$MAX_CONFIGS" --quiet "$@" > "$WORK/$name/$db.txt"
  printf "%-9s %s\n" "$name/$db" "$(grep -E '^wall ' "$WORK/$name/$db.txt")"
  grep -E '^programs: ' "$WORK/$name/$db.txt" | sed 's/^/    /'
}

run A a.db --no-cache --compile-jobs 0 --confirm-top 0
run B b.db --cache-dir "$WORK/B/cache" --compile-jobs 0 --confirm-top 0
run C c.db --cache-dir "$WORK/C/cache" --confirm-top 0
run D d.db --cache-dir "$WORK/D/cache"
run D d2.db --cache-dir "$WORK/D/cache"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
