"""Tests of the interchange with Kernel Tuner: importing cache files (the
shipped A100 convolution cache, one a killed run left open, bad files) and
exporting T4 results validated against the schema, with the exact messages of
bad input. The Kernel Tuner data is the copy in tests/data/kernel_tuner."""

import gzip
import json
import sqlite3
import sys
from pathlib import Path

import jsonschema
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "analysis"))

from beast_analysis import winners
from beast_analysis.identity import hash_text
from beast_analysis.kernel_tuner_import import import_cache
from beast_analysis.t4_export import SCHEMA_NAME
from conftest import run_cli

DATA = REPO_ROOT / "tests" / "data" / "kernel_tuner"
A100 = DATA / "convolution_A100.json.gz"
VECTOR_ADD = DATA / "test_test_cache_file.json"
SHIPPED_SCHEMA = REPO_ROOT / "analysis" / "beast_analysis" / "schemas" / SCHEMA_NAME


def raw_cache(path):
    """The cache file as plain JSON, read without the code under test."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as stream:
        return json.load(stream)


def open_cache_text(document):
    """The text Kernel Tuner leaves when killed: its header without the closing
    '}\\n}', then one '"key": {...},' line per config."""
    header = {k: v for k, v in document.items() if k != "cache"}
    header["cache"] = {}
    text = json.dumps(header, indent="")[:-3]
    for key, entry in document["cache"].items():
        text += "\n" + json.dumps({key: entry})[1:-1] + ","
    return text


@pytest.fixture(scope="module")
def a100_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("a100") / "beast.db"
    summary = import_cache(A100, path, command="beast import")
    return path, summary


def test_a100_import_counts(a100_db):
    path, summary = a100_db
    assert summary["configs"] == 4362
    assert summary["added"] == 4362
    assert summary["statuses"] == {"ok": 4201, "runtime_error": 155, "compile_error": 6}
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT count(*) FROM configs").fetchone()[0] == 4362
    assert connection.execute("SELECT name, backend FROM devices").fetchall() == [
        ("NVIDIA A100-PCIE-40GB", "kernel_tuner")
    ]
    assert connection.execute("SELECT key, op, flops FROM problems").fetchall() == [
        ("kt:convolution_kernel:4096x4096", "kernel_tuner", 2.0 * 4096 * 4096 * 15 * 15)
    ]
    assert connection.execute("SELECT name FROM templates").fetchall() == [
        ("kernel_tuner/convolution_kernel",)
    ]
    statuses = dict(
        connection.execute(
            "SELECT error_text, count(*) FROM measurements WHERE status != 'ok' GROUP BY error_text"
        )
    )
    assert statuses == {"RuntimeFailedConfig": 155, "CompilationFailedConfig": 6}
    key, config_hash = connection.execute(
        "SELECT config_key, config_hash FROM configs LIMIT 1"
    ).fetchone()
    assert key == (
        "block_size_x=16,block_size_y=1,tile_size_x=1,tile_size_y=1,read_only=0,"
        "use_padding=0,use_shmem=0,use_cmem=1,filter_height=15,filter_width=15"
    )
    assert config_hash == hash_text(key)
    assert connection.execute("PRAGMA application_id").fetchone()[0] == 0x42454153
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 9
    connection.close()


def test_a100_best_time_matches_the_raw_file(a100_db):
    path, _ = a100_db
    entries = raw_cache(A100)["cache"].values()
    best = min((e for e in entries if not isinstance(e["time"], str)), key=lambda e: e["time"])
    (row,) = winners(path)
    assert row["median_ms"] == best["time"]
    assert row["params"] == {k: best[k] for k in raw_cache(A100)["tune_params_keys"]}
    assert row["median_ms"] == 0.5536000076681376
    assert row["gflops"] == best["GFLOP/s"]


def test_fnv_hash_matches_the_published_test_vectors():
    assert hash_text("") == "cbf29ce484222325"
    assert hash_text("a") == "af63dc4c8601ec8c"


def test_reimport_adds_nothing(a100_db, capsys):
    path, _ = a100_db
    code, out, err = run_cli(capsys, "import", "--kernel-tuner", A100, "--db", path, "--json")
    assert (code, err) == (0, "")
    summary = json.loads(out)
    assert (summary["configs"], summary["added"], summary["already_present"]) == (4362, 0, 4362)
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT count(*) FROM measurements").fetchone()[0] == 4362
    assert connection.execute("SELECT count(*) FROM runs").fetchone()[0] == 2
    connection.close()


def test_a_default_named_on_a_later_import_is_the_default(tmp_path, capsys):
    db = tmp_path / "beast.db"
    assert run_cli(capsys, "import", "--kernel-tuner", VECTOR_ADD, "--db", db)[0] == 0
    keys = sorted(raw_cache(VECTOR_ADD)["cache"])
    params = raw_cache(VECTOR_ADD)["tune_params_keys"]
    chosen = dict(zip(params, keys[1].split(",")))
    default = ",".join(f"{name}={value}" for name, value in chosen.items())
    code, out, err = run_cli(
        capsys, "import", "--kernel-tuner", VECTOR_ADD, "--db", db, "--default", default, "--json"
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["added"] == 0
    connection = sqlite3.connect(db)
    rows = connection.execute(
        "SELECT c.config_key FROM measurements m JOIN configs c ON c.id = m.config_id "
        "WHERE m.is_default = 1"
    ).fetchall()
    connection.close()
    assert rows == [(json.loads(out)["default"],)]


def test_import_says_how_many_it_read_and_how_many_were_new(tmp_path, capsys):
    cache = DATA / "test_test_cache_file.json"
    db = tmp_path / "beast.db"
    code, first, err = run_cli(capsys, "import", "--kernel-tuner", cache, "--db", db)
    assert (code, err) == (0, "")
    assert first.splitlines()[0] == f"read 15 configs (15 ok) from {cache}: 15 imported into {db}"
    code, again, err = run_cli(capsys, "import", "--kernel-tuner", cache, "--db", db)
    assert (code, err) == (0, "")
    assert again.splitlines()[0] == (
        f"read 15 configs (15 ok) from {cache}: 0 imported into {db}; "
        "15 were there already and keep their first result"
    )


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_cache_left_open_by_a_killed_run(tmp_path, suffix, capsys):
    document = raw_cache(VECTOR_ADD)
    text = open_cache_text(document)
    assert text.endswith(",") and not text.rstrip(",").endswith("}\n}")
    path = tmp_path / ("vector_add" + suffix)
    path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    db = tmp_path / "beast.db"
    code, out, err = run_cli(capsys, "import", "--kernel-tuner", path, "--db", db, "--json")
    assert (code, err) == (0, "")
    summary = json.loads(out)
    assert summary["configs"] == 15
    assert summary["problem"] == "kt:vector_add:100"
    assert summary["device"] == "NVIDIA RTX A4000"
    best = min(e["time"] for e in document["cache"].values())
    assert winners(db)[0]["median_ms"] == best == 0.03175771422684193
    assert winners(db)[0]["config"] == "block_size_x=768"


def test_cache_missing_only_its_last_brace(tmp_path, capsys):
    text = open_cache_text(raw_cache(VECTOR_ADD)).rstrip(",") + "}"
    path = tmp_path / "vector_add.json"
    path.write_text(text)
    code, out, err = run_cli(
        capsys, "import", "--kernel-tuner", path, "--db", tmp_path / "beast.db", "--json"
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["configs"] == 15


def test_header_only_cache_imports_nothing(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text(
        open_cache_text(
            {
                "device_name": "GPU",
                "kernel_name": "k",
                "problem_size": [8, 8],
                "tune_params_keys": ["X"],
                "tune_params": {"X": [1, 2]},
                "cache": {},
            }
        ).rstrip(",")
    )
    summary = import_cache(path, tmp_path / "beast.db")
    assert (summary["configs"], summary["problem"]) == (0, "kt:k:8x8")


def small_cache(entries, **header):
    document = {
        "device_name": "GPU",
        "kernel_name": "k",
        "problem_size": 64,
        "tune_params_keys": ["X", "Y"],
        "tune_params": {"X": [1, 2], "Y": [1]},
        "cache": {},
    }
    document.update(header)
    for i, (x, time) in enumerate(entries):
        document["cache"][f"{x},1"] = {
            "X": x,
            "Y": 1,
            "time": time,
            "times": [time] if not isinstance(time, str) else [],
        }
    return document


def test_statuses_of_failed_entries(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps(
            small_cache(
                [
                    (1, 2.0),
                    (2, "InvalidConfig"),
                    (3, "CompilationFailedConfig"),
                    (4, "RuntimeFailedConfig"),
                    (5, 1e20),
                ]
            )
        )
    )
    db = tmp_path / "beast.db"
    summary = import_cache(path, db, device_name="Other GPU", default="X=1,Y=1")
    assert summary["statuses"] == {
        "ok": 1,
        "pruned_after_compile": 1,
        "compile_error": 1,
        "runtime_error": 2,
    }
    assert summary["device"] == "Other GPU"
    connection = sqlite3.connect(db)
    rows = connection.execute(
        "SELECT c.config_key, m.status, m.median_ms, m.is_default, m.error_text "
        "FROM measurements m JOIN configs c ON c.id = m.config_id ORDER BY m.id"
    ).fetchall()
    assert rows == [
        ("X=1,Y=1", "ok", 2.0, 1, ""),
        ("X=2,Y=1", "pruned_after_compile", None, 0, "InvalidConfig"),
        ("X=3,Y=1", "compile_error", None, 0, "CompilationFailedConfig"),
        ("X=4,Y=1", "runtime_error", None, 0, "RuntimeFailedConfig"),
        (
            "X=5,Y=1",
            "runtime_error",
            None,
            0,
            "time 1e+20: Kernel Tuner's value for a failed config",
        ),
    ]
    connection.close()


def bad_import(capsys, tmp_path, content, name="bad.json", extra=()):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    db = tmp_path / "new.db"
    code, out, err = run_cli(capsys, "import", "--kernel-tuner", path, "--db", db, *extra)
    assert (code, out) == (1, "")
    assert not db.exists() and sorted(p.name for p in tmp_path.iterdir()) == [name]
    return err, path


def test_import_of_a_file_that_is_not_json(tmp_path, capsys):
    err, path = bad_import(capsys, tmp_path, "hello\n")
    assert err == f"beast import: {path}:1:1: not JSON: Expecting value\n"


def test_import_of_a_gz_that_is_not_gzip(tmp_path, capsys):
    err, path = bad_import(capsys, tmp_path, "{}", name="bad.json.gz")
    assert err == f"beast import: {path}: not a gzip file (Not a gzipped file (b'{{}}'))\n"


def test_import_of_json_that_is_not_a_cache(tmp_path, capsys):
    err, path = bad_import(capsys, tmp_path, json.dumps({"kernel_name": "k"}))
    assert err == f'beast import: {path}: not a Kernel Tuner cache file: no "tune_params_keys"\n'
    err, path = bad_import(capsys, tmp_path, json.dumps({"results": [], "schema_version": "1.0.0"}))
    assert err == (
        f'beast import: {path}: not a Kernel Tuner cache file: it holds "results", as a T4 '
        'results file does, and no "cache"\n'
    )
    err, path = bad_import(capsys, tmp_path, "[1, 2]")
    assert (
        err
        == f"beast import: {path}: not a Kernel Tuner cache file: the top level is a JSON array, not an object\n"
    )


def test_import_of_a_bad_entry_writes_nothing(tmp_path, capsys):
    err, path = bad_import(
        capsys, tmp_path, json.dumps(small_cache([(1, 2.0), (2, "SomethingElse")]))
    )
    assert err == (
        f'beast import: {path}: cache entry "2,1": unknown error "SomethingElse" as its time '
        "(known: CompilationFailedConfig, RuntimeFailedConfig, InvalidConfig)\n"
    )
    document = small_cache([(1, 2.0)])
    del document["cache"]["1,1"]["Y"]
    err, path = bad_import(capsys, tmp_path, json.dumps(document))
    assert err == f'beast import: {path}: cache entry "1,1" has no value for parameter "Y"\n'


def test_import_without_a_device_name(tmp_path, capsys):
    err, path = bad_import(capsys, tmp_path, json.dumps(small_cache([(1, 2.0)], device_name="")))
    assert err == (
        f"beast import: {path}: the cache names no device (device_name is empty); "
        "name it with --device-name\n"
    )


def test_import_default_naming_an_unknown_parameter(tmp_path, capsys):
    err, _ = bad_import(
        capsys, tmp_path, json.dumps(small_cache([(1, 2.0)])), extra=("--default", "X=1,Z=2")
    )
    assert err == 'beast import: --default: unknown parameter "Z" (parameters of k: X, Y)\n'


def test_import_into_a_file_that_is_not_a_database(tmp_path, capsys):
    cache = tmp_path / "c.json"
    cache.write_text(json.dumps(small_cache([(1, 2.0)])))
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"x" * 4096)
    code, _, err = run_cli(capsys, "import", "--kernel-tuner", cache, "--db", garbage)
    assert (code, err) == (1, f"beast import: {garbage} is not a beast database\n")
    assert garbage.read_bytes() == b"x" * 4096


def newer_database(tmp_path):
    path = tmp_path / "newer.db"
    import_cache_path = tmp_path / "c.json"
    import_cache_path.write_text(json.dumps(small_cache([(1, 2.0)])))
    import_cache(import_cache_path, path)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA user_version = 10")
    connection.close()
    return path, import_cache_path


@pytest.mark.parametrize("verb", ["import", "export-results", "report"])
def test_newer_schema_is_refused(tmp_path, capsys, verb):
    db, cache = newer_database(tmp_path)
    argv = {
        "import": ["--kernel-tuner", cache],
        "export-results": ["--t4", tmp_path / "out.json"],
        "report": ["--out", tmp_path / "report"],
    }[verb]
    code, out, err = run_cli(capsys, verb, "--db", db, *argv)
    assert (code, out) == (1, "")
    assert (
        err
        == f"beast {verb}: {db}: database schema version 10 is newer than this beast (9): upgrade beast\n"
    )
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "report").exists()


def test_t4_export_is_valid_and_matches_kernel_tuners_own(a100_db, tmp_path, capsys):
    db, _ = a100_db
    out = tmp_path / "results.json"
    code, printed, err = run_cli(capsys, "export-results", "--db", db, "--t4", out)
    assert (code, err) == (0, "")
    assert printed.startswith(f"wrote 4362 results to {out} (T4 1.0.0, valid against ")
    document = json.loads(out.read_text())
    jsonschema.Draft202012Validator(json.loads(SHIPPED_SCHEMA.read_text())).validate(document)
    assert document["schema_version"] == "1.0.0"
    assert document["metadata"]["device"] == "NVIDIA A100-PCIE-40GB"
    # Kernel Tuner's own T4 file of the same run: same configs, validity and times.
    theirs = raw_cache(DATA / "convolution_A100_T4.json.gz")["results"]

    def by_config(results):
        return {json.dumps(r["configuration"], sort_keys=True): r for r in results}

    ours, expected = by_config(document["results"]), by_config(theirs)
    assert ours.keys() == expected.keys()
    for key, result in expected.items():
        assert ours[key]["invalidity"] == result["invalidity"]
        assert ours[key]["measurements"][0]["value"] == result["measurements"][0]["value"]
        assert ours[key]["times"].get("runtimes") == result["times"].get("runtimes")


def test_t4_export_keeps_a_devices_drivers_apart(tmp_path, capsys):
    db = tmp_path / "beast.db"
    import_cache(VECTOR_ADD, db)
    connection = sqlite3.connect(db)
    (driver,) = connection.execute("SELECT driver_version FROM devices").fetchone()
    # The same device under another driver: a row of its own, its timings ten times slower.
    connection.execute(
        "INSERT INTO devices (backend, name, vendor, driver_version, arch, limits_json) "
        "SELECT backend, name, vendor, 'new', arch, limits_json FROM devices"
    )
    columns = [r[1] for r in connection.execute("PRAGMA table_info(measurements)") if r[1] != "id"]
    copied = ", ".join(
        "(SELECT max(id) FROM devices)"
        if c == "device_id"
        else "median_ms * 10"
        if c == "median_ms"
        else c
        for c in columns
    )
    connection.execute(
        f"INSERT INTO measurements ({', '.join(columns)}) SELECT {copied} FROM measurements"
    )
    connection.commit()
    connection.close()
    out = tmp_path / "out.json"
    code, _, err = run_cli(capsys, "export-results", "--db", db, "--t4", out)
    assert code == 1
    assert f'--driver "{driver}"' in err
    assert not out.exists()
    for version, scale in ((driver, 1), ("new", 10)):
        code, _, err = run_cli(
            capsys, "export-results", "--db", db, "--t4", out, "--force", "--driver", version
        )
        assert (code, err) == (0, "")
        document = json.loads(out.read_text())
        assert document["metadata"]["driver"] == version
        times = {
            json.dumps(r["configuration"]): r["measurements"][0]["value"]
            for r in document["results"]
        }
        assert len(times) == len(document["results"]) == 15
        expected = {
            json.dumps({"block_size_x": v["block_size_x"]}): v["time"] * scale
            for v in raw_cache(VECTOR_ADD)["cache"].values()
        }
        assert times == pytest.approx(expected)


def test_t4_export_needs_one_combination(tmp_path, capsys):
    db = tmp_path / "beast.db"
    for kernel in ("k1", "k2"):
        path = tmp_path / f"{kernel}.json"
        path.write_text(json.dumps(small_cache([(1, 2.0)], kernel_name=kernel)))
        import_cache(path, db)
    out = tmp_path / "out.json"
    code, _, err = run_cli(capsys, "export-results", "--db", db, "--t4", out)
    assert (code, err) == (
        1,
        (
            f"beast export-results: {db} holds 2 (device, problem, template) combinations and a T4 file holds "
            'one: choose with --device, --driver, --problem, --template (e.g. --device "GPU" --problem '
            '"kt:k1:64" --template "kernel_tuner/k1")\n'
        ),
    )
    assert not out.exists()
    code, _, err = run_cli(
        capsys, "export-results", "--db", db, "--t4", out, "--template", "kernel_tuner/k2"
    )
    assert (code, err) == (0, "")
    (result,) = json.loads(out.read_text())["results"]
    assert result["configuration"] == {"X": 1, "Y": 1}
    assert result["invalidity"] == "correct"
    assert result["measurements"][0] == {"name": "time", "value": 2.0, "unit": "ms"}
    k3 = tmp_path / "k3.json"  # not out, which now exists and would be refused first
    code, _, err = run_cli(capsys, "export-results", "--db", db, "--t4", k3, "--template", "k3")
    assert (code, err) == (
        1,
        (
            f'beast export-results: --template "k3": no such template in {db} '
            "(templates: kernel_tuner/k1, kernel_tuner/k2)\n"
        ),
    )
    assert not k3.exists()
