"""Can an output path be written? Asked before any work, so that a run never computes
everything and then fails to save it. Nothing is created or changed by the check."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


def problem(path, *, folder: bool) -> str | None:
    """Why ``path`` cannot be written as a folder (``folder``) or as a file, or None.

    An existing path must be of the right kind and writable; a new one needs its nearest
    existing ancestor to be a folder we can create files in (tried with a temporary file:
    permission bits say nothing for root, nor for /proc or a read-only mount)."""
    p = Path(path)
    if p.exists():
        if p.is_dir() != folder:
            return os.strerror(errno.ENOTDIR if folder else errno.EISDIR)  # "Not a directory", "Is a directory"
        if not folder:
            try:
                with open(p, "a"):  # appends nothing: the file is left as it is
                    pass
            except OSError as err:
                return err.strerror or str(err)
            return None
    ancestor = p if p.exists() else next((a for a in p.parents if a.exists()), None)
    if ancestor is None or not ancestor.is_dir():
        return f"{ancestor}: {os.strerror(errno.ENOTDIR)}"
    try:
        fd, probe = tempfile.mkstemp(dir=ancestor, prefix=".covstudy-probe-")
    except OSError as err:
        return f"cannot create files in {ancestor} ({err.strerror or err})"
    os.close(fd)
    os.unlink(probe)
    return None
