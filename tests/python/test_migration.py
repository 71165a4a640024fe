"""Tests of schema migrations in the Python package: version-1 and version-2
files (made from the frozen schemas tests/data/schema_v1.sql, schema_v2.sql)
are upgraded in place by the reader and by the importer, keep their rows, and
end with the same tables, columns, indexes and views as a file made from
results_db/schema.sql; a failed upgrade leaves the file at its version."""

import json
import sqlite3
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "analysis"))

from beast_analysis import SCHEMA_VERSION, BeastDatabaseError, winners
from beast_analysis.db_migrate import migrations
from beast_analysis.kernel_tuner_import import import_cache

GEMM = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32"


def make_v1(path):
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript((REPO_ROOT / "tests" / "data" / "schema_v1.sql").read_text())
    connection.executescript(f"""
        INSERT INTO runs (id, command, beast_version, status) VALUES (1, 'beast tune', '0.1.0', 'finished');
        INSERT INTO devices (id, backend, name) VALUES (1, 'opencl', 'GPU');
        INSERT INTO problems (id, key, op, flops) VALUES (1, '{GEMM}', 'gemm', 524288.0);
        INSERT INTO templates (id, name, hash) VALUES (1, 'gemm/tiled', 'aaaa');
        INSERT INTO configs (id, template_id, config_key, config_hash, params_json)
          VALUES (1, 1, 'MWG=16', 'h16', '{{"MWG": 16}}'), (2, 1, 'MWG=32', 'h32', '{{"MWG": 32}}');
        INSERT INTO measurements (run_id, device_id, problem_id, config_id, is_default, status, median_ms)
          VALUES (1, 1, 1, 1, 1, 'ok', 8.0), (1, 1, 1, 2, 0, 'ok', 2.0);
    """)
    connection.close()
    return path


def schema_of(path):
    """Every object's type and name, and every table's columns, indexes and foreign keys."""
    connection = sqlite3.connect(path)
    objects = connection.execute(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
        "ORDER BY type, name"
    ).fetchall()
    schema = [("version", connection.execute("PRAGMA user_version").fetchone()[0])] + objects
    for kind, name, _ in objects:
        if kind == "table":
            schema += [
                ("column", name) + tuple(row)
                for row in connection.execute(f"PRAGMA table_xinfo({name})")
            ]
            schema += [
                ("index", name) + tuple(row)
                for row in connection.execute(f"PRAGMA index_list({name})")
            ]
            schema += [
                ("foreign key", name) + tuple(row)
                for row in connection.execute(f"PRAGMA foreign_key_list({name})")
            ]
    connection.close()
    return schema


def fresh(path):
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript((REPO_ROOT / "results_db" / "schema.sql").read_text())
    connection.close()
    return path


def test_migrations_cover_every_version():
    assert [number for number, _ in migrations()] == list(range(2, SCHEMA_VERSION + 1))


def test_reader_upgrades_a_version_1_file(tmp_path):
    path = make_v1(tmp_path / "v1.db")
    rows = winners(path)
    assert [(row["config"], row["median_ms"], row["speedup_vs_default"]) for row in rows] == [
        ("MWG=32", 2.0, 4.0)
    ]
    assert schema_of(path) == schema_of(fresh(tmp_path / "fresh.db"))
    assert ("table", "baselines", "baselines") in schema_of(path)


def test_import_upgrades_a_version_1_file(tmp_path):
    path = make_v1(tmp_path / "v1.db")
    cache = tmp_path / "c.json"
    cache.write_text(
        json.dumps(
            {
                "device_name": "GPU",
                "kernel_name": "k",
                "problem_size": 64,
                "tune_params_keys": ["X"],
                "tune_params": {"X": [1]},
                "cache": {"1": {"X": 1, "time": 2.0, "times": [2.0]}},
            }
        )
    )
    import_cache(cache, path)
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
    assert connection.execute("SELECT count(*) FROM measurements").fetchone()[0] == 3
    connection.close()
    assert schema_of(path) == schema_of(fresh(tmp_path / "fresh.db"))


def test_reader_upgrades_a_version_2_file(tmp_path):
    path = tmp_path / "v2.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript((REPO_ROOT / "tests" / "data" / "schema_v2.sql").read_text())
    connection.executescript(f"""
        INSERT INTO runs (id) VALUES (1);
        INSERT INTO devices (id, backend, name) VALUES (1, 'opencl', 'CPU');
        INSERT INTO problems (id, key, op, flops) VALUES (1, '{GEMM}', 'gemm', 524288.0);
        INSERT INTO templates (id, name, hash) VALUES (1, 'gemm/tiled', 'bbbb');
        INSERT INTO configs (id, template_id, config_key, config_hash, params_json)
          VALUES (1, 1, 'MWG=16', 'h16', '{{"MWG": 16}}'), (2, 1, 'MWG=32', 'h32', '{{"MWG": 32}}');
        INSERT INTO measurements (id, run_id, device_id, problem_id, config_id, is_default, status,
                                  median_ms, compiler, compiler_version)
          VALUES (4, 1, 1, 1, 1, 1, 'ok', 6.0, 'opencl', 'PoCL 6.0'),
                 (8, 1, 1, 1, 2, 0, 'ok', 3.0, 'opencl', 'PoCL 6.0');
    """)
    connection.close()
    rows = winners(path)
    assert [(row["config"], row["median_ms"], row["speedup_vs_default"]) for row in rows] == [
        ("MWG=32", 3.0, 2.0)
    ]
    assert schema_of(path) == schema_of(fresh(tmp_path / "fresh.db"))
    connection = sqlite3.connect(path)
    assert (
        connection.execute(
            "SELECT group_concat(id || ' ' || compiler_version || ' ' || ifnull(registers, 'null'), ', ') "
            "FROM measurements"
        ).fetchone()[0]
        == "4 PoCL 6.0 null, 8 PoCL 6.0 null"
    )
    # The status compile-only tuning records passes the widened CHECK.
    connection.execute(
        "INSERT INTO configs (id, template_id, config_key, config_hash, params_json) "
        "VALUES (3, 1, 'MWG=64', 'h64', '{}')"
    )
    connection.execute(
        "INSERT INTO measurements (run_id, device_id, problem_id, config_id, status, registers) "
        "VALUES (1, 1, 1, 3, 'compiled', 32)"
    )
    assert connection.execute("SELECT max(id), registers FROM measurements").fetchone() == (9, 32)
    connection.close()


def test_failed_upgrade_leaves_version_1(tmp_path):
    path = make_v1(tmp_path / "v1.db")
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("CREATE TABLE baselines (x INTEGER)")
    connection.close()
    with pytest.raises(BeastDatabaseError) as error:
        winners(path)
    assert str(error.value) == (
        f"{path}: upgrading from schema version 1 with 0002_baselines_provenance.sql: "
        "table baselines already exists"
    )
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    columns = [row[1] for row in connection.execute("PRAGMA table_info(measurements)")]
    assert "compiler" not in columns
    connection.close()


def test_measurement_statuses_are_the_schemas():
    """The package's list is the one the schema's CHECK constraint allows (the
    C++ enum is held to the same list by tests/unit/core/status_test.cpp)."""
    import re

    from beast_analysis import MEASUREMENT_STATUSES

    schema = (REPO_ROOT / "results_db" / "schema.sql").read_text()
    table = schema[schema.index("CREATE TABLE measurements (") :]
    check = table[
        table.index("CHECK (status IN (") : table.index("))", table.index("CHECK (status IN ("))
    ]
    assert tuple(re.findall(r"'([a-z_]+)'", check)) == MEASUREMENT_STATUSES
