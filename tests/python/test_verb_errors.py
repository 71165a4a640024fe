"""Tests of how the Python verbs (`beast import`, `beast report`, `beast
export-results`) fail on ordinary faults of the files they are handed: a
missing file, one that is not JSON or not UTF-8, a directory where a file
belongs, a folder that cannot be written, a disk that takes no more (a file
size limit, which holds for root too), an existing T4 file. Each is made for
real, and each must give one line "beast VERB: PATH: cause" on stderr, no
traceback, exit 1, and leave no output (nor a temporary file) behind. Only a
bug says "internal error", and then with its traceback."""

import json
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "analysis"))

from beast_analysis import t4_export
from beast_analysis.kernel_tuner_import import import_cache
from conftest import run_cli

# A small real Kernel Tuner cache (vector_add, 15 configs).
CACHE = REPO_ROOT / "tests" / "data" / "kernel_tuner" / "test_test_cache_file.json"
AS_ROOT = os.geteuid() == 0


def fails(capsys, *argv):
    """Runs a verb that must fail on bad input; returns its one stderr line."""
    code, out, err = run_cli(capsys, *argv)
    assert (code, out) == (1, ""), err
    assert "Traceback" not in err and "internal error" not in err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    return err


def run_limited(tmp_path, max_bytes, *argv):
    """Runs `python -m beast_analysis ARGV` (as the beast binary starts it) in
    tmp_path with no file allowed to grow past max_bytes: a write beyond fails
    with EFBIG, a real fault of the disk that running as root does not lift.
    (Python ignores SIGXFSZ, so the write fails rather than killing it.)"""

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT / "analysis"), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [sys.executable, "-m", "beast_analysis", *map(str, argv)],
        cwd=tmp_path,
        env=env,
        preexec_fn=limit,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def db(tmp_path):
    """A beast database holding the imported cache, in its own folder. Its
    journal is a rollback one: a reader of a WAL database creates a 32 KiB
    -shm file, which run_limited's size limit would refuse before the output."""
    path = tmp_path / "data" / "beast.db"
    path.parent.mkdir()
    import_cache(CACHE, path)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode = DELETE")
    connection.close()
    return path


@pytest.fixture
def unwritable(tmp_path):
    """(folder, expected cause of a file in it): a folder made read-only, or,
    as root (who writes there anyway), a regular file, which no path can lead
    through."""
    if AS_ROOT:
        folder = tmp_path / "a_file"
        folder.write_text("not a folder\n")
        yield folder, f"{folder} is not a directory"
        return
    folder = tmp_path / "read_only"
    folder.mkdir()
    folder.chmod(0o555)
    yield folder, "permission denied"
    folder.chmod(0o755)


def listing(folder):
    return sorted(p.name for p in Path(folder).iterdir())


# beast import


def test_import_of_a_missing_file(tmp_path, capsys):
    cache, new = tmp_path / "none.json", tmp_path / "new.db"
    err = fails(capsys, "import", "--kernel-tuner", cache, "--db", new)
    assert err == f"beast import: {cache}: no such file or directory\n"
    assert listing(tmp_path) == []


def test_import_of_a_directory(tmp_path, capsys):
    folder = tmp_path / "caches"
    folder.mkdir()
    err = fails(capsys, "import", "--kernel-tuner", folder, "--db", tmp_path / "new.db")
    assert err == f"beast import: {folder}: is a directory\n"
    assert listing(tmp_path) == ["caches"]


def test_import_of_a_path_through_a_file(tmp_path, capsys):
    (tmp_path / "notes").write_text("hello\n")
    cache = tmp_path / "notes" / "c.json"
    err = fails(capsys, "import", "--kernel-tuner", cache, "--db", tmp_path / "new.db")
    assert err == f"beast import: {cache}: not a directory\n"
    assert listing(tmp_path) == ["notes"]


