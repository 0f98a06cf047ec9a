"""Ctrl-C and SIGTERM during ``covstudy-evaluate``: one line, exit code 130, and the report folder written
whole or not at all (issue 55: a 37-line KeyboardInterrupt traceback and death by SIGINT, 10 of 10 tries)."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "experiments" / "evaluate_example" / "predictions.csv"


def _sigint_default():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background job inherits SIGINT ignored; a terminal's does not


def _interrupted(tmp_path, sig):
    """Start the README's example with --out in its own session, wait until its progress line shows (it is
    mid-audit: the whole run is ~40 CPU-s), send ``sig`` to the group as a terminal's Ctrl-C does."""
    out = tmp_path / "report"
    cmd = [sys.executable, "-m", "covstudy.evaluation.cli", str(EXAMPLE), "--truth", "truth",
           "--predicted", "logistic_label", "--score", "logistic_score", "--second-predicted", "naive_bayes_label",
           "--second-score", "naive_bayes_score", "--positive", "malignant", "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_sigint_default)
    err = b""
    while b"%|" not in err:  # the progress line: tqdm draws it without a newline, so read what is there
        ready, _, _ = select.select([proc.stderr], [], [], 120)
        chunk = os.read(proc.stderr.fileno(), 4096) if ready else b""
        assert chunk, f"no progress line: {err!r}"
        err += chunk
    assert proc.poll() is None
    os.killpg(proc.pid, sig)
    stdout, rest = proc.communicate(timeout=120)
    return proc, out, (err + rest).decode(), stdout.decode()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_is_one_line_exit_130_and_writes_nothing(tmp_path, sig):
    proc, out, err, stdout = _interrupted(tmp_path, sig)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and stdout == ""
    assert err.rstrip().splitlines()[-1].split("\r")[-1].endswith(
        "covstudy-evaluate: interrupted; nothing was written"), err
    assert not out.exists() and list(tmp_path.iterdir()) == []  # no report, no staging folder


def test_report_folder_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """An interrupt while the report is being written leaves an existing folder as it was."""
    import covstudy

    ev = covstudy.evaluate([1, 0, 1, 1, 0, 1], [1, 0, 0, 1, 0, 1], metrics=["accuracy"], audit=False, progress=False)
    out = tmp_path / "report"
    ev.save(out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert {"table.csv", "report.md", "report.html", "forest.png"} <= set(before)
    (out / "mine.txt").write_text("a user's file")
    table_csv = pd.DataFrame.to_csv

    def half_then_interrupt(self, path, *args, **kwargs):
        table_csv(self, path, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        ev.save(out)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != "mine.txt"} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # the staging folder is gone
    ev.save(out)  # and a complete save replaces the files, keeping the user's own
    assert (out / "mine.txt").read_text() == "a user's file"
