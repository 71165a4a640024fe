"""Where the package finds the files it needs beside its own code.

The package runs from the source tree (PYTHONPATH=ROOT/analysis), so ROOT is
two folders above this file: results_db/schema.sql creates new databases,
results_db/migrations/ upgrades older ones, schemas/ holds the interchange
schemas the package validates against, and kernel_templates/ the shipped
templates' space files (what the report reads of a template beyond the
database: whether it computes on tensor cores).
"""

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parents[1]
SCHEMA_SQL = ROOT / "results_db" / "schema.sql"
MIGRATIONS_DIR = ROOT / "results_db" / "migrations"
SHIPPED_SCHEMAS = PACKAGE_DIR / "schemas"
TEMPLATES_DIR = ROOT / "kernel_templates"


def shown_path(path):
    """`path` made absolute, as text to write into a page or a document: a
    name whose bytes are not UTF-8 (the file system takes any) is shown with
    U+FFFD in their place rather than failing the write."""
    return os.fsencode(os.path.abspath(path)).decode("utf-8", "replace")
