"""Parts whose values were changed but stay in range: the checksum in a part's name finds them,
and a part without one (the name form before parts had one) is moved aside and its cells recomputed."""

import io

import numpy as np
import pandas as pd
import pytest

from covstudy.study.runner import run_study
from covstudy.study.store import checksum
from covstudy.study.config import Study


def study(out, **changes):
    cfg = {"name": "t", "methods": ["wald", "wilson"], "grid": {"n": [10, 20], "p": [0.1, 0.5], "delta": [0.05]},
           "engine": "exact", "n_jobs": 1, "out": str(out)}
    return Study.from_config({**cfg, **changes})


def edit(column, change):
    """A damage: ``column``'s value in the first row with 0 < coverage < 1 changed by ``change``
    (on its text), every other byte as written."""
    def damage(data):
        frame = pd.read_csv(io.BytesIO(data), dtype=object, keep_default_na=False)
        row = int(np.flatnonzero((frame["coverage"].astype(float) > 0) & (frame["coverage"].astype(float) < 1))[0])
        frame.loc[row, column] = change(frame.loc[row, column])
        return frame.to_csv(index=False).encode()
    return damage


def legacy(part):
    """The part as the store named it before parts had a checksum."""
    return part.rename(part.with_name(part.name.split(".")[0] + ".csv"))


def one_part(s):
    [part] = (s.out / "parts").glob("*.csv")
    return part


FIRST_DIGIT = lambda v: "0.4" + v[3:] if v.startswith("0.9") else "0.9" + v[3:]  # noqa: E731  0.90305 -> 0.40305


