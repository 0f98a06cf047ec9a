"""The documentation site (mkdocs.yml, docs/, mkdocs_hooks.py): it builds in strict mode (a broken
link, a missing anchor or an unresolvable API reference fails the build), its studies gallery lists
every committed study, its API reference has every public name with its example, and the README
stays a front page.

The build runs here, in the tests, rather than as a separate step of .ci/run: the docs' libraries
are in the ``test`` extra, so the one test command the README gives (and CI runs) checks the site
too, and a developer who runs the tests sees a broken page before CI does. It costs ~5 s."""

import doctest
import importlib
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import covstudy

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr[-4000:]}"
    return out


def test_the_site_builds_in_strict_mode_with_the_readme_as_its_home_page(site):
    home = (site / "index.html").read_text()
    assert "Three doors" in home and 'href="guide/library/"' in home  # README links rewritten into the site
    gallery = (site / "gallery" / "index.html").read_text()
    assert 'href="../results/auc/report.html"' in gallery  # an explorer page, copied into the site
    assert (site / "results" / "auc" / "report.html").is_file()


def test_the_command_reference_has_every_commands_live_help(site):
    page = (site / "api" / "cli" / "index.html").read_text()
    scripts = sorted(e.name for e in importlib.metadata.distribution("covstudy").entry_points
                     if e.group == "console_scripts")
    assert scripts == ["covstudy", "covstudy-evaluate", "covstudy-plan", "covstudy-plot"]
    for name in scripts:
        assert f"$ {name} --help" in page, name
    assert "usage: covstudy-plan" in page and "--truth" in page and "designs (design=NAME)" in page


def _committed_studies():
    try:
        listed = subprocess.run(["git", "ls-files", "results"], cwd=ROOT, capture_output=True, text=True, check=True)
        names = {Path(f).parts[1] for f in listed.stdout.split() if len(Path(f).parts) > 2}
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: every folder there
        names = set()
    return sorted(names) or sorted(p.name for p in (ROOT / "results").iterdir() if p.is_dir())


@pytest.mark.parametrize("study", _committed_studies())
def test_the_gallery_shows_every_committed_study(study):
    """Its heading, question, answer, a figure and a link to its report or explorer page."""
    text = (ROOT / "docs" / "gallery.md").read_text()
    entry = re.search(rf"^### {re.escape(study)}: .*?(?=^#|\Z)", text, re.M | re.S)
    assert entry, f"docs/gallery.md has no '### {study}: ...' entry"
    entry = entry.group(0)
    assert "**Question.**" in entry and "**Answer.**" in entry, study
    assert re.search(rf"!\[[^\]]+\]\(\.\./results/{re.escape(study)}/[^)]+\.png\)", entry), f"{study}: no figure"
    folder = ROOT / "results" / study
    page = "report.html" if (folder / "report.html").is_file() else "report.md"
    if (folder / page).is_file():
        assert f"](../results/{study}/{page})" in entry, f"{study}: no link to its {page}"


def _api_entries():
    return re.findall(r"^::: (\S+)$", (ROOT / "docs" / "api" / "library.md").read_text(), re.M)


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_the_api_reference_has_every_public_name_once():
    entries = _api_entries()
    assert len(entries) == len(set(entries))
    documented = {id(_resolve(e)) for e in entries}
    missing = [n for n in covstudy.__all__ if id(getattr(covstudy, n)) not in documented]
    assert missing == [] and len(entries) == len(covstudy.__all__)


def test_every_api_entry_shows_an_example_that_runs():
    """The docstring the site renders (griffe's, also for constants, whose docstring is the string
    under their assignment) has a numpydoc Examples section; the examples of constants, which
    ``doctest.testmod`` does not see (tests/test_names.py runs the others), run here."""
    import griffe

    package = griffe.load("covstudy", search_paths=[str(ROOT / "src")])
    for entry in _api_entries():
        obj = package[entry.removeprefix("covstudy.")]
        doc = obj.docstring.value if obj.docstring else ""
        assert "\nExamples\n--------\n" in f"\n{doc}" and ">>> " in doc, f"{entry}: no Examples section with >>>"
        if obj.kind.value == "attribute":
            test = doctest.DocTestParser().get_doctest(doc, {}, entry, None, 0)
            runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
            runner.run(test)
            assert runner.failures == 0 and runner.tries > 0, entry


def test_the_readme_is_a_front_page_whose_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci in readme  # the test command, word for word
    assert "python3 -m venv .venv && .venv/bin/pip install -q -c constraints.txt . && .venv/bin/covstudy" in readme
    for door in ("covstudy grid.", "covstudy-evaluate ", "covstudy-plan "):
        assert f"```bash\n{door}" in readme or f"&& {door}" in readme, door
    assert "mkdocs build --strict" in readme and "mkdocs serve" in readme
