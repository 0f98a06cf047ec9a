"""The code blocks of the README and of every page under docs/ run, so that no page drifts from the code.

- Each page's ```python blocks run in order in one namespace (a page reads like one session), in a
  scratch folder where ``results/<study>`` and ``experiments/`` are the repository's. A statement
  whose comment starts with a number or a tuple of numbers, perhaps after a word and a colon
  (``... # 139``, ``... # (0.0562, 0.3292)``, ``... # exact: 0.832``)
  claims its value: the value, rounded to the digits the comment shows, must say the same.
- Each ```bash block runs in bash with the venv's commands first on PATH, in a scratch folder; a
  plain ``` block marked ``<!-- output -->`` right after it is (a part of) its output: each of its
  lines must be a line of what the command printed.
- A block that is too costly, or that installs or needs a cluster, is marked on the line above
  its fence with ``<!-- not run: the reason -->``; nothing else is skipped.
"""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
MARK = re.compile(r"<!--\s*(not run|output)\b\s*(:?)\s*(.*?)\s*-->\s*$")
CLAIM = re.compile(r"#\s*(?:[A-Za-z][\w ]*:\s*)?(\(?\s*-?\d[\d_.]*(?:e-?\d+)?(?:\s*,\s*-?\d[\d_.]*(?:e-?\d+)?)*\s*\)?)(?=\s|$|[:;,])")


def blocks(page: Path):
    """(language, code, mark, reason, line) of every fenced block of a page."""
    text = page.read_text()
    out = []
    for m in BLOCK.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.search(before)
        out.append((m.group(1), m.group(2), mark and mark.group(1), mark and mark.group(3), line, mark and mark.group(2)))
    return out


def _id(page):
    return page.relative_to(ROOT).as_posix()


PYTHON = [p for p in PAGES if any(lang == "python" and mark is None for lang, _, mark, *_ in blocks(p))]
BASH = [(p, line) for p in PAGES for lang, _, mark, _, line, _ in blocks(p) if lang in ("bash", "sh") and mark is None]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder that reads like the repository's top (results/<study>, experiments/, tests/) and takes writes."""
    top = tmp_path_factory.mktemp("docs")
    (top / "results").mkdir()
    for study in (ROOT / "results").iterdir():
        if study.is_dir():
            (top / "results" / study.name).symlink_to(study)
    (top / "experiments").symlink_to(ROOT / "experiments")
    (top / "tests").symlink_to(ROOT / "tests")  # the eval-log guides read tests/data's real-format logs
    return top


def test_every_mark_gives_a_reason_and_every_output_follows_a_command():
    bad = []
    for page in PAGES:
        previous = None
        for lang, _, mark, reason, line, colon in blocks(page):
            if mark == "not run" and not (colon and reason):
                bad.append(f"{_id(page)}:{line}: 'not run' without ': reason'")
            if mark == "output" and (lang or previous is None or previous[0] not in ("bash", "sh") or previous[2]):
                bad.append(f"{_id(page)}:{line}: an output block must be plain and follow a bash block that runs")
            previous = (lang, line, mark)
    assert bad == []


def _numbers(value):
    """The numbers a value shows, in order (an Interval, a tuple, a scalar, a numpy array)."""
    if isinstance(value, (bool, np.bool_)):
        return []
    if isinstance(value, (int, float, np.integer, np.floating)):
        return [float(value)]
    if isinstance(value, (tuple, list, np.ndarray)):
        return [x for v in value for x in _numbers(v)]
    if type(value).__name__ == "CoverageResult":
        return _numbers(value.coverage)  # the number its repr leads with
    return []


def _check_claim(source_line: str, value, where: str):
    claim = CLAIM.match("#" + source_line.split("#", 1)[1]) if "#" in source_line else None
    if claim is None:
        return
    shown = [s.strip().replace("_", "") for s in claim.group(1).strip("() ").split(",")]
    actual = _numbers(value)
    assert len(actual) >= len(shown), f"{where}: the comment shows {claim.group(1)} but the value is {value!r}"
    for s, a in zip(shown, actual):
        digits = len(s.split(".")[1]) if "." in s and "e" not in s else 0
        tolerance = 0.5 * 10.0 ** -digits * (1 + 1e-9) if "e" not in s else abs(float(s)) * 1e-9
        assert abs(a - float(s)) <= tolerance, f"{where}: the comment says {s}, the code gives {a!r}"


def run_python(code: str, namespace: dict, where: str):
    """Run a block statement by statement, checking the values its comments claim."""
    tree = ast.parse(code)
    lines = code.split("\n")
    for node in tree.body:
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), where, "eval"), namespace)
            _check_claim(lines[node.end_lineno - 1], value, f"{where}+{node.end_lineno - 1}")
        else:
            exec(compile(ast.Module([node], type_ignores=[]), where, "exec"), namespace)


@pytest.mark.parametrize("page", PYTHON, ids=_id)
def test_python_blocks_run(page, scratch, monkeypatch):
    monkeypatch.chdir(scratch)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": "__docs__"}
    for lang, code, mark, _, line, _ in blocks(page):
        if lang == "python" and mark is None:
            run_python(code, namespace, f"{_id(page)}:{line + 1}")


@pytest.mark.parametrize("page, line", BASH, ids=[f"{_id(p)}:{n}" for p, n in BASH])
def test_bash_blocks_run_and_print_what_the_page_shows(page, line, scratch):
    found = blocks(page)
    i = next(i for i, b in enumerate(found) if b[4] == line)
    code = found[i][1]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "COLUMNS": "200",
           "MPLBACKEND": "Agg"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=scratch, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"{_id(page)}:{line}: exit {done.returncode}\n{done.stderr[-2000:]}"
    if i + 1 < len(found) and found[i + 1][2] == "output":
        printed = {s.rstrip() for s in (done.stdout + done.stderr).split("\n")}
        missing = [s for s in found[i + 1][1].split("\n") if s.strip() and s.rstrip() not in printed]
        assert missing == [], f"{_id(page)}:{line}: the page shows lines the command no longer prints: {missing}"
