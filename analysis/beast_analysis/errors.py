"""The faults the command-line subcommands turn into one line, and the helpers
that give them the name of the file they concern.

BeastDatabaseError (db.py) covers the database file itself; InputError covers
everything else a user handed in: an import file, an option value, an output
path. Its text names what and where (file, line, option), with no prefix: the
CLI adds "beast VERB: ".

An OSError raised while reading or writing a file the user named is such a
fault too, and the message must name the user's path rather than a temporary
file beside it: reading(path) and writing(path) wrap the code that touches
one file and re-raise its faults as InputError "PATH: cause". Anything else
that escapes to the CLI is a bug (cli.py prints it with its traceback).
"""

import contextlib
import json
import os


class InputError(Exception):
    """Bad input from the user: one line naming what is wrong and where."""


def os_cause(error):
    """The reason of an OSError in the words of the C library, lower case
    ("permission denied", "no space left on device"), without the file name
    Python's own text repeats."""
    if error.errno is None:
        return str(error)
    text = os.strerror(error.errno)
    return text[:1].lower() + text[1:]


def os_message(error, path=None):
    """ "PATH: cause" for an OSError: path, else the file the error names."""
    name = path if path is not None else error.filename
    cause = os_cause(error)
    return f"{os.fspath(name)}: {cause}" if name is not None else cause


@contextlib.contextmanager
def reading(path):
    """Re-raises the faults of reading path as InputError naming it: what the
    OS refused (no such file, a directory, permission denied), text that is not
    UTF-8, and JSON that does not parse (with its line and column)."""
    name = os.fspath(path)
    try:
        yield
    except json.JSONDecodeError as error:
        raise InputError(f"{name}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{name}: not UTF-8 text (at byte {error.start})") from None
    except OSError as error:
        raise InputError(os_message(error, name)) from None


@contextlib.contextmanager
def writing(path):
    """Re-raises an OSError of writing path (or the temporary file or folder
    that becomes it) as InputError naming path: permission denied, no space
    left, a read-only file system. Only OS faults: a ValueError inside is
    still a bug."""
    try:
        yield
    except OSError as error:
        raise InputError(os_message(error, os.fspath(path))) from None
