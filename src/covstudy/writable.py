"""Output paths: can one be written (asked before any work, so that a run never computes everything and
then fails to save it; the check creates and changes nothing), and writing a folder whole or not at all."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from pathlib import Path

from .interrupts import held


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


@contextlib.contextmanager
def staged(folder):
    """Yield a hidden staging folder beside ``folder``; on success move its files into ``folder``.

    Everything is written to the staging folder first, so an interrupt (Ctrl-C, SIGTERM) or an error
    while writing leaves ``folder`` as it was: the staging folder is removed and no file there is half
    written. The final moves are renames on one file system, with SIGINT and SIGTERM held off until
    they are done."""
    out = Path(folder).absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.partial-"))
    try:
        yield stage
        with held():
            out.mkdir(exist_ok=True)
            for f in sorted(stage.iterdir()):
                os.replace(f, out / f.name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
