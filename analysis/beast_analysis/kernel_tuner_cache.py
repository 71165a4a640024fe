"""Reading a Kernel Tuner cache file (.json or .json.gz) and checking its shape.

Kernel Tuner writes the header of a cache when tuning starts and appends one
'"key": {...},' line per config as it goes, adding the closing braces only at
the end, so a killed run leaves a file without them. Its reader
(kernel_tuner.util.correct_open_cache) completes such a file: unless the text
ends with '}\\n}' or '}}}', drop one trailing comma and append '}\\n}'. This
module does the same when the text as it stands is not JSON.

A cache holds device_name, kernel_name, problem_size, tune_params_keys (the
parameter order), tune_params and cache: {"v1,v2,...": entry}, each entry the
parameter values plus "time" (ms, Kernel Tuner's objective: by default the
mean of "times") or, for a config that failed, the name of Kernel Tuner's error
class in its place.
"""

import dataclasses
import gzip
import json
import os
import zlib
from pathlib import Path

from beast_analysis.errors import InputError, reading
from beast_analysis.identity import value_text


@dataclasses.dataclass
class KernelTunerCache:
    path: str
    device_name: str
    kernel_name: str
    problem_size: object  # an int, a string or a list, as Kernel Tuner stores it
    param_names: list
    tune_params: dict
    entries: dict  # cache key -> entry (dict), in file order


def _read_text(name):
    """The file's text; its OS and UTF-8 faults reach read_cache's reading()."""
    data = Path(name).read_bytes()
    if name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(f"{name}: not a gzip file ({error})") from None
    return data.decode("utf-8")


def _completions(text):
    """Completions of a cache file left open by a killed run: both closing
    braces (Kernel Tuner's own), then the last one alone (a file cut after
    the first), as beast replay reads it too."""
    text = text.strip()
    if not text or text[-3:] in ("}\n}", "}}}"):
        return []
    text = text.removesuffix(",")
    return [text + "}\n}", text + "}"]


def _parse(text):
    """The JSON document; when neither the text nor its completion parses, the
    text's own error (reading() names the file, line and column)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        for completed in _completions(text):
            try:
                return json.loads(completed)
            except json.JSONDecodeError:
                pass
        raise


def json_type(value):
    """The JSON name of a parsed value's type, for messages."""
    names = {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def _not_a_cache(name, reason):
    return InputError(f"{name}: not a Kernel Tuner cache file: {reason}")


def _check_header(name, document):
    if not isinstance(document, dict):
        raise _not_a_cache(name, f"the top level is a JSON {json_type(document)}, not an object")
    if "cache" not in document and isinstance(document.get("results"), list):
        raise _not_a_cache(name, 'it holds "results", as a T4 results file does, and no "cache"')
    if "cache" not in document and "ConfigurationSpace" in document:
        raise _not_a_cache(
            name, 'it holds "ConfigurationSpace", as a T1 tuning-problem file does, and no "cache"'
        )
    for field, kind in (
        ("kernel_name", "string"),
        ("tune_params_keys", "array"),
        ("cache", "object"),
    ):
        if field not in document:
            raise _not_a_cache(name, f'no "{field}"')
        if json_type(document[field]) != kind:
            raise _not_a_cache(
                name, f'"{field}" is a JSON {json_type(document[field])}, not {kind}'
            )
    names = document["tune_params_keys"]
    if (
        not names
        or not all(isinstance(n, str) and n for n in names)
        or len(set(names)) != len(names)
    ):
        raise _not_a_cache(name, '"tune_params_keys" is not a list of distinct parameter names')
    for field, kind in (("device_name", "string"), ("tune_params", "object")):
        if field in document and json_type(document[field]) != kind:
            raise _not_a_cache(
                name, f'"{field}" is a JSON {json_type(document[field])}, not {kind}'
            )


def _check_entry(name, key, entry, names):
    if not isinstance(entry, dict):
        raise InputError(f'{name}: cache entry "{key}" is a JSON {json_type(entry)}, not an object')
    for param in names:
        if param not in entry:
            raise InputError(f'{name}: cache entry "{key}" has no value for parameter "{param}"')
        if value_text(entry[param]) is None:
            raise InputError(
                f'{name}: cache entry "{key}": parameter "{param}" has the value '
                f"{json.dumps(entry[param])}, which is not a number, boolean or string"
            )
    if "time" not in entry:
        raise InputError(f'{name}: cache entry "{key}" has no "time"')


def read_cache(path):
    """Reads and checks a Kernel Tuner cache file; raises InputError naming the
    file (and line, column or cache entry) when it is not one."""
    name = os.fspath(path)
    with reading(name):
        document = _parse(_read_text(name))
    _check_header(name, document)
    names = list(document["tune_params_keys"])
    for key, entry in document["cache"].items():
        _check_entry(name, key, entry, names)
    return KernelTunerCache(
        path=name,
        device_name=document.get("device_name", ""),
        kernel_name=document["kernel_name"],
        problem_size=document.get("problem_size"),
        param_names=names,
        tune_params=document.get("tune_params", {}),
        entries=document["cache"],
    )
