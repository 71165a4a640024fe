"""Where the package finds the files it needs beside its own code.

The package runs from the source tree (PYTHONPATH=ROOT/analysis), so ROOT is
two folders above this file: results_db/schema.sql creates new databases,
results_db/migrations/ upgrades older ones, and
the shared data folder (ROOT/../shared/data) holds the upstream copies of the
interchange schemas, which the copies shipped in schemas/ stand in for.
"""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parents[1]
SCHEMA_SQL = ROOT / "results_db" / "schema.sql"
MIGRATIONS_DIR = ROOT / "results_db" / "migrations"
SHARED_DATA = ROOT.parent / "shared" / "data"
SHIPPED_SCHEMAS = PACKAGE_DIR / "schemas"
