"""Tests of the beast_analysis package on a real database built from
results_db/schema.sql: winners with exact speedups, status counts, filters,
and the errors for files that are not beast databases."""

import os
import sqlite3
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "analysis"))

import beast_analysis
from beast_analysis import BeastDatabaseError, status_counts, winners
from conftest import add, create_database

GEMM = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32"
CONV = "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32"


@pytest.fixture
def db_path(tmp_path):
    """GPU/gemm/gemm_tiled: default MWG=16 8 ms, MWG=32 2 ms, MWG=64 4 ms, MWG=128 fails
    to compile. CPU/gemm/gemm_tiled: default 5 ms, MWG=64 10 ms, MWG=32 crashed."""
    path = tmp_path / "beast.db"
    connection = create_database(path, wal=True)
    run = add(connection, "runs", command="beast tune", beast_version="0.1.0")
    gpu = add(
        connection,
        "devices",
        backend="opencl",
        name="GPU",
        vendor="Vendor",
        driver_version="1.0",
        arch="OpenCL 3.0",
    )
    cpu = add(
        connection,
        "devices",
        backend="opencl",
        name="CPU",
        vendor="Vendor",
        driver_version="1.0",
        arch="OpenCL 3.0",
    )
    gemm = add(connection, "problems", key=GEMM, op="gemm", flops=524288.0)
    add(connection, "problems", key=CONV, op="conv2d", flops=73728.0)
    tiled = add(
        connection,
        "templates",
        name="gemm/tiled",
        hash="aaaa",
        source_path="kernel_templates/gemm/tiled.cl.j2",
    )
    configs = {
        mwg: add(
            connection,
            "configs",
            template_id=tiled,
            config_key=f"MWG={mwg}",
            config_hash=f"h{mwg}",
            params_json=f'{{"MWG": {mwg}}}',
        )
        for mwg in (16, 32, 64, 128)
    }

    def measure(device, mwg, median=None, status="ok", is_default=0):
        add(
            connection,
            "measurements",
            run_id=run,
            device_id=device,
            problem_id=gemm,
            config_id=configs[mwg],
            is_default=is_default,
            status=status,
            median_ms=median,
            spread=0.0 if median else None,
            gflops=0.524288 / median if median else None,
        )

    measure(gpu, 16, 8.0, is_default=1)
    measure(gpu, 32, 2.0)
    measure(gpu, 64, 4.0)
    measure(gpu, 128, status="compile_error")
    measure(cpu, 64, 10.0)
    measure(cpu, 16, 5.0, is_default=1)
    measure(cpu, 32, status="crashed")
    connection.close()
    return path


def test_winners_are_the_best_ok_config_with_speedup(db_path):
    rows = winners(db_path)
    assert [
        (r["device"], r["template"], r["config"], r["median_ms"], r["speedup_vs_default"])
        for r in rows
    ] == [
        ("CPU", "gemm/tiled", "MWG=16", 5.0, 1.0),
        ("GPU", "gemm/tiled", "MWG=32", 2.0, 4.0),
    ]
    gpu = rows[1]
    assert gpu["params"] == {"MWG": 32}
    assert gpu["problem"] == GEMM
    assert gpu["op"] == "gemm"
    assert gpu["backend"] == "opencl"
    assert gpu["arch"] == "OpenCL 3.0"
    assert gpu["template_hash"] == "aaaa"
    assert gpu["source_path"] == "kernel_templates/gemm/tiled.cl.j2"
    assert gpu["default_ms"] == 8.0
    assert gpu["gflops"] == 0.262144
    assert gpu["confirmed_ms"] is None