def test_import_of_garbage_json_names_line_and_column(tmp_path, capsys):
    cache = tmp_path / "c.json"
    cache.write_text('{\n  "kernel_name": "k",\n  "cache": nope\n}\n')
    err = fails(capsys, "import", "--kernel-tuner", cache, "--db", tmp_path / "new.db")
    assert err == f"beast import: {cache}:3:12: not JSON: Expecting value\n"
    assert listing(tmp_path) == ["c.json"]


def test_import_of_a_file_that_is_not_utf8(tmp_path, capsys):
    cache = tmp_path / "c.json"
    cache.write_bytes(b'{"kernel_name": "\xff"}')
    err = fails(capsys, "import", "--kernel-tuner", cache, "--db", tmp_path / "new.db")
    assert err == f"beast import: {cache}: not UTF-8 text (at byte 17)\n"
    assert listing(tmp_path) == ["c.json"]


@pytest.mark.skipif(AS_ROOT, reason="root reads a file of mode 000 anyway")
def test_import_of_an_unreadable_file(tmp_path, capsys):
    cache = tmp_path / "c.json"
    cache.write_text(CACHE.read_text())
    cache.chmod(0o000)
    try:
        err = fails(capsys, "import", "--kernel-tuner", cache, "--db", tmp_path / "new.db")
    finally:
        cache.chmod(0o644)
    assert err == f"beast import: {cache}: permission denied\n"
    assert listing(tmp_path) == ["c.json"]


def test_import_of_a_file_name_too_long(tmp_path, capsys):
    cache = tmp_path / ("c" * 300 + ".json")
    err = fails(capsys, "import", "--kernel-tuner", cache, "--db", tmp_path / "new.db")
    assert err == f"beast import: {cache}: file name too long\n"
    assert listing(tmp_path) == []


def test_import_into_a_directory(tmp_path, capsys):
    folder = tmp_path / "dbs"
    folder.mkdir()
    err = fails(capsys, "import", "--kernel-tuner", CACHE, "--db", folder)
    assert err == f"beast import: {folder}: is a directory\n"
    assert listing(folder) == []


def test_import_into_an_unwritable_folder(unwritable, capsys):
    folder, cause = unwritable
    new = folder / "new.db"
    err = fails(capsys, "import", "--kernel-tuner", CACHE, "--db", new)
    assert err == f"beast import: {new}: {cause}\n"
    assert not folder.is_dir() or listing(folder) == []


@pytest.mark.skipif(AS_ROOT, reason="root writes a file of mode 444 anyway")
def test_import_into_a_read_only_database(db, capsys):
    before = db.read_bytes()
    db.chmod(0o444)
    try:
        err = fails(capsys, "import", "--kernel-tuner", CACHE, "--db", db)
    finally:
        db.chmod(0o644)
    assert err == f"beast import: {db}: permission denied\n"
    assert db.read_bytes() == before


def test_import_into_a_full_disk(tmp_path):
    done = run_limited(tmp_path, 1024, "import", "--kernel-tuner", CACHE, "--db", "new.db")
    assert (done.returncode, done.stdout) == (1, "")
    # SQLite reports the failed write (EFBIG here, ENOSPC on a full disk) in its own words.
    assert done.stderr == "beast import: new.db: disk I/O error\n"
    assert listing(tmp_path) == []  # no database, no temporary file or journal


# beast report


def test_report_of_a_database_that_is_a_directory(tmp_path, capsys):
    folder = tmp_path / "dbs"
    folder.mkdir()
    err = fails(capsys, "report", "--db", folder, "--out", tmp_path / "r")
    assert err == f"beast report: {folder}: is a directory\n"
    assert listing(tmp_path) == ["dbs"]


def test_report_into_an_unwritable_folder(db, unwritable, capsys):
    folder, cause = unwritable
    out = folder / "report"
    err = fails(capsys, "report", "--db", db, "--out", out)
    assert err == f"beast report: {out}: {cause}\n"
    assert not folder.is_dir() or listing(folder) == []


