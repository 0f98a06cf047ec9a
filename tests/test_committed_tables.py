"""The committed results tables (results/<study>/results.parquet) regenerate from their study."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

RESULTS = Path(__file__).resolve().parents[1] / "results"
STUDY = "mc_vs_exact"  # the cheapest committed study: ~5 s


def same_values(new, old) -> None:
    """Same columns, types and rows, floats equal bit for bit (so -0.0 differs from 0.0)."""
    assert new.schema.remove_metadata() == old.schema.remove_metadata()
    assert new.num_rows == old.num_rows
    for name in old.column_names:
        a, b = new.column(name).combine_chunks(), old.column(name).combine_chunks()
        assert a.is_null().equals(b.is_null()), name
        if pa.types.is_floating(a.type):
            bits = [np.asarray(c.fill_null(0.0).to_numpy(), dtype=np.float64).view(np.uint64) for c in (a, b)]
            assert np.array_equal(*bits), name
        else:
            assert a.equals(b), name


def test_committed_study_regenerates_its_table(tmp_path):
    """Rerun the committed study ``mc_vs_exact`` into a temporary folder and compare its table
    with the committed one: byte for byte when the installed pyarrow is the version that wrote
    the committed file (Parquet's ``created_by`` names it, so other versions write other bytes);
    with another pyarrow, value for value (same columns and types, floats bit-exact), which is
    what the bytes would say about the numbers."""
    committed = RESULTS / STUDY / "results.parquet"
    subprocess.run([sys.executable, "-m", "covstudy", f"study={STUDY}", f"out={tmp_path / STUDY}"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)
    made = tmp_path / STUDY / "results.parquet"
    writer = pq.ParquetFile(committed).metadata.created_by
    if writer == f"parquet-cpp-arrow version {pa.__version__}":
        assert made.read_bytes() == committed.read_bytes()
    else:
        same_values(pq.read_table(made), pq.read_table(committed))
    # The figures and reports come from this table: it has every column they read, no wall time.
    assert "seconds" not in pq.read_schema(committed).names


def test_every_committed_study_has_its_table():
    # the committed studies, not one the user ran here (the quick start's results/quick)
    tracked = subprocess.run(["git", "ls-files", "results"], cwd=RESULTS.parent, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    studies = sorted({RESULTS / Path(f).parts[1] for f in tracked.stdout.split() if f.endswith("/study.yaml")})
    assert len(studies) >= 10
    for study in studies:
        assert (study / "results.parquet").is_file(), study.name
