"""What a figure kind is, the registry of kinds, and the helpers kinds share to pick and name figures.

A figure kind declares the grid columns it needs (``axes``); for each combination of delta,
side and engine (and design, metric where the table is split by them) that has values in all
of them, it chooses its selections — the fixed grid values of each figure, possibly none —
and draws, names and captions one figure per selection. New kinds register with
``@register_plot``; nothing else needs to know about them.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .style import _fmt

MAX_FIXED = 3  # at most this many fixed n (or p) values per figure kind and combination


class Plot:
    """A figure kind. ``name`` starts its file names; ``axes`` are the grid columns it needs;
    ``position`` is its place among the figures of one combination (kinds that never draw for
    the same rows may share one)."""

    name: ClassVar[str]
    axes: ClassVar[tuple[str, ...]]
    position: ClassVar[int]

    def applies(self, sub: pd.DataFrame) -> bool:
        """Whether every row of the combination has a value in each of the kind's axes."""
        return all(c in sub and sub[c].notna().all() for c in self.axes)

    def selections(self, sub: pd.DataFrame, combo: dict) -> list[dict]:
        """One dict per figure to draw: the fixed grid values that pick its rows (empty: none)."""
        raise NotImplementedError

    def draw(self, sub: pd.DataFrame, combo: dict, sel: dict, colors: dict, order: list) -> Figure:
        """The figure of one selection; ``colors`` and ``order`` are the methods' colours and display order."""
        raise NotImplementedError

    def caption(self, sub: pd.DataFrame, combo: dict, sel: dict) -> str:
        """The sentence under the figure in report.md (and in figures/index.csv)."""
        raise NotImplementedError

    def stem(self, combo: dict, sel: dict) -> str:
        """The file name without extension: kind, fixed values, delta, side, engine[, design]."""
        return file_stem(self.name, combo, **sel)


PLOTS: list[Plot] = []  # in drawing order


def register_plot(cls: type[Plot]) -> type[Plot]:
    """Class decorator: add an instance of the figure kind to ``PLOTS``."""
    PLOTS.append(cls())
    PLOTS.sort(key=lambda kind: kind.position)  # stable: registration order breaks ties
    return cls


# --------------------------------------------------------------------------- names and captions

def describe(combo: dict, **fixed) -> str:
    """The combination and fixed values in words, for titles and captions."""
    parts = [f"{k} = {_fmt(v) if isinstance(v, (int, float, np.number)) else v}" for k, v in fixed.items()]
    parts.append(f"nominal 1 − δ = {_fmt(1 - combo['delta'])}")
    engine = combo["engine"]
    reps = f" (reps = {combo['reps']})" if combo.get("reps") else ""
    parts.append("exact" if engine == "exact" else f"Monte Carlo{reps}" if engine == "mc" else engine)
    parts.append(combo["side"])
    if "design" in combo:
        parts.append(f"{combo['design']} design")
    if "metric" in combo:
        parts.append(f"metric {combo['metric']}")
    return ", ".join(parts)


def file_stem(kind: str, combo: dict, **fixed) -> str:
    """kind_<fixed values>_delta<δ>_<side>_<engine>[_<design>], safe as a file name."""
    bits = [kind, *(f"{k}{_fmt(v) if not isinstance(v, str) else v}" for k, v in fixed.items()),
            f"delta{_fmt(combo['delta'])}", str(combo["side"]), str(combo["engine"]), combo.get("design", "")]
    bits = [b for b in bits if b]
    return "_".join(bits).replace(" ", "-").replace("/", "-")


def estimand(combo: dict) -> tuple[str, str]:
    """(name for captions, file-name prefix) of a confusion-matrix combination's metric."""
    metric = combo.get("metric", "balanced_accuracy")
    return metric.replace("_", " ").capitalize(), "ba" if metric == "balanced_accuracy" else metric


# --------------------------------------------------------------------------- selections

def pick(values, targets=None, k: int = MAX_FIXED) -> list:
    """Up to k of the sorted ``values``: nearest to each target, else spread evenly (ends included)."""
    values = sorted(set(values))
    if len(values) <= k:
        return values
    if targets is not None:
        chosen = []
        for t in targets:
            best = min((v for v in values if v not in chosen), key=lambda v: (abs(v - t), v))
            chosen.append(best)
        return sorted(chosen[:k])
    idx = np.unique(np.round(np.linspace(0, len(values) - 1, k)).astype(int))
    return [values[i] for i in idx]


def fixed_n(sub: pd.DataFrame) -> list:
    """The n at which to draw curves over p: up to MAX_FIXED of those with two or more p, spread out."""
    p_per_n = sub.groupby("n")["p"].nunique()
    return pick(p_per_n[p_per_n >= 2].index)


def fixed_p(sub: pd.DataFrame) -> list:
    """The p at which to draw curves over n: of those with three or more n, the nearest to 0.2, 0.05, 0.5."""
    n_per_p = sub.groupby("p")["n"].nunique()
    return pick(n_per_p[n_per_p >= 3].index, targets=(0.2, 0.05, 0.5))


def has_exact(sub: pd.DataFrame, combo: dict) -> bool:
    """Whether Monte Carlo rows all carry the exact coverage of their cell (engine=both, or joined)."""
    return combo["engine"] == "mc" and sub["exact_coverage"].notna().all()
