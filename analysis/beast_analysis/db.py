"""Opening a beast result database read-only, after checking that it is one.

The checks and messages match the C++ store (results_db/src/store_open.cpp):
application_id 0x42454153 ('BEAS') marks a beast database, user_version is its
schema version. A database of an older version is upgraded in place first
(db_migrate, all or nothing), as beast itself does; a newer one is refused.
"""

import os
import sqlite3
import urllib.parse
from pathlib import Path

from beast_analysis.db_migrate import MigrationError, upgrade

APPLICATION_ID = 0x42454153
SCHEMA_VERSION = 9


class BeastDatabaseError(Exception):
    """The file is missing, not a beast database, or of another schema version."""


def _read_only_uri(path):
    # Percent-encode so a '?' or '#' in a file name is not read as URI syntax;
    # the name's bytes, so one that is not UTF-8 is found too.
    return "file:" + urllib.parse.quote(os.fsencode(Path(path).resolve())) + "?mode=ro"


def _is_not_a_database(error):
    code = getattr(error, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF == sqlite3.SQLITE_NOTADB
    return "not a database" in str(error)


# As the C++ store: long enough for another writer's transaction.
_BUSY_TIMEOUT_S = 10.0


def check_header(connection, name, allow_older=False):
    """Raises BeastDatabaseError unless the open connection is a beast database
    of this schema version (or, with allow_older, an older one that migrations
    upgrade). Returns the version. name is the file name the message gives.

    A file that is not SQLite at all fails the first PRAGMA; a blank SQLite
    file (application_id 0) is not a beast database either: only a writer that
    creates the schema (db_write.open_for_writing) treats it as new.
    """
    try:
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as error:
        if _is_not_a_database(error):
            raise BeastDatabaseError(f"{name} is not a beast database") from None
        raise BeastDatabaseError(f"{name}: {error}") from None
    if application_id != APPLICATION_ID:
        raise BeastDatabaseError(f"{name} is not a beast database")
    if version > SCHEMA_VERSION:
        raise BeastDatabaseError(
            f"{name}: database schema version {version} is newer than this beast "
            f"({SCHEMA_VERSION}): upgrade beast"
        )
    if version < 1:
        raise BeastDatabaseError(f"{name} is a beast database without a schema version")
    if version < SCHEMA_VERSION and not allow_older:
        raise BeastDatabaseError(
            f"{name}: database schema version {version} is older than this beast ({SCHEMA_VERSION})"
        )
    return version


def ensure_current(connection, name):
    """Checks the header and upgrades an older database to SCHEMA_VERSION. The
    connection must be inside a write transaction (BEGIN IMMEDIATE): the caller
    commits the upgrade with its own changes, or rolls both back."""
    if check_header(connection, name, allow_older=True) < SCHEMA_VERSION:
        try:
            upgrade(connection, name, SCHEMA_VERSION)
        except MigrationError as error:
            raise BeastDatabaseError(str(error)) from None
        check_header(connection, name)


def _upgrade_file(name):
    """Upgrades the file at name in its own transaction."""
    connection = sqlite3.connect(name, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            ensure_current(connection, name)  # re-read inside: another process may have done it
            connection.execute("COMMIT")
        except BaseException:
            # SQLite has rolled back already after some failures (an I/O error in
            # COMMIT); a second ROLLBACK would fail and hide the first error.
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
    except sqlite3.DatabaseError as error:
        raise BeastDatabaseError(f"{name}: {error}") from None
    finally:
        connection.close()


def connect(db_path):
    """Opens db_path read-only and returns a sqlite3.Connection with Row rows.

    Raises BeastDatabaseError with one line naming the file when it does not
    exist, is not a beast database, or has a schema version this package does
    not read. An older file is upgraded in place first.
    """
    name = os.fspath(db_path)
    path = Path(name)
    if not path.exists():
        raise BeastDatabaseError(f"{name}: no such database file")
    # Where SQLite would say only "disk I/O error" or "unable to open database
    # file", the OS's words. Asked without opening the file: closing a
    # descriptor would drop the locks another connection of this process holds.
    if path.is_dir():
        raise BeastDatabaseError(f"{name}: is a directory")
    if not os.access(name, os.R_OK):
        raise BeastDatabaseError(f"{name}: permission denied")
    try:
        connection = sqlite3.connect(_read_only_uri(name), uri=True)
    except sqlite3.DatabaseError as error:
        raise BeastDatabaseError(f"{name}: {error}") from None
    try:
        if check_header(connection, name, allow_older=True) < SCHEMA_VERSION:
            connection.close()
            _upgrade_file(name)
            connection = sqlite3.connect(_read_only_uri(name), uri=True)
            check_header(connection, name)
    except BeastDatabaseError:
        connection.close()
        raise
    connection.row_factory = sqlite3.Row
    # A text the tuner recorded as it came (a driver's message) may hold bytes
    # that are not UTF-8: replaced, not a failure of the whole read.
    connection.text_factory = lambda data: data.decode("utf-8", "replace")
    return connection
