"""Small tidy results tables (the CONTEXT.md contract) for the plotting and report tests."""

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