@pytest.mark.parametrize("engine", ["exact", "mc"])
@pytest.mark.parametrize("damage, column", [
    (edit("coverage", FIRST_DIGIT), "coverage"),
    (edit("miss_low", lambda v: repr(float(v) / 2)), "miss_low"),
    (edit("mean_width", lambda v: repr(float(v) + 0.01)), "mean_width"),
    # cut inside a row, just after a comma two thirds in (a cut at a line's end would leave whole rows)
    (lambda b: b[: b.index(b",", len(b) * 2 // 3) + 1], "truncated"),
    (lambda b: b[: b.rindex(b"\n", 0, -1) + 1], "last row cut off"),
    (lambda b: b[:40] + bytes(range(256)) + b[60:], "garbled"),
])
def test_a_damaged_part_is_named_and_its_cells_computed_again(tmp_path, capsys, engine, damage, column):
    changes = {"engine": engine, **({"reps": 200, "seed": 1} if engine == "mc" else {})}
    reference = run_study(study(tmp_path / "ref", **changes), progress=False).reset_index(drop=True)
    s = study(tmp_path / "s", **changes)
    run_study(s, progress=False)
    part = one_part(s)
    assert part.name.split(".")[1] == checksum(part.read_bytes())
    written = part.read_bytes()
    part.write_bytes(damage(written))
    assert part.read_bytes() != written
    capsys.readouterr()
    again = run_study(s, progress=False).reset_index(drop=True)
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and f"damaged part {part} (" in warnings[0] and "computed again" in warnings[0]
    assert again.equals(reference)
    assert (part.with_name(part.name + ".damaged")).read_bytes() == damage(written)  # kept aside, as it was
    capsys.readouterr()
    run_study(s, progress=False)  # and the new part is whole
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("edited", [False, True])
def test_a_part_without_checksum_is_recomputed_not_trusted(tmp_path, capsys, edited):
    # the case: renamed to the pre-checksum name form, one in-range mean_width digit edited; it
    # was trusted (no invariant ties a mean width to its row). Edited or not, its cells are computed again.
    reference = run_study(study(tmp_path / "ref"), progress=False).reset_index(drop=True)
    s = study(tmp_path / "s")
    run_study(s, progress=False)
    part = legacy(one_part(s))
    if edited:
        part.write_bytes(edit("mean_width", lambda v: v[:4] + str((int(v[4]) + 1) % 10) + v[5:])(part.read_bytes()))
    written = part.read_bytes()
    capsys.readouterr()
    again = run_study(s, progress=False).reset_index(drop=True)
    [warning] = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert f"unchecked part {part} (no checksum" in warning and "computed again" in warning
    assert again.equals(reference)  # the recomputed, true values, in results.csv and results.parquet
    for table in (pd.read_csv(s.out / "results.csv"), pd.read_parquet(s.out / "results.parquet")):
        merged = table.merge(reference, on="cell_id", suffixes=("", "_true"))
        assert len(merged) == len(reference) and (merged.mean_width == merged.mean_width_true).all()
    assert part.with_name(part.name + ".unchecked").read_bytes() == written  # kept aside, as it was
    [new] = (s.out / "parts").glob("*.csv")
    assert new.name.split(".")[1] == checksum(new.read_bytes())


def test_an_untouched_part_is_used_not_computed_again(tmp_path, capsys):
    s = study(tmp_path / "s")
    first = run_study(s, progress=False).reset_index(drop=True)
    part = one_part(s)
    before = part.read_bytes()
    capsys.readouterr()
    again = run_study(s, progress=False).reset_index(drop=True)
    assert "warning" not in capsys.readouterr().err
    assert [p.name for p in (s.out / "parts").glob("*.csv")] == [part.name] and part.read_bytes() == before
    assert again.equals(first)


def row_inconsistency(frame: pd.DataFrame) -> str | None:
    """What in ``frame`` contradicts itself, or None: where every interval is defined (mean_width a number),
    coverage + miss_low + miss_high = 1 (within 1e-9); a Monte Carlo row's rates are counts / reps and its
    mcse is sqrt(coverage·(1 - coverage)/reps); an exact row's mcse is 0."""
    rate = lambda c: frame[c].to_numpy(dtype=float)  # noqa: E731
    cov, low, high, mcse = rate("coverage"), rate("miss_low"), rate("miss_high"), rate("mcse")
    split = np.abs(cov + low + high - 1)
    if (bad := np.flatnonzero(~np.isnan(rate("mean_width")) & (split > 1e-9))).size:
        return f"coverage + miss_low + miss_high = {1 + split[bad[0]]:.9g} in row {bad[0] + 1}, not 1"
    reps = frame["reps"].to_numpy(dtype=float) if "reps" in frame else np.full(len(frame), np.nan)
    mc = (frame["engine"].to_numpy() == "mc") & ~np.isnan(reps)
    counts = np.stack([cov, low, high]) * reps
    if (bad := np.flatnonzero(mc & np.any(np.abs(counts - np.round(counts)) > 1e-6, axis=0))).size:
        return f"coverage or a miss rate in row {bad[0] + 1} is not a count / reps ({reps[bad[0]]:g})"
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(mc, np.sqrt(np.maximum(cov * (1 - cov), 0) / reps), 0.0)
    if (bad := np.flatnonzero(np.abs(mcse - expected) > 1e-12)).size:
        return f"mcse {mcse[bad[0]]!r} in row {bad[0] + 1} is not that of its coverage ({expected[bad[0]]!r})"
    return None


def test_every_design_writes_rows_that_agree_with_themselves():
    # Covered, missed low and missed high split the outcomes, and a Monte Carlo row's rates are counts / reps
    # with their mcse, for every design with either engine (the row checks a part without checksum once had).
    from covstudy.study import grid
    from covstudy.cli import load_study
    from covstudy.designs import DESIGNS
    from covstudy.study.config import ConfigError
    from covstudy.study.tasks import evaluate

    for name, design in DESIGNS.items():
        axes = [f"grid.{k}=[{v}]" for k, v in design.example.items()]
        s = load_study("quick", [f"design={name}", "grid.n=null", "grid.prevalence=null", *axes, "reps=20",
                                 f"engine={'both' if design.exact_engine else 'mc'}"], out="x")
        rows = [row for task in grid.tasks(grid.cells(s), 1) for row in evaluate(task)]
        frame = pd.read_csv(io.StringIO(pd.DataFrame(rows).to_csv(index=False)))
        assert row_inconsistency(frame) is None, name
        if design.exact_engine:
            try:
                s = load_study("quick", [f"design={name}", "grid.n=null", "grid.prevalence=null", *axes,
                                         "engine=exact"], out="x")
            except ConfigError:  # a default method with Monte Carlo coverage only
                continue
            rows = [row for task in grid.tasks(grid.cells(s), 1) for row in evaluate(task)]
            assert row_inconsistency(pd.DataFrame(rows)) is None, name
