#!/usr/bin/env python3
"""Reference numbers for Kernel Tuner's search strategies on a recorded cache.

We need these numbers to compare `beast replay` against an independent,
widely used tuner. The script replays a Kernel Tuner 1.x cache file in Kernel
Tuner's simulation mode. No GPU is used: the time of every configuration comes
from the recording. Each strategy runs once per seed and budget, and the script
reports the mean "fraction of the optimum reached":

    fraction = optimum_time / best_time_found

optimum_time is the best time in the whole cache. best_time_found is the best
time among the configurations the strategy evaluated within its budget. A run
where every evaluated configuration failed scores 0. A budget counts distinct
configurations evaluated, failures included. This is also how Kernel Tuner's
simulation runner charges max_fevals: a repeated configuration is free, and a
recorded failure costs one evaluation.

The search space is exactly the set of configurations in the cache, failures
included. A cache usually covers only part of the Cartesian product of
tune_params, and outside simulation mode the missing points were excluded by
the kernel's restrictions. Here a callable restriction admits only the recorded
points, so no strategy can propose a configuration the cache lacks. Kernel
Tuner's own tune_cache() also drops recorded failures from the space. We keep
them, because a real tuning session pays for them too, and `beast replay`
counts them the same way.

Requires kernel_tuner==1.5.0. Other versions change the strategies and their
defaults, so their numbers are not comparable. To install it:

    python3 -m venv /tmp/ktvenv
    /tmp/ktvenv/bin/pip install kernel_tuner==1.5.0

Usage (python3 being the venv's, /tmp/ktvenv/bin/python3 above):

    python3 tests/bench/kernel_tuner_reference.py CACHE.json.gz \\
        --strategies a,b --budgets 50,100 --seeds 100

--strategies defaults to ten of Kernel Tuner's strategies, all with their
default options; any other strategy name Kernel Tuner knows (bayes_opt, for
one) can be given too. Ten strategies, two budgets and 100 seeds take about
four minutes on one core.

The script prints a table of strategy, budget, seeds, mean fraction, standard
error (std/sqrt(seeds)), seconds per run, and the mean number of distinct
configurations measured, which can be under the budget for strategies that stop
on their own criteria. With --runs FILE it also appends one JSON line per run,
so that a long measurement can be resumed or extended to more seeds: runs
already in FILE for the same cache are not repeated.

Seeds: each run seeds Python's `random` and NumPy's global generator with its
seed, which is what these strategies draw from, so a run is repeatable and the
seeds 0..N-1 of two invocations give the same numbers.
"""

import argparse
import gzip
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
import warnings

try:
    import numpy as np
except ImportError:
    sys.exit("numpy is not installed: run this in kernel_tuner==1.5.0's environment (see the top)")

DEFAULT_STRATEGIES = (
    "genetic_algorithm,pso,firefly_algorithm,basinhopping,dual_annealing,"
    "random_sample,simulated_annealing,diff_evo,greedy_ils,mls"
)


