"""``covstudy-evaluate FILE --truth COL --model A --model B --model C ...``: a leaderboard of k models on one test set.

For k models' predicted labels on the same n rows: each model's accuracy with its Wilson interval
(per model, at level 1 - delta), its rank set, and every pairwise difference with a simultaneous
max-t interval (methods/leaderboard.py: the multinomial covariance of the k accuracies) and Holm's
claims on McNemar's p-values. Rank sets come from the simultaneous intervals: [1 + #models surely
better, k - #models surely worse] (docs/leaderboard.md). Beside them, the guaranteed family
(methods/leaderboard_exact.py: each pair's exact McNemar-compatible interval at delta/P) and its rank sets,
whose coverage is at least 1 - delta by proof (columns ``guaranteed_*``).

The audit is a plug-in Monte Carlo: ``reps`` test sets of n rows resampled from the file, the
observed accuracies taken as the truth; it reports how often every max-t interval covered and
every rank set held its rank (with MCSE). It checks the asymptotics at this n and these models'
correlation; it is not a guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import validate
from ..designs.many_models import pairs, sufficient
from ..leaderboard.coverage import per_test_set
from ..methods.binomial import wilson
from ..methods.leaderboard import holm, max_t
from ..methods.leaderboard_exact import exact_bonferroni
from ..seeds import stream
from .data import MAX_CLASSES, MAX_ROWS, prepare

MAX_MODELS = 50
MAX_REPS = 2000  # the audit's resampled test sets: each runs max-t over every pair (seconds at k = 50)
AUDIT_POINTS = 2048  # the audit's max-t points per resampled test set (the answer's own use 8,192)


@dataclass
class Leaderboard:
    models: pd.DataFrame  # model, correct, n, accuracy, lower, upper, rank_low, rank_high
    pairs: pd.DataFrame  # first, second, difference, lower, upper, holm (the claim)
    audit: dict | None
    delta: float
    read: str = ""  # what was read (the truth's classes and counts), as covstudy.evaluate's info["read"]
    notes: tuple = ()  # warnings about what was read (a stray label, labels that are not whole numbers)
    forecast: float | None = None  # CPU-s forecast before the work (cost.leaderboard_plan)
    cut: str = ""  # what the budget cut ("" : nothing)

    def text(self) -> str:
        m = self.models
        lines = [f"{'model':<20} {'accuracy':>8}  {'interval':<17} ranks"]
        for r in m.itertuples():
            ranks = _ranks(r.rank_low, r.rank_high)
            lines.append(f"{str(r.model):<20} {r.accuracy:8.4f}  [{r.lower:.4f}, {r.upper:.4f}]  {ranks}")
        p = self.pairs
        sure = int(((p.lower > 0) | (p.upper < 0)).sum())
        lines.append(f"{sure} of {len(p)} pairs differ by the simultaneous max-t intervals at {1 - self.delta:g} "
                     f"(Holm on McNemar's tests: {int((p.holm != 0).sum())}); ranks from those intervals")
        proven = int(((p.guaranteed_lower > 0) | (p.guaranteed_upper < 0)).sum())
        lines.append(f"guaranteed (exact McNemar-compatible intervals at delta/{len(p)}, coverage >= {1 - self.delta:g} "
                     f"by proof): {proven} of {len(p)} pairs differ; ranks "
                     + ", ".join(f"{r.model} {_ranks(r.guaranteed_rank_low, r.guaranteed_rank_high)}"
                                 for r in m.itertuples()))
        if self.cut:
            lines.append(self.cut)
        if self.audit:
            a = self.audit
            lines.append(f"audit ({a['reps']} resampled test sets): every pairwise interval covered "
                         f"{a['family_coverage']:.3f} ± {a['family_coverage_mcse']:.3f}, every rank set held "
                         f"{a['rank_coverage']:.3f} ± {a['rank_coverage_mcse']:.3f}")
        return "\n".join(lines)

    def save(self, folder) -> Path:
        """Write leaderboard.csv, pairs.csv, leaderboard.md and leaderboard.png to ``folder``; returns its path."""
        from ..writable import staged

        with staged(folder) as out:  # an interrupt or error leaves the folder as it was
            self._write(out)
        return Path(folder)

    def _write(self, out: Path) -> None:
        from ..plots.leaderboard import leaderboard_figure

        self.models.to_csv(out / "leaderboard.csv", index=False, float_format="%.10g")
        self.pairs.to_csv(out / "pairs.csv", index=False, float_format="%.10g")
        from .answer import leaderboard_screen

        (out / "leaderboard.md").write_text("# Leaderboard\n\n```\n" + leaderboard_screen(self) + "\n```\n\n"
                                            "Every family, the audit (pairs.csv: every pair):\n\n```\n" + self.text()
                                            + "\n```\n\n![leaderboard](leaderboard.png)\n")
        leaderboard_figure(self.models, out / "leaderboard.png", self.delta)


def _ranks(low, high) -> str:
    return str(low) if low == high else f"{low}-{high}"


def correctness(truth, predictions: dict, classes=None, max_classes=MAX_CLASSES, max_rows=MAX_ROWS):
    """(X, read, notes): X (n, k) whether model m is right on row i, each model's column checked as
    ``covstudy.evaluate`` checks ``predicted`` (``data.prepare``: missing values, a label that never occurs in
    truth, 1 against "1", the stated ``classes``, ``max_classes`` and ``max_rows``), the read line, the notes."""
    t = pd.Series(truth)
    if classes is not None:
        binary = len(classes.split(",") if isinstance(classes, str) else list(classes)) == 2
    else:
        binary = t.dropna().nunique() == 2
    # a binary problem's positive class only codes the labels here (accuracy has none): any label will do
    anchor = t.dropna().iloc[0] if binary and t.notna().any() else None
    cols, notes, read = [], [], ""
    for name, col in predictions.items():
        d = prepare(truth, predicted=pd.Series(col).rename(str(name)), classes=classes, positive=anchor,
                    max_classes=max_classes, max_rows=max_rows)
        cols.append(d.predicted == d.truth)
        notes += [note for note in d.notes if note not in notes]
        d.positive = None  # the anchor coded the labels; accuracy has no positive class to name
        read = d.read()
    return np.column_stack(cols), read, tuple(notes)


def leaderboard(truth, predictions: dict, delta: float = 0.05, reps: int = 400, seed: int = 0,
                audit: bool = True, classes=None, max_classes: int = MAX_CLASSES,
                max_rows: int = MAX_ROWS, budget=None, progress: bool = False) -> Leaderboard:
    """The leaderboard of ``predictions`` (model name -> predicted labels) against ``truth``; ``classes``,
    ``max_classes``, ``max_rows`` and ``budget`` (CPU-s; default cost.default_budget()) as for
    ``covstudy.evaluate``: the forecast (``forecast``) is made once the rows are read, before the intervals
    and the audit; past the budget the audit's test sets are cut (``cut`` says so). ``progress``: print the
    forecast on stderr."""
    from .cost import budget_value, leaderboard_plan

    if not isinstance(predictions, dict):
        raise ValueError(f"predictions: a dict of model name -> predicted labels, got {type(predictions).__name__}")
    k = len(predictions)
    if not 2 <= k <= MAX_MODELS:
        raise ValueError(f"--model: give 2 to {MAX_MODELS} models, got {k}")
    delta = float(validate.interval("--delta", validate.scalar("--delta", delta), 0.0, 1.0, True, True))
    audit = validate.flag("audit", audit)
    reps = validate.whole("--reps", reps, 1, MAX_REPS)
    seed = validate.seed(seed)
    budget = None if budget is None else budget_value(budget)
    X, read, notes = correctness(truth, predictions, classes, validate.whole("max_classes", max_classes, 2),
                                 validate.whole("max_rows", max_rows, 1))
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"truth: a leaderboard needs at least 2 rows, got {n}")
    forecast, reps, cut = leaderboard_plan(n, k, reps, audit, budget)
    if progress:
        import sys

        print(f"covstudy-evaluate: forecast: ~{forecast:.0f} CPU-s{f' ({cut})' if cut else ''}", file=sys.stderr)
    correct, both, _ = sufficient(X[None])
    fam = max_t(correct, both, n, delta)
    sure = exact_bonferroni(correct, both, n, delta)  # guaranteed: the pairs and rank sets by proof
    claims = holm(correct, both, n, delta).claim[0]
    low, high = wilson(correct[0], n, delta)
    names = list(predictions)
    models = pd.DataFrame({"model": names, "correct": correct[0].astype(int), "n": n, "accuracy": correct[0] / n,
                           "lower": low, "upper": high, "rank_low": fam.rank_low[0], "rank_high": fam.rank_high[0],
                           "guaranteed_rank_low": sure.rank_low[0], "guaranteed_rank_high": sure.rank_high[0]})
    first, second = pairs(k)
    table = pd.DataFrame({"first": [names[i] for i in first], "second": [names[j] for j in second],
                          "difference": (correct[0, first] - correct[0, second]) / n,
                          "lower": fam.lower[0], "upper": fam.upper[0], "holm": claims,
                          "guaranteed_lower": sure.lower[0], "guaranteed_upper": sure.upper[0]})
    result = Leaderboard(models.sort_values("accuracy", ascending=False, kind="stable").reset_index(drop=True),
                         table, None, delta, read, notes, forecast, cut)
    if audit and reps:
        result.audit = plug_in_audit(X, delta, reps, seed)
    return result


def plug_in_audit(X: np.ndarray, delta: float, reps: int, seed: int) -> dict:
    """Family and rank-set coverage of max-t over ``reps`` test sets resampled from X, truth the observed accuracies."""
    n, k = X.shape
    rng = stream(seed, audit="leaderboard", n=n, k=k)
    a = X.mean(axis=0)
    first, second = pairs(k)
    d = a[first] - a[second]
    lo = 1 + (a[None, :] > a[:, None]).sum(axis=1)
    hi = k - (a[None, :] < a[:, None]).sum(axis=1)
    sums = {"family_coverage": 0.0, "rank_coverage": 0.0}
    block = max(1, 2_000_000 // (n * k))
    for start in range(0, reps, block):
        r = min(block, reps - start)
        rows = X[rng.integers(0, n, size=(r, n))]
        c, b, _ = sufficient(rows)
        values = per_test_set(max_t(c, b, n, delta, points=AUDIT_POINTS), d, lo, hi)
        for m in sums:
            sums[m] += float(values[m].sum())
    out = {"reps": reps}
    for m, s in sums.items():
        out[m] = s / reps
        out[f"{m}_mcse"] = float(np.sqrt(out[m] * (1 - out[m]) / reps))
    return out
