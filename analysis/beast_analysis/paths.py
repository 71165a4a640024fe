"""Where the package finds the files it needs beside its own code.

The package runs from the source tree (PYTHONPATH=ROOT/analysis), so ROOT is
two folders above this file: results_db/schema.sql creates new databases,
results_db/migrations/ upgrades older ones, and schemas/ holds the
interchange schemas the package validates against.
"""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parents[1]
SCHEMA_SQL = ROOT / "results_db" / "schema.sql"
MIGRATIONS_DIR = ROOT / "results_db" / "migrations"
SHIPPED_SCHEMAS = PACKAGE_DIR / "schemas"
