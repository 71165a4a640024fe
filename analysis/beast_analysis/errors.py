"""The one exception the command-line subcommands turn into a one-line message.

BeastDatabaseError (db.py) covers the database file itself; InputError covers
everything else a user handed in: an import file, an option value, an output
path. Its text names what and where (file, line, option), with no prefix: the
CLI adds "beast VERB: ".
"""


class InputError(Exception):
    """Bad input from the user: one line naming what is wrong and where."""