def test_report_onto_a_full_disk_leaves_nothing(db, tmp_path):
    done = run_limited(tmp_path, 1024, "report", "--db", db, "--out", "report")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "beast report: report: file too large\n"
    assert listing(tmp_path) == ["data"]  # no report, no hidden half-written folder


# beast export-results


def test_export_refuses_an_existing_file_unless_forced(db, tmp_path, capsys):
    out = tmp_path / "out.json"
    out.write_text("mine\n")
    err = fails(capsys, "export-results", "--db", db, "--t4", out)
    assert err == f"beast export-results: {out}: already exists (--force replaces it)\n"
    assert out.read_text() == "mine\n"
    code, _, err = run_cli(capsys, "export-results", "--db", db, "--t4", out, "--force")
    assert (code, err) == (0, "")
    assert len(json.loads(out.read_text())["results"]) == 15
    assert listing(tmp_path) == ["data", "out.json"]


def test_export_help_names_force(capsys):
    code, out, _ = run_cli(capsys, "export-results", "--help")
    assert code == 0
    assert "--force" in out and "replace OUT.json if it exists" in out


def test_export_into_a_directory(db, tmp_path, capsys):
    folder = tmp_path / "out.json"
    folder.mkdir()
    err = fails(capsys, "export-results", "--db", db, "--t4", folder)
    assert err == f"beast export-results: {folder}: is a directory\n"
    assert listing(folder) == []


def test_export_into_an_unwritable_folder(db, unwritable, capsys):
    folder, cause = unwritable
    out = folder / "out.json"
    err = fails(capsys, "export-results", "--db", db, "--t4", out)
    assert err == f"beast export-results: {out}: {cause}\n"
    assert not folder.is_dir() or listing(folder) == []


def test_export_with_a_file_name_too_long(db, tmp_path, capsys):
    out = tmp_path / ("o" * 250 + ".json")  # fits, but its temporary file's name does not
    err = fails(capsys, "export-results", "--db", db, "--t4", out)
    assert err == f"beast export-results: {out}: file name too long\n"
    assert listing(tmp_path) == ["data"]


def test_export_onto_a_full_disk_leaves_nothing(db, tmp_path):
    done = run_limited(tmp_path, 1024, "export-results", "--db", db, "--t4", "out.json")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "beast export-results: out.json: file too large\n"
    assert listing(tmp_path) == ["data"]  # neither out.json nor its temporary file


# A bug


def test_a_bug_is_an_internal_error_with_its_traceback(db, tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        return 1 / 0

    monkeypatch.setattr(t4_export, "document", broken)
    out = tmp_path / "out.json"
    code, printed, err = run_cli(capsys, "export-results", "--db", db, "--t4", out)
    assert (code, printed) == (1, "")
    lines = err.splitlines()
    assert lines[0] == "beast export-results: internal error: ZeroDivisionError: division by zero"
    assert lines[1] == "Traceback (most recent call last):"
    assert "in broken" in err and lines[-1] == "ZeroDivisionError: division by zero"
    assert listing(tmp_path) == ["data"]


def test_import_into_a_damaged_database_writes_nothing(capsys, db):
    """A page of the measurements table made invalid: quick_check refuses the
    file before the import writes, naming the recovery command."""
    connection = sqlite3.connect(db)
    page = connection.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'measurements'"
    ).fetchone()[0]
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    with open(db, "r+b") as file:
        file.seek((page - 1) * page_size)
        file.write(b"\x07")
    before = db.read_bytes()
    err = fails(capsys, "import", "--db", db, "--kernel-tuner", CACHE)
    assert err.startswith(f"beast import: {db} is damaged (SQLite: ")
    assert err.endswith(
        f"); beast writes nothing into it. Recover what it holds with: sqlite3 {db} .recover "
        f"| sqlite3 {db}.recovered, then use {db}.recovered\n"
    )
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["beast.db"]
