"""The committed results tables (results/<study>/results.parquet) regenerate from their study,
under the reproducibility contract (docs/reproducibility.md; ``tidy_tables.assert_same_numbers``)."""

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
import yaml
from tidy_tables import BOUND, assert_same_numbers

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

RESULTS = Path(__file__).resolve().parents[1] / "results"
STUDY = "mc_vs_exact"  # the cheapest committed study: ~5 s


def test_committed_study_regenerates_its_table(tmp_path):
    """Rerun the committed study ``mc_vs_exact`` with its command and compare its table with the
    committed one value by value: floats within the contract's bound (on another CPU they may
    differ in their last bits; on the machine and libraries that wrote it they are the same bits,
    tests/test_runner.py), everything else exact; and its reports, which round, byte for byte."""
    committed = RESULTS / STUDY / "results.parquet"
    subprocess.run([sys.executable, "-m", "covstudy", f"study={STUDY}", f"out=results/{STUDY}", "plot=true"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)
    made = tmp_path / "results" / STUDY
    assert_same_numbers(pq.read_table(made / "results.parquet"), pq.read_table(committed))
    for report in ("report.md", "report.tex", "report.html"):
        assert (made / report).read_bytes() == (RESULTS / STUDY / report).read_bytes(), report
    # The figures and reports come from this table: it has every column they read, no wall time.
    assert "seconds" not in pq.read_schema(committed).names


def committed_table():
    return pq.read_table(RESULTS / STUDY / "results.parquet").to_pandas()


def perturbed(table, column, row, change):
    table = table.copy()
    table.loc[row, column] = change(table.loc[row, column])
    return table


@pytest.mark.parametrize("column", ["exact_coverage", "mean_width", "sd_width"])
def test_the_comparison_takes_a_last_bit_and_refuses_a_real_change(column):
    committed = committed_table()
    row = int(np.flatnonzero(committed[column] > 0.01)[0])
    assert_same_numbers(perturbed(committed, column, row, lambda v: np.nextafter(v, 2.0)), committed)
    assert_same_numbers(perturbed(committed, column, row, lambda v: v + BOUND / 2), committed)
    with pytest.raises(AssertionError, match=f"{column}: 1 values differ by more than"):
        assert_same_numbers(perturbed(committed, column, row, lambda v: v + 1e-9), committed)


@pytest.mark.parametrize("column, change, why", [
    ("exact_coverage", lambda v: np.nan, "NaN or infinity at other rows"),
    ("mean_width", lambda v: np.inf, "NaN or infinity at other rows"),
    ("p", lambda v: v + 1e-9, "p: 1 values differ"),
    ("reps", lambda v: v + 1, "reps: 1 values differ"),
    ("method", lambda v: "wilson" if v != "wilson" else "wald", "method: 1 values differ"),
])
def test_the_comparison_refuses_other_changes(column, change, why):
    committed = committed_table()
    with pytest.raises(AssertionError, match=why):
        assert_same_numbers(perturbed(committed, column, 3, change), committed)
    with pytest.raises(AssertionError, match="columns differ"):
        assert_same_numbers(committed.drop(columns=[column]), committed)
    arrow = pq.read_table(RESULTS / STUDY / "results.parquet")
    with pytest.raises(AssertionError, match="schemas differ"):
        assert_same_numbers(arrow.drop_columns([column]), arrow)


def tracked_results() -> list[str]:
    """The committed files under results/ (paths from the repository's root)."""
    tracked = subprocess.run(["git", "ls-files", "-z", "results"], cwd=RESULTS.parent, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    return tracked.stdout.split("\0")[:-1]


def test_every_committed_study_has_its_table():
    # the committed studies, not one the user ran here (the quick start's results/quick)
    studies = sorted({RESULTS / Path(f).parts[1] for f in tracked_results() if f.endswith("/study.yaml")})
    assert len(studies) >= 10
    for study in studies:
        if "kind" in yaml.safe_load((study / "study.yaml").read_text()):  # a study kind's (study/kinds.py) table
            assert any((study / f).is_file() for f in ("results.parquet", "results.csv", "bands.parquet")), study.name
        else:
            assert (study / "results.parquet").is_file(), study.name


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        self.urls += [value for name, value in attrs if name in ("href", "src") and value]


def test_every_committed_page_links_only_committed_files():
    """On a fresh clone every local link of a committed report.html opens a file: each relative
    href or src resolves to a tracked file (links elsewhere, to a page's own anchors or data: are
    not checked)."""
    tracked = set(tracked_results())
    pages = sorted(f for f in tracked if f.endswith("/report.html"))
    assert len(pages) >= 10
    for page in pages:
        parser = Links()
        parser.feed((RESULTS.parent / page).read_text(encoding="utf-8"))
        local = [u for u in parser.urls if not urlsplit(u).scheme and not u.startswith(("#", "//"))]
        assert local, page
        dead = [url for url in local if Path(os.path.normpath(os.path.join(
            os.path.dirname(page), unquote(urlsplit(url).path)))).as_posix() not in tracked]
        assert not dead, f"{page} links files that are not committed: {sorted(set(dead))}"
