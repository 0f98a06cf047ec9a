"""Small tidy results tables (the CONTEXT.md contract) for the plotting and report tests, and the
comparison of a regenerated results table with a committed one (the reproducibility contract)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from covstudy import coverage

COLUMNS = ["method", "label", "side", "n", "p", "delta", "engine", "reps", "seed", "coverage", "mcse",
           "miss_low", "miss_high", "mean_width", "sd_width", "n_valid", "exact_coverage",
           "exact_mean_width", "seconds"]


def binomial_table(methods, ns, ps, delta=0.05, reps=None, seed=None, with_exact=False) -> pd.DataFrame:
    """One row per (method, n, p) from the real ``covstudy.coverage`` (exact, or MC with ``reps``)."""
    frames = []
    p = np.asarray(ps, dtype=float)
    for method in methods:
        for n in ns:
            r = coverage(method, n, p, delta, reps=reps, seed=seed)
            rows = pd.DataFrame({
                "method": method, "label": method, "side": "two-sided", "n": n, "p": p, "delta": delta,
                "engine": r.engine, "reps": reps, "seed": r.seed, "coverage": r.coverage, "mcse": r.mcse,
                "miss_low": r.miss_low, "miss_high": r.miss_high, "mean_width": r.mean_width,
                "sd_width": r.sd_width, "n_valid": reps, "exact_coverage": np.nan, "exact_mean_width": np.nan,
                "seconds": 0.0})
            if with_exact:
                e = coverage(method, n, p, delta)
                rows["exact_coverage"], rows["exact_mean_width"] = e.coverage, e.mean_width
            frames.append(rows)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


BA_METHODS = ("ba_cp_union", "ba_wald", "ba_posterior")


def balanced_table(designs=("stratified", "iid"), n=200) -> pd.DataFrame:
    """Plausible synthetic balanced-accuracy rows (not computed: the plots only need the shape)."""
    rng = np.random.default_rng(1)
    rows = []
    for design in designs:
        for method in BA_METHODS:
            for prevalence in (0.1, 0.2, 0.3, 0.5):
                for tpr in (0.6, 0.8, 0.9):
                    for tnr in (0.6, 0.8, 0.9):
                        c = {"ba_cp_union": 0.99, "ba_wald": 0.92, "ba_posterior": 0.95}[method]
                        c = float(np.clip(c + rng.normal(0, 0.005), 0, 1))
                        n_pos = round(prevalence * n)
                        rows.append(dict(method=method, label=method, side="two-sided", design=design,
                                         n_pos=n_pos, n_neg=n - n_pos, n=n, prevalence=prevalence, tpr=tpr,
                                         tnr=tnr, truth=(tpr + tnr) / 2, delta=0.05, engine="mc", reps=1000,
                                         seed=5, coverage=c, mcse=np.sqrt(c * (1 - c) / 1000),
                                         miss_low=(1 - c) / 2, miss_high=(1 - c) / 2,
                                         mean_width=0.2 if method == "ba_cp_union" else 0.15, sd_width=0.01,
                                         n_valid=1000, exact_coverage=np.nan, exact_mean_width=np.nan,
                                         seconds=0.0))
    return pd.DataFrame(rows)


def write_folder(folder: Path, table: pd.DataFrame, study: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / "results.csv", index=False)
    if study is not None:
        (folder / "study.yaml").write_text(yaml.safe_dump(study, sort_keys=False))
    return folder


# The reproducibility contract (docs/reproducibility.md): on one machine
# with the same libraries a rerun gives the same bits; on another CPU numpy's SIMD paths sum in
# another order, so floats may differ in their last bits (measured: <= 4 ulps, 4.4e-16). The bound
# leaves room for other CPUs and compilers, and is still far below any printed digit.
BOUND = 1e-12
# Roots of a variance computed as E[w²] - E[w]²: the root magnifies its last-bit differences
# (by 1/(2·sd)), so these are compared by their square.
ROOTS = ("sd_width",)


def assert_same_numbers(new, old, bound: float = BOUND) -> None:
    """Assert that two results tables (pandas DataFrames or pyarrow Tables) hold the same numbers
    under the reproducibility contract: the same columns, types (Arrow: the same schema) and rows;
    other than floats, equal value for value; floats NaN at the same places, infinities equal, and
    every other pair within |a - b| <= bound * max(1, |a|, |b|) (``ROOTS``: their squares)."""
    if hasattr(old, "schema"):
        assert new.schema.remove_metadata() == old.schema.remove_metadata(), "schemas differ"
        new, old = new.to_pandas(), old.to_pandas()
    assert list(new.columns) == list(old.columns), f"columns differ: {list(new.columns)} vs {list(old.columns)}"
    assert list(new.dtypes) == list(old.dtypes), "column types differ"
    assert len(new) == len(old), f"{len(new)} rows vs {len(old)}"
    for name in old.columns:
        a, b = new[name].to_numpy(), old[name].to_numpy()
        if a.dtype.kind != "f":
            same = pd.Series(a).eq(pd.Series(b)) | (pd.isna(a) & pd.isna(b))
            assert same.all(), f"{name}: {(~same).sum()} values differ, first at row {np.flatnonzero(~same)[0]}"
            continue
        a, b = a.astype(float), b.astype(float)
        odd = ~(np.isfinite(a) & np.isfinite(b))
        assert np.array_equal(a[odd], b[odd], equal_nan=True), f"{name}: NaN or infinity at other rows"
        a, b = np.where(odd, 0.0, a), np.where(odd, 0.0, b)
        if name in ROOTS:
            a, b = a * a, b * b
        gap = np.abs(a - b)
        far = gap > bound * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
        assert not far.any(), (f"{name}: {far.sum()} values differ by more than {bound:g} "
                               f"(up to {gap[far].max():.3g}), first at row {np.flatnonzero(far)[0]}")