def test_winners_follow_the_confirmation_that_stands(db_path):
    """The confirmed_medians view ranks winners as beast query --best does."""
    connection = sqlite3.connect(db_path, isolation_level=None)
    ids = dict(connection.execute("SELECT c.config_key, c.id FROM configs c").fetchall())
    gpu = connection.execute("SELECT id FROM devices WHERE name = 'GPU'").fetchone()[0]
    confirmation = add(
        connection, "confirmations", run_id=1, device_id=gpu, problem_id=1, template_id=1
    )
    for key, median in (("MWG=32", 2.5), ("MWG=64", 2.25)):
        add(
            connection,
            "confirmation_results",
            confirmation_id=confirmation,
            config_id=ids[key],
            status="ok",
            median_ms=median,
        )
    connection.close()
    rows = winners(db_path, device="GPU")
    assert [(r["config"], r["median_ms"], r["confirmed_ms"]) for r in rows] == [
        ("MWG=64", 4.0, 2.25)
    ]
    # CPU has no confirmation: its lowest median still wins.
    assert [r["config"] for r in winners(db_path, device="CPU")] == ["MWG=16"]
    # The default took no part: its first median against the winner's.
    assert rows[0]["speedup_vs_default"] == 8.0 / 4.0
    assert rows[0]["default_confirmed_ms"] is None


def test_speedup_over_a_default_confirmed_beside_the_winner(db_path):
    """Like against like, as beast query: both confirmed medians (3.0 / 2.25),
    not the default's first median (8 ms) against the winner's."""
    connection = sqlite3.connect(db_path, isolation_level=None)
    ids = dict(connection.execute("SELECT c.config_key, c.id FROM configs c").fetchall())
    confirmation = add(
        connection, "confirmations", run_id=1, device_id=1, problem_id=1, template_id=1
    )
    for key, median in (("MWG=16", 3.0), ("MWG=32", 2.5), ("MWG=64", 2.25)):
        add(
            connection,
            "confirmation_results",
            confirmation_id=confirmation,
            config_id=ids[key],
            status="ok",
            median_ms=median,
        )
    connection.close()
    [row] = winners(db_path, device="GPU")
    assert (row["config"], row["confirmed_ms"], row["default_confirmed_ms"]) == (
        "MWG=64",
        2.25,
        3.0,
    )
    assert row["speedup_vs_default"] == 3.0 / 2.25


def test_winners_filters(db_path):
    assert [r["config"] for r in winners(db_path, device="GPU")] == ["MWG=32"]
    assert winners(db_path, problem=CONV) == []
    assert winners(db_path, template="gemm/other") == []
    assert len(winners(db_path, problem=GEMM, template="gemm/tiled")) == 2


def test_newest_template_version_wins_without_default(db_path):
    connection = sqlite3.connect(db_path, isolation_level=None)
    tiled_v2 = add(connection, "templates", name="gemm/tiled", hash="bbbb", source_path="")
    config = add(
        connection,
        "configs",
        template_id=tiled_v2,
        config_key="MWG=32",
        config_hash="h32",
        params_json="{}",
    )
    add(
        connection,
        "measurements",
        run_id=1,
        device_id=1,
        problem_id=1,
        config_id=config,
        status="ok",
        median_ms=3.0,
    )
    connection.close()
    gpu = winners(db_path, device="GPU")
    assert [(r["template_hash"], r["median_ms"], r["speedup_vs_default"]) for r in gpu] == [
        ("bbbb", 3.0, None)
    ]


