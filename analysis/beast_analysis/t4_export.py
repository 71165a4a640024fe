"""`beast export-results --t4`: measurements in the T4 results format of
Kernel Tuner, KTT and BAT, validated against its JSON schema before writing.

A T4 file describes one tuning run of one search space, so the selection must
be one (device, problem, template); which one goes into "metadata". Each
measurement becomes one result, spelled as Kernel Tuner's own T4 writer
(kernel_tuner/file_utils.py) spells it: "time" in ms as the objective, a
failed config carrying the name of Kernel Tuner's error class as its time,
and the beast status and error text beside it.
"""

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path

from beast_analysis import measurements
from beast_analysis.errors import InputError, writing
from beast_analysis.paths import SHIPPED_SCHEMAS, shown_path

SCHEMA_NAME = "kernel_tuner_schema_T4_1.0.0_results-schema.json"
SCHEMA_VERSION = "1.0.0"

# beast status -> (T4 invalidity, correctness, Kernel Tuner's error class)
_STATUS = {
    "ok": ("correct", 1, None),
    "compile_error": ("compile", 0, "CompilationFailedConfig"),
    "runtime_error": ("runtime", 0, "RuntimeFailedConfig"),
    "crashed": ("runtime", 0, "RuntimeFailedConfig"),
    "timeout": ("timeout", 0, "RuntimeFailedConfig"),
    "wrong_result": ("correctness", 0, "RuntimeFailedConfig"),
    "pruned_after_compile": ("constraints", 0, "InvalidConfig"),
    # Compile-only tuning: valid and compiled, never run (no time, correctness unknown).
    "compiled": ("correct", 0, None),
}


def schema_path():
    """The T4 schema the package ships (schemas/NOTICE.md)."""
    return SHIPPED_SCHEMAS / SCHEMA_NAME


def _finite(value):
    return value is not None and not (isinstance(value, float) and not math.isfinite(value))


def _result(row):
    invalidity, correctness, error_class = _STATUS[row["status"]]
    times = {}
    if _finite(row["compile_ms"]):
        times["compilation_time"] = row["compile_ms"]
    samples = json.loads(row["samples_json"] or "[]")
    if samples:
        times["runtimes"] = samples
    found = []
    if row["status"] == "ok" and _finite(row["median_ms"]):
        found.append({"name": "time", "value": row["median_ms"], "unit": "ms"})
    elif error_class:
        found.append({"name": "time", "value": error_class, "unit": ""})
    for name, column, unit in (
        ("GFLOP/s", "gflops", "GFLOP/s"),
        ("spread", "spread", ""),
        ("max_error", "max_error", ""),
    ):
        if _finite(row[column]):
            found.append({"name": name, "value": row[column], "unit": unit})
    found.append({"name": "status", "value": row["status"], "unit": ""})
    if row["error_text"]:
        found.append({"name": "error", "value": row["error_text"], "unit": ""})
    return {
        "timestamp": row["created_at"],
        "configuration": row["params"],
        "times": times,
        "invalidity": invalidity,
        "correctness": correctness,
        "measurements": found,
        "objectives": ["time"],
    }


def _select(frame, db_path, filters):
    if frame.empty:
        chosen = " ".join(f"--{k} {v}" for k, v in filters.items() if v)
        raise InputError(
            f"{db_path}: no measurements to export" + (f" for {chosen}" if chosen else "")
        )
    # A device is a row of its own per backend and driver: their timings
    # are not mixed.
    combos = frame[["device_id", "device", "driver", "problem", "template"]].drop_duplicates()
    if len(combos) > 1:
        first = combos.iloc[0]
        drivers = frame.loc[frame["device"] == first["device"], "driver"].nunique()
        driver = f' --driver "{first["driver"]}"' if drivers > 1 else ""
        raise InputError(
            f"{db_path} holds {len(combos)} (device, problem, template) combinations and a T4 file "
            f"holds one: choose with --device, --driver, --problem, --template (e.g. --device "
            f'"{first["device"]}"{driver} --problem "{first["problem"]}" --template '
            f'"{first["template"]}")'
        )
    return frame.iloc[0]


def document(db_path, *, device=None, problem=None, template=None, driver=None):
    """The T4 document (a dict) of the selected measurements, validated."""
    import jsonschema

    filters = {"device": device, "problem": problem, "template": template, "driver": driver}
    frame = measurements.load(db_path, **filters)
    first = _select(frame, db_path, filters)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "metadata": {
            "generator": "beast export-results",
            "timeunit": "milliseconds",
            "database": shown_path(db_path),
            "device": first["device"],
            "backend": first["backend"],
            "driver": first["driver"],
            "problem": first["problem"],
            "op": first["op"],
            "flops": first["flops"],
            "template": first["template"],
            "template_hash": first["template_hash"],
        },
        "results": [_result(row) for row in frame.to_dict("records")],
    }
    schema = json.loads(schema_path().read_text())
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(doc)
    )
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        raise AssertionError(f"the T4 document fails {schema_path()} at {where}: {error.message}")
    return doc


def _check_out(out_path, force):
    """Raises InputError unless out_path may be written: not a folder, in an
    existing folder, and (without force) not an existing file."""
    out = Path(out_path)
    if out.is_dir():
        raise InputError(f"{out_path}: is a directory")
    parent = out.parent  # as the user spelled it ("." for a bare name)
    if not parent.is_dir():
        if parent.exists():
            raise InputError(f"{out_path}: {parent} is not a directory")
        raise InputError(f"{out_path}: no such directory {parent}")
    if not force and os.path.lexists(out):
        raise InputError(f"{out_path}: already exists (--force replaces it)")


def export(db_path, out_path, *, force=False, **filters):
    """Writes the T4 document to out_path; returns the number of results.

    An existing out_path is refused unless force. The text goes to a temporary
    file beside it that becomes out_path only once complete, so a failed write
    (no space left, interrupted) leaves no partial file, and without force a
    file that appeared meanwhile is still not replaced (a link fails where
    rename would replace)."""
    _check_out(out_path, force)  # before the document: it can take seconds
    doc = document(db_path, **filters)
    out = Path(out_path)
    with writing(out_path):
        handle, temporary = tempfile.mkstemp(
            prefix=f".{out.name}.", suffix=".tmp", dir=out.absolute().parent
        )
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                # dumps, not dump: only dumps uses the C encoder (seconds for 10^4 results).
                stream.write(json.dumps(doc, allow_nan=False) + "\n")
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(temporary, 0o666 & ~mask)
            if force:
                os.replace(temporary, out)
            else:
                try:
                    os.link(temporary, out)
                except FileExistsError:
                    raise InputError(f"{out_path}: already exists (--force replaces it)") from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
    return len(doc["results"])
