"""Writing to a beast result database from Python, all or nothing.

write_transaction(path) yields a connection inside one IMMEDIATE transaction
that commits when the block ends and rolls back when it raises. An existing
file must pass the reader's checks (db.check_header), and one of an older
schema version is upgraded inside the same transaction; a missing file is built
in a temporary file beside it (results_db/schema.sql, then the caller's rows)
and only linked into place once committed, so a failed import leaves no
database behind; an existing blank SQLite file gets the schema in place. Settings match the C++ store (results_db/src/store_open.cpp):
foreign keys on, WAL mode, a 10 s busy timeout.
"""

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path

from beast_analysis.db import BeastDatabaseError, check_header, ensure_current
from beast_analysis.errors import InputError, os_message, writing
from beast_analysis.paths import SCHEMA_SQL

# As the C++ store: long enough for another writer's transaction, short enough
# that a wedged writer is reported.
_BUSY_TIMEOUT_S = 10.0


def _schema_statements():
    """schema.sql split into statements, so they run inside our transaction
    (executescript would commit first)."""
    if not SCHEMA_SQL.is_file():
        raise BeastDatabaseError(f"{SCHEMA_SQL}: no such schema file to create a database from")
    statements, pending = [], ""
    for line in SCHEMA_SQL.read_text().splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return statements


def _open(path):
    connection = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def _finish(connection):
    # WAL is stored in the file; NORMAL sync is safe in WAL mode (see the C++ store).
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")


def _is_blank(connection):
    """A new or empty SQLite file, which beast may create its schema in (as the
    C++ store does): no application id, no version, no tables."""
    header = [
        connection.execute(sql).fetchone()[0]
        for sql in (
            "PRAGMA application_id",
            "PRAGMA user_version",
            "SELECT count(*) FROM sqlite_master",
        )
    ]
    return header == [0, 0, 0]


def damaged_message(name, detail):
    """The one line for a damaged database file, with the recovery command (the
    C++ store's words, results_db/src/sqlite_handle.cpp)."""
    detail = detail.removeprefix("*** in database main ***\n").replace("\n", " ")
    return (
        f"{name} is damaged (SQLite: {detail}); beast writes nothing into it. Recover what "
        f"it holds with: sqlite3 {name} .recover | sqlite3 {name}.recovered, then use "
        f"{name}.recovered"
    )


def _check_pages(connection, name):
    """SQLite's quick_check before anything is written, as the C++ store does: a
    damaged page does not care how the file was last closed."""
    try:
        verdict = connection.execute("PRAGMA quick_check(1)").fetchone()[0]
    except sqlite3.DatabaseError as error:
        verdict = str(error)
    if verdict != "ok":
        raise BeastDatabaseError(damaged_message(name, verdict))


@contextlib.contextmanager
def _transaction(connection, name):
    try:
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.DatabaseError as error:
        check_header(connection, name)  # "not a beast database" when it is not SQLite
        raise BeastDatabaseError(f"{name}: {error}") from None
    try:
        # Decided inside the transaction: another process may have created it meanwhile.
        if _is_blank(connection):
            for statement in _schema_statements():
                connection.execute(statement)
        else:
            check_header(connection, name, allow_older=True)  # a beast file, then its pages
            _check_pages(connection, name)
            ensure_current(connection, name)  # an older file is upgraded in this transaction
        yield connection
        connection.execute("COMMIT")
    except BaseException:
        # SQLite has rolled back already after some failures (an I/O error in
        # COMMIT); a second ROLLBACK would fail and hide the first error.
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def write_transaction(db_path):
    """Yields a sqlite3.Connection (Row rows) in one transaction on db_path.

    Raises BeastDatabaseError when db_path exists and is not a beast database
    of this schema version, or is not a file, or may not be written; InputError
    naming db_path when the OS refuses to create it.
    """
    name = os.fspath(db_path)
    path = Path(name)
    if path.is_dir():
        raise BeastDatabaseError(f"{name}: is a directory")
    if path.exists() and not path.is_file():
        raise BeastDatabaseError(f"{name} is not a beast database (not a file)")
    # SQLite would only fail at the first write, with "attempt to write a readonly database".
    if path.exists() and not os.access(name, os.W_OK):
        raise BeastDatabaseError(f"{name}: permission denied")
    if path.exists():
        connection = _open(name)
        connection.row_factory = sqlite3.Row
        try:
            with _transaction(connection, name):
                yield connection
            _finish(connection)
        finally:
            connection.close()
        return
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        if directory.exists():
            raise BeastDatabaseError(f"{name}: {directory} is not a directory")
        raise BeastDatabaseError(f"{name}: no such directory {directory}")
    with writing(name):  # the user's name, not the temporary file's, in a message
        handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=directory)
    os.close(handle)
    try:
        os.chmod(
            temporary, 0o666 & ~_umask()
        )  # mkstemp makes it 0600; a database is shared like any file
        connection = _open(temporary)
        connection.row_factory = sqlite3.Row
        try:
            with _transaction(connection, name):
                yield connection
            _finish(connection)
        finally:
            connection.close()  # checkpoints the WAL into the file and removes it
        try:
            os.link(temporary, name)  # fails, rather than replaces, if it appeared meanwhile
        except FileExistsError:
            raise BeastDatabaseError(
                f"{name} was created by another process during the import; run it again"
            ) from None
        except OSError as error:
            raise InputError(os_message(error, name)) from None
    finally:
        for leftover in (temporary, temporary + "-wal", temporary + "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)
