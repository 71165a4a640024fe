"""Importing a Kernel Tuner cache file into a beast database, all or nothing.

The cache becomes: one device (its device_name, or the name given), one
problem "kt:<kernel_name>:<problem_size>" with op "kernel_tuner", one template
"kernel_tuner/<kernel_name>" whose hash covers the tunable parameters and
their values, and per cache entry a config (parameters in tune_params_keys
order) with one measurement, in one run row that records the import.

An entry with a numeric time is "ok": median_ms is Kernel Tuner's "time" (its
objective, by default the mean of "times"), samples_json its raw "times" and
spread their (p75 - p25) / median as the harness computes it. A failed entry
carries the name of Kernel Tuner's error class instead of a time, mapped to
the beast status that means the same, with the name in error_text.
"""

import datetime
import json
import math
import os
import statistics

from beast_analysis.db_write import write_transaction
from beast_analysis.errors import InputError
from beast_analysis.identity import config_key, hash_text
from beast_analysis.kernel_tuner_cache import read_cache

# Kernel Tuner's error classes (kernel_tuner.util.ErrorConfig subclasses). An
# InvalidConfig is a config its restrictions or the device's resource limits
# rule out once compiled (T4 calls it "constraints"): beast's nearest status is
# pruned_after_compile.
ERROR_STATUSES = {
    "CompilationFailedConfig": "compile_error",
    "RuntimeFailedConfig": "runtime_error",
    "InvalidConfig": "pruned_after_compile",
}
# Kernel Tuner before 0.4.4 stored failed configs as this time.
_OLD_ERROR_TIME = 1e20


def problem_key(cache):
    size = cache.problem_size
    if isinstance(size, list):
        text = "x".join(str(v) if isinstance(v, (int, str)) else json.dumps(v) for v in size)
    elif size is None:
        text = "unknown"
    else:
        text = str(size)
    return f"kt:{cache.kernel_name}:{text}"