def test_an_edit_put_back_is_the_first_version_again_and_failures_alone_are_not_newer(db_path):
    """Version aaaa, tuned again after bbbb (its id the lower one), is the
    newest: winners() and measurements.load agree on it; a version cccc with
    only a failure after it does not replace it in load either."""
    from beast_analysis import measurements

    connection = sqlite3.connect(db_path, isolation_level=None)

    def measure(template_hash, key, status, median):
        template = connection.execute(
            "SELECT id FROM templates WHERE hash = ?", (template_hash,)
        ).fetchone()
        template = (
            template[0]
            if template
            else add(connection, "templates", name="gemm/tiled", hash=template_hash, source_path="")
        )
        config = add(
            connection,
            "configs",
            template_id=template,
            config_key=key,
            config_hash=template_hash + key,
            params_json="{}",
        )
        add(
            connection,
            "measurements",
            run_id=1,
            device_id=1,
            problem_id=1,
            config_id=config,
            status=status,
            median_ms=median,
        )

    measure("bbbb", "MWG=32", "ok", 3.0)
    measure("aaaa", "MWG=8", "ok", 1.0)
    measure("cccc", "MWG=4", "compile_error", None)
    connection.close()
    gpu = winners(db_path, device="GPU", template="gemm/tiled")
    assert [(r["template_hash"], r["config"], r["median_ms"]) for r in gpu] == [
        ("aaaa", "MWG=8", 1.0)
    ]
    frame = measurements.load(db_path, device="GPU", template="gemm/tiled")
    gemm = frame[frame["problem_id"] == 1]
    assert set(gemm["template_hash"]) == {"aaaa"}
    assert "MWG=8" in set(gemm["config"])


def test_status_counts(db_path):
    assert status_counts(db_path) == {
        "ok": 5,
        "compile_error": 1,
        "runtime_error": 0,
        "crashed": 1,
        "timeout": 0,
        "wrong_result": 0,
        "pruned_after_compile": 0,
        "compiled": 0,
    }
    assert list(status_counts(db_path)) == list(beast_analysis.MEASUREMENT_STATUSES)
    cpu = status_counts(db_path, device="CPU")
    assert (cpu["ok"], cpu["crashed"], cpu["compile_error"]) == (2, 1, 0)
    assert sum(status_counts(db_path, problem=CONV).values()) == 0


def test_connect_is_read_only(db_path):
    connection = beast_analysis.connect(db_path)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        connection.execute("DELETE FROM measurements")
    connection.close()


def test_a_file_name_of_any_bytes_is_read(db_path, tmp_path):
    """'?' and '#' are not URI syntax, and a name that is not UTF-8 (bytes
    the file system took) is found too, and shown with U+FFFD in a report."""
    from beast_analysis import report

    for raw in (b"odd?#name.db", b"bad\xffname.db"):
        renamed = db_path.with_name(os.fsdecode(raw))
        db_path.rename(renamed)
        assert sum(status_counts(renamed).values()) == 7
        db_path = renamed
    report.build(db_path, tmp_path / "report")
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "bad\ufffdname.db</code>" in page


def test_not_a_database(tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"x" * 4096)
    with pytest.raises(BeastDatabaseError) as error:
        winners(garbage)
    assert str(error.value) == f"{garbage} is not a beast database"

    other = tmp_path / "other.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE things (x INTEGER)")
    connection.commit()
    connection.close()
    with pytest.raises(BeastDatabaseError) as error:
        status_counts(other)
    assert str(error.value) == f"{other} is not a beast database"

    missing = tmp_path / "missing.db"
    with pytest.raises(BeastDatabaseError) as error:
        winners(missing)
    assert str(error.value) == f"{missing}: no such database file"
    assert not missing.exists()


def test_newer_schema_version(db_path):
    connection = sqlite3.connect(db_path)
    connection.execute("PRAGMA user_version = 10")
    connection.close()
    with pytest.raises(BeastDatabaseError) as error:
        winners(db_path)
    assert str(error.value) == (
        f"{db_path}: database schema version 10 is newer than this beast (9): upgrade beast"
    )


def test_a_text_that_is_not_utf8_is_read_with_replacements(db_path):
    """A message recorded as a driver gave it may hold bytes that are not
    UTF-8: it is read with U+FFFD, not a failure of the whole read."""
    from beast_analysis import measurements

    connection = sqlite3.connect(db_path, isolation_level=None)
    connection.execute(
        "UPDATE measurements SET error_text = 'bad ' || X'FF' || ' byte' "
        "WHERE status = 'compile_error'"
    )
    connection.close()
    frame = measurements.load(db_path, device="GPU")
    assert list(frame.loc[frame["status"] == "compile_error", "error_text"]) == ["bad \ufffd byte"]
