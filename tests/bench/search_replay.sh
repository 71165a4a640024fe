#!/usr/bin/env bash
# The search strategies judged offline (issue 15's goals): `beast replay`
# of random and the default strategy (model) on recorded full spaces, 20
# seeds, at budgets 20, 50, 100 and 200, one table per space, then the mean
# over the three convolution caches the goals name. The spaces: the Kernel
# Tuner caches in ../shared/data/kernel_tuner_caches (when that folder is
# there) or the A100 one this repository ships, plus any cache given as an
# argument (spaces the strategy was never tuned on). Not a CTest test: a
# minute or two. Also prints the strategy's own cost per 100-evaluation run.
# Usage: tests/bench/search_replay.sh [CACHE.json[.gz] ...]
# Environment: BEAST (the beast binary, default build/beast/beast), REPEATS.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
REPEATS=${REPEATS:-20}
SHARED=$ROOT/../shared/data/kernel_tuner_caches
caches=()
if [ -d "$SHARED" ]; then
  for gpu in A100 A4000 MI250X; do caches+=("$SHARED/convolution_$gpu.json.gz"); done
else
  caches+=("$ROOT/tests/data/kernel_tuner/convolution_A100.json.gz")
fi
caches+=("$@")
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
for cache in "${caches[@]}"; do
  "$BEAST" replay --kernel-tuner "$cache" --compare random,model --budgets 20,50,100,200 \
    --repeats "$REPEATS"
  for strategy in random model; do
    for budget in 50 100; do
      "$BEAST" replay --kernel-tuner "$cache" --strategy "$strategy" --budget "$budget" \
        --repeats "$REPEATS" --json |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print(sys.argv[1], r["strategy"], r["budget"], r["mean_fraction"], r["seconds"] / len(r["runs"]))' \
          "$(basename "$cache")" >>"$summary"
    done
  done
  echo
done
python3 - "$summary" <<'PY'
import collections, sys
rows = [line.split() for line in open(sys.argv[1])]
goal = {"convolution_A100.json.gz", "convolution_A4000.json.gz", "convolution_MI250X.json.gz"}
mean = collections.defaultdict(list)
for cache, strategy, budget, fraction, seconds in rows:
    if cache in goal:
        mean[(strategy, int(budget))].append(float(fraction))
print("mean fraction over the convolution caches of the goals (A100, A4000, MI250X):")
for (strategy, budget), values in sorted(mean.items()):
    print(f"  {strategy:8} @{budget:<4} {sum(values) / len(values):.3f} ({len(values)} caches)")
costs = [float(r[4]) for r in rows if r[1] == "model" and r[2] == "100"]
print(f"model's own cost per 100-evaluation replay: {max(costs):.2f} s at most "
      f"({sum(costs) / len(costs):.2f} s mean)")
PY
