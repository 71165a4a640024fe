#!/usr/bin/env bash
# The search lead on a GPU's clock (README, On a GPU's clock): `beast
# replay --workers 16 --at 30,60,120,240` of the default strategy on the
# three convolution caches in ../shared/data/kernel_tuner_caches (or the A100
# one this repository ships, or the caches given as arguments), with the next
# batch proposed when 2, 8 or 16 proposed configs are left, budget 600: the
# mean fraction of the optimum reached by each second of the simulated wall
# clock, with the configs measured by then, and the mean over the caches.
# Not a CTest test: about 25 minutes on this 2-core machine at the default
# 100 seeds (the model refits up to 600 measurements per run).
# Usage: tests/bench/search_clock.sh [CACHE.json[.gz] ...]
# Environment: BEAST (the beast binary, default build/beast/beast), REPEATS,
# WORKERS (default 16), LEADS (default "2 8 16"), BUDGET (default 600).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
REPEATS=${REPEATS:-100}
WORKERS=${WORKERS:-16}
LEADS=${LEADS:-2 8 16}
BUDGET=${BUDGET:-600}
SHARED=$ROOT/../shared/data/kernel_tuner_caches
caches=("$@")
if [ ${#caches[@]} -eq 0 ]; then
  if [ -d "$SHARED" ]; then
    for gpu in A100 A4000 MI250X; do caches+=("$SHARED/convolution_$gpu.json.gz"); done
  else
    caches+=("$ROOT/tests/data/kernel_tuner/convolution_A100.json.gz")
  fi
fi
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for cache in "${caches[@]}"; do
  for lead in $LEADS; do
    "$BEAST" replay --kernel-tuner "$cache" --budget "$BUDGET" --repeats "$REPEATS" --lead "$lead" \
      --workers "$WORKERS" --at 30,60,120,240 --json >>"$rows"
  done
done
python3 - "$rows" <<'PY'
import collections, json, os, sys
text, at, results = open(sys.argv[1]).read(), 0, []
while text[at:].strip():
    at += len(text[at:]) - len(text[at:].lstrip())
    result, at = json.JSONDecoder().raw_decode(text, at)
    results.append(result)
seconds = [a["seconds"] for a in results[0]["at"]]
print("%-32s %5s" % ("cache", "lead") + "".join(" %14s" % ("%gs" % s) for s in seconds))
means = collections.defaultdict(list)
for r in results:
    name = os.path.basename(r["source"]).split(".json")[0]
    cells = ["%.3f (%4.0f)" % (a["mean_fraction"], a["mean_configs"]) for a in r["at"]]
    print("%-32s %5d" % (name, r["lead"]) + "".join(" %14s" % c for c in cells))
    means[r["lead"]].append([a["mean_fraction"] for a in r["at"]])
for lead, rows in means.items():
    cols = zip(*rows)
    print("%-32s %5d" % ("mean of %d" % len(rows), lead) +
          "".join(" %14.3f" % (sum(c) / len(c)) for c in cols))
PY