def _quantile(ordered, q):
    # Type 7, as harness/measure/timing.cpp: linear between order statistics.
    h = (len(ordered) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (h - lo) * (ordered[hi] - ordered[lo])


def _spread(samples):
    if not samples:
        return None
    ordered = sorted(samples)
    median = _quantile(ordered, 0.5)
    return (_quantile(ordered, 0.75) - _quantile(ordered, 0.25)) / median if median else 0.0


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _timestamp(cache, key, entry):
    """Kernel Tuner's "2023-12-22 09:54:05.502007+00:00" as the schema's UTC text."""
    text = entry.get("timestamp")
    if text is None:
        return None
    try:
        moment = datetime.datetime.fromisoformat(str(text))
    except ValueError:
        raise InputError(
            f'{cache.path}: cache entry "{key}": timestamp "{text}" is not ISO 8601'
        ) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _problem_flops(cache):
    """The FLOPs of one run, from the GFLOP/s Kernel Tuner recorded beside each
    time when they all agree; 0 (unknown) otherwise."""
    products = [
        e["GFLOP/s"] * e["time"] * 1e6
        for e in cache.entries.values()
        if _number(e.get("time")) and _number(e.get("GFLOP/s")) and e["time"] < _OLD_ERROR_TIME
    ]
    if not products:
        return 0.0
    flops = statistics.median(products)
    if flops <= 0 or any(abs(p - flops) > 1e-6 * flops for p in products):
        return 0.0
    return float(round(flops))


def _measurement(cache, key, entry, flops):
    """The measurement columns of one entry."""
    time = entry["time"]
    times = entry.get("times", [])
    if not isinstance(times, list) or not all(_number(t) for t in times):
        raise InputError(f'{cache.path}: cache entry "{key}": "times" is not a list of numbers')
    row = {
        "status": "ok",
        "samples_json": json.dumps(times),
        "median_ms": None,
        "spread": None,
        "gflops": None,
        "compile_ms": entry["compile_time"] if _number(entry.get("compile_time")) else None,
        "error_text": "",
        "created_at": _timestamp(cache, key, entry),
    }
    if isinstance(time, str):
        if time not in ERROR_STATUSES:
            raise InputError(
                f'{cache.path}: cache entry "{key}": unknown error "{time}" as its time '
                f"(known: {', '.join(ERROR_STATUSES)})"
            )
        row.update(status=ERROR_STATUSES[time], error_text=time)
    elif _number(time) and time >= _OLD_ERROR_TIME:
        row.update(
            status="runtime_error",
            error_text=f"time {time:g}: Kernel Tuner's value for a failed config",
        )
    elif _number(time) and time > 0:
        gflops = entry.get("GFLOP/s")
        row.update(
            median_ms=float(time),
            spread=_spread(times),
            gflops=float(gflops) if _number(gflops) else (flops / time / 1e6 if flops else None),
        )
    else:
        raise InputError(
            f'{cache.path}: cache entry "{key}": time {json.dumps(time)} is not a positive number'
        )
    return row


def _parse_default(cache, text, keys):
    """The config key --default names, checked against the cache's parameters."""
    given = {}
    for item in text.split(","):
        name, equals, value = item.partition("=")
        name = name.strip()
        if not equals or not name:
            raise InputError(f'--default: "{item}" is not NAME=value')
        if name not in cache.param_names:
            raise InputError(
                f'--default: unknown parameter "{name}" (parameters of {cache.kernel_name}: '
                f"{', '.join(cache.param_names)})"
            )
        given[name] = value.strip()
    missing = [n for n in cache.param_names if n not in given]
    if missing:
        raise InputError(f'--default: no value for parameter "{missing[0]}"')
    key = ",".join(f"{n}={given[n]}" for n in cache.param_names)
    if key not in keys:
        raise InputError(f"--default: the config {key} is not in {cache.path}")
    return key


def _insert(connection, table, columns, unique=None):
    """INSERT OR IGNORE one row, then its id by its unique columns."""
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    connection.execute(
        f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({marks})", tuple(columns.values())
    )
    where = " AND ".join(f"{c} = ?" for c in unique)
    return connection.execute(
        f"SELECT id FROM {table} WHERE {where}", tuple(columns[c] for c in unique)
    ).fetchone()[0]


def import_cache(cache_path, db_path, *, device_name=None, default=None, command=""):
    """Imports a Kernel Tuner cache into db_path; returns a summary dict."""
    cache = read_cache(cache_path)
    device = device_name if device_name else cache.device_name
    if not device:
        raise InputError(
            f"{cache.path}: the cache names no device (device_name is empty); name it with --device-name"
        )
    flops = _problem_flops(cache)
    configs = {}  # config key -> (params, measurement columns), first entry kept
    for key, entry in cache.entries.items():
        params = {name: entry[name] for name in cache.param_names}
        configs.setdefault(config_key(params), (params, _measurement(cache, key, entry, flops)))
    default_key = _parse_default(cache, default, configs) if default else None
    space = {name: cache.tune_params.get(name) for name in cache.param_names}
    template_hash = hash_text(json.dumps(space, separators=(",", ":")))
    pkey = problem_key(cache)
    with write_transaction(db_path) as connection:
        run_id = connection.execute(
            "INSERT INTO runs (command, beast_version, status, finished_at) VALUES "
            "(?, ?, 'finished', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
            (command, os.environ.get("BEAST_VERSION", "")),
        ).lastrowid
        device_id = _insert(
            connection,
            "devices",
            {"backend": "kernel_tuner", "name": device, "driver_version": ""},
            unique=("backend", "name", "driver_version"),
        )
        problem_id = _insert(
            connection,
            "problems",
            {"key": pkey, "op": "kernel_tuner", "flops": flops},
            unique=("key",),
        )
        template_name = f"kernel_tuner/{cache.kernel_name}"
        template_id = _insert(
            connection,
            "templates",
            {"name": template_name, "hash": template_hash},
            unique=("name", "hash"),
        )
        measured = (
            0  # measurements this import adds (a config measured before keeps its first result)
        )
        default_config_id = None
        for ckey, (params, row) in configs.items():
            config_id = _insert(
                connection,
                "configs",
                {
                    "template_id": template_id,
                    "config_key": ckey,
                    "config_hash": hash_text(ckey),
                    "params_json": json.dumps(params),
                },
                unique=("template_id", "config_key"),
            )
            columns = dict(
                row,
                run_id=run_id,
                device_id=device_id,
                problem_id=problem_id,
                config_id=config_id,
                is_default=int(ckey == default_key),
            )
            if ckey == default_key:
                default_config_id = config_id
            if columns["created_at"] is None:
                del columns["created_at"]  # the schema's default: now
            names = ", ".join(columns)
            marks = ", ".join("?" for _ in columns)
            measured += connection.execute(
                f"INSERT OR IGNORE INTO measurements ({names}) VALUES ({marks})",
                tuple(columns.values()),
            ).rowcount
        if default_config_id is not None:
            # A default named on a later import holds too: the rows an
            # earlier one added are kept above, so their flags are set here.
            connection.execute(
                "UPDATE measurements SET is_default = (config_id = ?) "
                "WHERE device_id = ? AND problem_id = ? "
                "AND config_id IN (SELECT id FROM configs WHERE template_id = ?)",
                (default_config_id, device_id, problem_id, template_id),
            )
    statuses = {}
    for _, row in configs.values():
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
    ok_times = [row["median_ms"] for _, row in configs.values() if row["status"] == "ok"]
    return {
        "file": cache.path,
        "db": os.fspath(db_path),
        "device": device,
        "problem": pkey,
        "template": template_name,
        "template_hash": template_hash,
        "configs": len(configs),
        "added": measured,
        "already_present": len(configs) - measured,
        "statuses": statuses,
        "flops": flops,
        "default": default_key,
        "best_ms": min(ok_times, default=None),
    }