def load_cache(path):
    """The cache's JSON; a file that is missing or not a Kernel Tuner cache
    ends the script with one line naming it."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            cache = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot be read as a Kernel Tuner cache: {e}")
    if not isinstance(cache, dict):
        sys.exit(f"{path}: not a Kernel Tuner cache (its JSON is not an object)")
    missing = [k for k in ("tune_params", "cache", "kernel_name", "problem_size") if k not in cache]
    if missing:
        sys.exit(f"{path}: not a Kernel Tuner 1.x cache (no {', '.join(missing)})")
    return cache


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def private_copy(path, workdir):
    # Kernel Tuner reads the cache as plain JSON from a name ending in ".json",
    # and outside simulation mode it rewrites the file to append to it. A
    # private, uncompressed copy keeps the recording itself untouched whatever
    # the mode does.
    dst = os.path.join(workdir, "replay_cache.json")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as src, open(dst, "wb") as out:
        shutil.copyfileobj(src, out)
    return dst


def make_restriction(cache):
    from constraint import FunctionConstraint

    keys = list(cache["tune_params"])
    recorded = {tuple(rec[k] for k in keys) for rec in cache["cache"].values()}

    def only_recorded(*values):
        return values in recorded

    # A FunctionConstraint receives the values in tune_params order, like the
    # restriction Kernel Tuner builds in tune_cache(). A plain function would be
    # handed a dict, and its source would be parsed when it is a lambda.
    return FunctionConstraint(only_recorded), len(recorded)


def seed_latin_hypercube():
    # diff_evo draws its first population from scipy's LatinHypercube, which
    # seeds itself from fresh entropy when given no generator, so np.random.seed
    # would not make those runs repeatable. Handing it a generator drawn from
    # NumPy's global state keeps the sampling the same and makes the seed decide it.
    from scipy.stats import qmc

    base = qmc.LatinHypercube
    if getattr(base, "_seeded_from_global", False):
        return

    class LatinHypercube(base):
        _seeded_from_global = True

        def __init__(self, d, **kwargs):
            if kwargs.get("rng") is None and kwargs.get("seed") is None:
                kwargs["rng"] = np.random.default_rng(np.random.randint(2**32))
            super().__init__(d, **kwargs)

    qmc.LatinHypercube = LatinHypercube


def run_once(kt, cache, cachefile, restriction, objective, strategy, budget, seed, name):
    # Of these strategies, only the pymoo-based ones read tune_kernel's `seed`.
    # The others draw from Python's `random` and NumPy's global generator, and
    # scipy's optimizers do too when no generator is given. So both are seeded
    # before every run, which makes each run reproducible on its own.
    random.seed(seed)
    np.random.seed(seed)
    problem_size = cache["problem_size"]
    if isinstance(problem_size, int):
        problem_size = (problem_size,)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = kt.tune_kernel(
            cache["kernel_name"],
            "",
            tuple(problem_size),
            [],
            cache["tune_params"],
            restrictions=[restriction],
            cache=cachefile,
            simulation_mode=True,
            strategy=strategy,
            strategy_options={"max_fevals": budget},
            objective=objective,
            objective_higher_is_better=False,
            verbose=False,
            quiet=True,
            seed=seed,
        )
    seconds = time.perf_counter() - t0
    keys = list(cache["tune_params"].keys())
    distinct = {tuple(r[k] for k in keys) for r in results}
    times = [r[objective] for r in results if "__error__" not in r and is_number(r.get(objective))]
    return {
        "cache": name,
        "strategy": strategy,
        "budget": budget,
        "seed": seed,
        "best": min(times) if times else None,
        "distinct": len(distinct),
        "seconds": seconds,
    }


def summarize(runs, optimum):
    fr = [optimum / r["best"] if r["best"] is not None else 0.0 for r in runs]
    n = len(fr)
    mean = sum(fr) / n
    # Sample standard deviation; with a few hundred seeds the choice hardly matters.
    std = math.sqrt(sum((x - mean) ** 2 for x in fr) / (n - 1)) if n > 1 else 0.0
    sec = sum(r["seconds"] for r in runs) / n
    # Some strategies stop on their own criteria before the budget is spent
    # (scipy's dual_annealing counts repeated calls, simulated_annealing ends
    # its schedule), so the mean number of configs actually measured belongs
    # next to the fraction.
    evals = sum(r["distinct"] for r in runs) / n
    over = sum(r["distinct"] > r["budget"] for r in runs)
    return n, mean, std / math.sqrt(n), sec, evals, over


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cache", help="Kernel Tuner cache, .json or .json.gz")
    ap.add_argument("--strategies", default=DEFAULT_STRATEGIES)
    ap.add_argument("--budgets", default="50,100")
    ap.add_argument("--seeds", type=int, default=100, help="seeds 0..N-1")
    ap.add_argument(
        "--runs", help="append per-run JSON lines here; runs already present are reused"
    )
    args = ap.parse_args()

    try:
        import kernel_tuner as kt
    except ImportError:
        sys.exit("kernel_tuner is not installed: pip install kernel_tuner==1.5.0 (see the top)")

    seed_latin_hypercube()

    version = getattr(kt, "__version__", None)
    if version is None:
        from importlib.metadata import version as _v

        version = _v("kernel_tuner")
    if version != "1.5.0":
        print(
            f"warning: kernel_tuner {version}, the reference numbers are for 1.5.0", file=sys.stderr
        )

    cache = load_cache(args.cache)
    try:
        budgets = [int(b) for b in args.budgets.split(",") if b]
    except ValueError:
        ap.error(f"--budgets {args.budgets}: not a comma-separated list of whole numbers")
    objective = cache.get("objective") or "time"
    if isinstance(objective, list):
        objective = objective[0]
    recorded_times = [r[objective] for r in cache["cache"].values() if is_number(r.get(objective))]
    optimum = min(recorded_times)
    restriction, n_space = make_restriction(cache)
    strategies = [s for s in args.strategies.split(",") if s]

    name = os.path.basename(args.cache)
    done = {}
    if args.runs and os.path.exists(args.runs):
        with open(args.runs) as f:
            for line in f:
                r = json.loads(line)
                # One file may hold the runs of several caches.
                if r.get("cache", name) == name:
                    done[(r["strategy"], r["budget"], r["seed"])] = r

    print(
        f"# {name}: {n_space} configs, {len(recorded_times)} with a recorded {objective}, "
        f"optimum {optimum:.6g}, kernel_tuner {version}",
        flush=True,
    )
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        cachefile = private_copy(args.cache, workdir)
        for strategy in strategies:
            for budget in budgets:
                runs = []
                failed = None
                for seed in range(args.seeds):
                    key = (strategy, budget, seed)
                    if key not in done:
                        # A third-party strategy may raise anything: it is
                        # reported as broken and the others go on.
                        try:
                            r = run_once(
                                kt,
                                cache,
                                cachefile,
                                restriction,
                                objective,
                                strategy,
                                budget,
                                seed,
                                name,
                            )
                        except Exception as e:  # noqa: BLE001
                            failed = f"{type(e).__name__}: {e}"
                            break
                        done[key] = r
                        if args.runs:
                            with open(args.runs, "a") as f:
                                f.write(json.dumps(r) + "\n")
                    runs.append(done[key])
                if failed:
                    print(f"# {strategy} budget {budget} seed {seed} failed: {failed}", flush=True)
                    continue
                n, mean, se, sec, evals, over = summarize(runs, optimum)
                rows.append((strategy, budget, n, mean, se, sec, evals))
                note = f"  ({over} runs evaluated more than the budget)" if over else ""
                print(
                    f"# {strategy:20s} {budget:5d} {n:5d} {mean:.4f} {se:.4f} {sec:.3f}s {evals:.1f} evals{note}",
                    flush=True,
                )

    print(
        f"{'strategy':20s} {'budget':>6s} {'seeds':>5s} {'mean':>7s} {'stderr':>7s} {'s/run':>7s} {'evals':>7s}"
    )
    for strategy, budget, n, mean, se, sec, evals in rows:
        print(f"{strategy:20s} {budget:6d} {n:5d} {mean:7.4f} {se:7.4f} {sec:7.3f} {evals:7.1f}")


if __name__ == "__main__":
    main()
