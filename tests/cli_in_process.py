"""The ``covstudy`` command run in this process: ``cli.main()`` with its argv, in a working
directory. A fresh ``python -m covstudy`` costs ~3 CPU-s, mostly ``import covstudy``; a one-line
error needs none of that. A few end-to-end tests keep running the real console scripts."""

import os
import sys

from covstudy import cli


def covstudy_in_process(monkeypatch, capsys, cwd, *args, plot=False):
    """(exit code, stdout, stderr) of ``covstudy ARGS`` run in ``cwd`` (plot=false unless given)."""
    args = [*args, *([] if plot or any(a.startswith("plot=") for a in args) else ["plot=false"])]
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", ["covstudy", *args])
    monkeypatch.setenv("PYTHONWARNINGS", os.environ.get("PYTHONWARNINGS", ""))  # main() extends it
    capsys.readouterr()
    try:
        cli.main()
        code = 0
    except SystemExit as exit:
        code = exit.code
    out = capsys.readouterr()
    return code, out.out, out.err
