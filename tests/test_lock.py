"""constraints.txt, the lock every install goes through (README, .ci/run), pins every library that
pyproject.toml asks for, so that a fresh machine installs exactly what the suite passed with."""
import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="Python 3.11's tomllib reads pyproject.toml")

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    """The normalised project name of a requirement (PEP 503): 'dask[distributed]>=2023.1' -> 'dask'."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", requirement).group()).lower()


def _pins() -> dict:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not pinned with =="
            pins[_name(name)] = version.strip()
    return pins


def test_every_dependency_and_extra_is_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    wanted |= {_name(r) for extra in project["optional-dependencies"].values() for r in extra}
    missing = wanted - _pins().keys()
    assert not missing, f"not in constraints.txt: {sorted(missing)}; refresh the lock (docs/guide/quick-start.md)"

