"""``covstudy-evaluate --judge COL``: a judge (an LLM autorater) labelled every row, humans some.

Rows whose truth is empty are the unlabelled ones. ``split`` separates them before ``data.prepare``
(which sees the labelled rows with the judge as their predicted label, so the judge's agreement,
sensitivity (recall) and specificity are reported as usual); ``spec`` adds the metric
``judged_rate``, the rate of the positive truth label over all N rows, with the judged design's
methods (docs/judged.md) and Wilson and Clopper–Pearson on the human labels alone. Its audit
searches the (1 - delta) box of (p, sensitivity, specificity) around the plug-in point (its three
sides at level (1 - delta)^(1/3) each), with the labelled rows assumed a random sample (the
``random`` sampling of designs/judged.py). Hooks elsewhere: ``result.evaluate(judge=...)`` and the
``--judge`` option of ``cli``.
"""

from __future__ import annotations

import numpy as np

from .data import InputError, _key, _labels, _missing, _values
from .metrics import Spec

METRIC = "judged_rate"
CLASSICAL = (("wilson", "proportion", "proportion.wilson"),
             ("clopper_pearson", "proportion", "proportion.clopper_pearson"))


def split(truth, judge, others: dict):
    """(labelled truth, labelled judge, unlabelled judge labels): rows with an empty truth are unlabelled.

    The judge must label every row; at least one row must be unlabelled and two labelled; the other
    columns (predicted, scores, groups, ...) do not go with a judge."""
    given = [k for k, v in others.items() if v is not None]
    if given:
        raise InputError(f"judge: give it with truth only (the judge is the rows' predicted label), not with {given[0]}")
    t_label, t = _values("truth", truth)
    j_label, j = _values("judge", judge)
    if j.size != t.size:
        raise InputError(f"{j_label}: {j.size} values, but {t_label} has {t.size}")
    if np.any(_missing(j)):
        raise InputError(f"{j_label}: {int(np.sum(_missing(j)))} empty value(s); the judge must label every row")
    empty = _missing(t)
    if not empty.any():
        raise InputError(f"{t_label}: no empty values, so no unlabelled rows for the judge; use --predicted {j_label}")
    if (~empty).sum() < 2:
        raise InputError(f"{t_label}: {int((~empty).sum())} labelled row(s); need at least 2 with a human label")
    return _named(truth, t_label, t[~empty]), _named(judge, j_label, j[~empty]), j[empty]


def _named(original, label, values):
    """``values`` keeping the column's name (a pandas Series' name) for the messages of ``prepare``."""
    try:
        import pandas as pd

        if isinstance(original, pd.Series):
            return pd.Series(values, name=label)
    except ImportError:
        pass
    return values


def spec(d, unlabelled, delta) -> Spec:
    """The ``judged_rate`` metric of ``d`` (the labelled rows, judge as predicted) and the unlabelled judge labels."""
    from ..methods.binomial import wilson
    from ..methods.judged import stratified_ppi

    if not d.binary:
        raise InputError(f"judge: {METRIC} needs binary labels; {d.names['truth']} has {len(d.classes)} classes")
    notes = []
    lab = _key(_labels(d.names["predicted"], unlabelled, notes))
    code = {str(c): i for i, c in enumerate(d.classes)}  # d.classes: [negative, positive], positive coded 1
    extra = sorted({str(v) for v in lab.tolist()} - set(code))
    if extra:
        raise InputError(f"{d.names['predicted']}: unlabelled rows hold label(s) {', '.join(map(repr, extra[:5]))} "
                         f"that never occur among the labelled rows ({', '.join(map(repr, map(str, d.classes)))})")
    u = np.array([code[str(v)] for v in lab.tolist()])
    t, j = d.truth, d.predicted
    tp, fn = int(np.sum((t == 1) & (j == 1))), int(np.sum((t == 1) & (j == 0)))
    fp, tn = int(np.sum((t == 0) & (j == 1))), int(np.sum((t == 0) & (j == 0)))
    u_pos, u_neg = int(u.sum()), int(u.size - u.sum())
    n, N = d.n, d.n + u.size
    level = (1 - delta) ** (1 / 3)
    p_lo, p_hi = (float(v) for v in stratified_ppi(tp, fn, fp, tn, u_pos, u_neg, 1 - level))
    side = {}
    for name, k, m in (("sensitivity", tp, tp + fn), ("specificity", tn, tn + fp)):
        lo, hi = (float(v) for v in wilson(k, m, 1 - level)) if m else (0.0, 1.0)
        side[name] = (lo, hi, k / m if m else 0.5)
    w = (tp + fp + u_pos) / N
    estimate = w * (tp / (tp + fp) if tp + fp else 0.0) + (1 - w) * (fn / (fn + tn) if fn + tn else 0.0)
    box = {"p": (min(p_lo, estimate), max(p_hi, estimate)),
           **{name: (lo, hi) for name, (lo, hi, _) in side.items()}}
    at = {"p": estimate, **{name: min(max(x, lo), hi) for name, (lo, hi, x) in side.items()}}
    from ..methods import methods

    judged = [(m.short, "judged", q) for q, m in methods("judged").items()]
    return Spec(METRIC, estimate, dict(tp=tp, fn=fn, fp=fp, tn=tn, u_pos=u_pos, u_neg=u_neg, design="judged"),
                [*CLASSICAL, *judged], design="judged", coverage_metric="rate", points=[], box=box, at=at,
                region_text=(f"over the (1 − δ) box of p, the judge's sensitivity and specificity (each side at "
                             f"{level:.4f}; the {n} labelled rows taken as a random sample of the {N})"),
                plug_in=(f"{N} examples, {n} labelled by humans: p = {estimate:.4g}, judge sensitivity = "
                         f"{at['sensitivity']:.4g}, specificity = {at['specificity']:.4g}"),
                point_of=lambda c: {"examples": N, "labelled": n, "p": float(c["p"]),
                                    "sensitivity": float(c["sensitivity"]), "specificity": float(c["specificity"])})
