"""Replacing an output folder whole: the new content is written to a hidden
temporary folder beside it and renamed into place only when complete, so a
failed or interrupted run leaves the previous folder (or none) untouched.

A folder is replaced only when it is absent, empty, or holds a previous
output of the same kind (recognised by its marker file and text), so a
mistyped --out never deletes someone's files.
"""

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from beast_analysis.errors import InputError, writing


def _is_previous(out, marker, text):
    path = out / marker
    try:
        return path.is_file() and text in path.read_text(errors="replace")[:4096]
    except OSError:
        return False


def check_replaceable(out_dir, marker, text, what):
    """Raises InputError unless out_dir may be (re)written."""
    out = Path(out_dir)
    if not out.exists():
        if not out.parent.is_dir() and str(out.parent):
            if out.parent.exists():
                raise InputError(f"{out_dir}: {out.parent} is not a directory")
            raise InputError(f"{out_dir}: no such parent directory {out.parent}")
        return
    if not out.is_dir():
        raise InputError(f"{out_dir} exists and is not a directory")
    if any(out.iterdir()) and not _is_previous(out, marker, text):
        raise InputError(
            f"{out_dir} is not empty and not a previous {what}: refusing to replace it"
        )


@contextlib.contextmanager
def replacing(out_dir, marker, text, what):
    """Yields a temporary folder; on success it becomes out_dir.

    An OSError on the way (permission denied, no space left, also while the
    caller writes into the folder) becomes an InputError naming out_dir, not
    the hidden temporary folder; the temporary folder is removed either way.
    """
    with writing(out_dir):
        check_replaceable(out_dir, marker, text, what)
        out = Path(out_dir).absolute()
        work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
        try:
            yield work
            check_replaceable(out_dir, marker, text, what)  # again: it may have changed meanwhile
            os.chmod(work, 0o777 & ~_umask())
            old = None
            if out.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
                os.rename(out, old / "previous")
            try:
                os.rename(work, out)
            except OSError:
                if old is not None:  # put the previous output back rather than lose it
                    os.rename(old / "previous", out)
                    old.rmdir()
                raise
            if old is not None:
                shutil.rmtree(old)
        finally:
            if work.exists():
                shutil.rmtree(work)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
