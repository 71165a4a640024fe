"""Shared by the Python tests: private caches for every beast process they
start (no test reads or writes beast's caches in the user's ~/.cache, or
depends on an earlier run's), and the helpers several test files use: a
database made from the store's own schema, a row inserter, the analysis CLI
run in-process, and the renderer's environment (the fixture `env`; what the
render tests share besides is render_support.py). Test files import the
helpers with `from conftest import ...`."""

import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "analysis"))

# The problem keys the report and roofline tests record winners of.
GEMM = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32"
CONV = (
    "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,dilation_h=1,"
    "dilation_w=1,groups=1,layout=NCHW,dtype=f32"
)


@pytest.fixture(scope="module")
def env():
    """The renderer's Jinja2 environment on kernel_templates/."""
    from render_support import TEMPLATES, render

    return render.make_environment(TEMPLATES)


def pytest_configure(config):
    # beast's own caches start empty; every other program's (PoCL's kernel
    # cache: content-addressed, only a speed-up) stay the user's.
    home = tempfile.mkdtemp(prefix="beast_pytest_cache_")
    config.beast_cache_home = home
    os.environ["BEAST_CACHE_DIR"] = os.path.join(home, "programs")
    os.environ["BEAST_TUNED_CACHE_DIR"] = os.path.join(home, "beast_tuned")


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "beast_cache_home", ""), ignore_errors=True)


def create_database(path, wal=False):
    """A database from the store's schema, in one transaction; wal: in WAL
    mode, as the C++ store opens it (its -wal and -shm files beside it)."""
    connection = sqlite3.connect(path, isolation_level=None)
    schema = (REPO_ROOT / "results_db" / "schema.sql").read_text()
    connection.executescript("BEGIN;\n" + schema + "\nCOMMIT;")
    if wal:
        connection.execute("PRAGMA journal_mode = WAL")
    return connection


def add(connection, table, **columns):
    """Inserts one row of `columns` into `table`; returns its rowid."""
    names, marks = ", ".join(columns), ", ".join("?" for _ in columns)
    return connection.execute(
        f"INSERT INTO {table} ({names}) VALUES ({marks})", tuple(columns.values())
    ).lastrowid


def run_cli(capsys, *argv):
    """Runs the analysis CLI in-process: (exit code, stdout, stderr)."""
    from beast_analysis import cli

    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
