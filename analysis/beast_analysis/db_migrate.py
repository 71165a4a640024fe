"""Upgrading an older beast database in place, as the C++ store does.

results_db/migrations/NNNN_name.sql turns schema version NNNN-1 into NNNN; the
missing ones run in order inside the caller's transaction, so the file is
either fully upgraded or untouched (see results_db/migrations/README.md).
"""

import re
import sqlite3

from beast_analysis.paths import MIGRATIONS_DIR

_NAME = re.compile(r"^(\d{4})_[A-Za-z0-9_]+\.sql$")


class MigrationError(Exception):
    """A migration is missing or failed; the message names the file and the step."""


def migrations():
    """[(version, path)] of every migration file, in version order."""
    found = []
    for path in sorted(MIGRATIONS_DIR.glob("*.sql")):
        match = _NAME.match(path.name)
        if match:
            found.append((int(match.group(1)), path))
    return found


def _statements(text):
    statements, pending = [], ""
    for line in text.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return statements


def upgrade(connection, name, target):
    """Runs the migrations from the file's version up to target on connection,
    which must be inside a write transaction (each statement is executed one by
    one, since executescript would commit). name is the file name for messages."""
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    for number, path in migrations():
        if number <= version or number > target:
            continue
        if number != version + 1:
            break
        for statement in _statements(path.read_text()):
            try:
                connection.execute(statement)
            except sqlite3.DatabaseError as error:
                raise MigrationError(
                    f"{name}: upgrading from schema version {version} with {path.name}: {error}"
                ) from None
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version != number:
            raise MigrationError(f"migration {path.name} left schema version {version}")
    if version < target:
        raise MigrationError(f"{name}: no migration from schema version {version} to {version + 1}")
