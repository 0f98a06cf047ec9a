"""The ``covstudy`` command run in this process: ``cli.main()`` with its argv, in a working
directory. A fresh ``python -m covstudy`` costs ~3 CPU-s, mostly ``import covstudy``; a one-line
error needs none of that. A few end-to-end tests keep running the real console scripts."""

import contextlib
import io
import os
import subprocess
import sys

from covstudy import cli


def covstudy_in_process(cwd, *args, plot=False) -> subprocess.CompletedProcess:
    """What ``covstudy ARGS`` run in ``cwd`` exits with and prints (plot=false unless given), as
    subprocess.run would return it; argv, the working directory and the environment are restored."""
    args = [*args, *([] if plot or any(a.startswith("plot=") for a in args) else ["plot=false"])]
    saved = sys.argv, os.getcwd(), os.environ.get("PYTHONWARNINGS")
    out, err = io.StringIO(), io.StringIO()
    try:
        os.chdir(cwd)
        sys.argv = ["covstudy", *args]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                cli.main()
                code = 0
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    finally:
        sys.argv = saved[0]
        os.chdir(saved[1])
        if saved[2] is None:
            os.environ.pop("PYTHONWARNINGS", None)  # main() extends it for the workers
        else:
            os.environ["PYTHONWARNINGS"] = saved[2]
    return subprocess.CompletedProcess(["covstudy", *args], code, out.getvalue(), err.getvalue())
