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
    for gpu in A100 A4000 MI250X; do
      [ -f "$SHARED/convolution_$gpu.json.gz" ] && caches+=("$SHARED/convolution_$gpu.json.gz")
    done
  else
    caches+=("$ROOT/tests/data/kernel_tuner/convolution_A100.json.gz")
  fi
fi
rows=$(mktemp)
costs=$(mktemp)
trap 'rm -f "$rows" "$costs"' EXIT
for cache in "${caches[@]}"; do
  # The cache's median compile and benchmark times: which of the two bounds it.
  python3 - "$cache" >>"$costs" <<'PY'
import gzip, json, os, statistics, sys
path = sys.argv[1]
entries = json.load(gzip.open(path) if path.endswith(".gz") else open(path))["cache"].values()
median = lambda field: statistics.median(e[field] for e in entries if isinstance(e.get(field), (int, float)))
print(path, median("compile_time") / 1000, median("benchmark_time"))
PY
  for lead in $LEADS; do
    "$BEAST" replay --kernel-tuner "$cache" --budget "$BUDGET" --repeats "$REPEATS" --lead "$lead" \
      --workers "$WORKERS" --at 30,60,120,240 --json >>"$rows"
  done
done
PYTHONPATH="$ROOT/tests/bench" python3 - "$rows" "$costs" <<'PY'
import collections, os, sys
from json_documents import documents
costs = {}
for line in open(sys.argv[2]):
    path, compile_s, bench_ms = line.split()
    costs[path] = "%.2f s / %.0f ms" % (float(compile_s), float(bench_ms))
results = documents(sys.argv[1])
seconds = [a["seconds"] for a in results[0]["at"]]
print("%-46s %5s" % ("cache (median compile / benchmark)", "lead") +
      "".join(" %14s" % ("%gs" % s) for s in seconds))
means = collections.defaultdict(list)
for r in results:
    name = os.path.basename(r["source"]).split(".json")[0]
    cells = ["%.3f (%4.0f)" % (a["mean_fraction"], a["mean_configs"]) for a in r["at"]]
    label = "%s (%s)" % (name, costs.get(r["source"], "?"))
    print("%-46s %5d" % (label, r["lead"]) + "".join(" %14s" % c for c in cells))
    means[r["lead"]].append([a["mean_fraction"] for a in r["at"]])
for lead, rows in means.items():
    cols = zip(*rows)
    print("%-46s %5d" % ("mean of %d" % len(rows), lead) +
          "".join(" %14.3f" % (sum(c) / len(c)) for c in cols))
PY
