"""Multi-class designs: coverage and expected width against the number of classes K."""

from __future__ import annotations

import itertools
import textwrap

import numpy as np

from .coverage import coverage_panels
from .kind import Plot, describe, estimand, file_stem, pick, register_plot
from .style import LABELS, _fmt
from .width import width_panels

LABELS.setdefault("K", "number of classes K")


def _operating_points(sub) -> list[dict]:
    """Up to three recalls × three imbalances of the table (each figure is drawn at one of them)."""
    return [{"recall": r, "imbalance": g} for r, g in itertools.product(pick(sub["recall"]), pick(sub["imbalance"]))]


def _wrap(text: str) -> str:
    return textwrap.fill(text, 80)  # the figures are narrow; a long description would be cut off


def _at(sub, sel):
    keep = np.ones(len(sub), dtype=bool)
    for key, value in sel.items():
        if not isinstance(value, list):
            keep &= np.isclose(sub[key].to_numpy(float), value)
    return sub[keep]


@register_plot
class CoverageVsK(Plot):
    """Coverage against the number of classes K at fixed n, recall and imbalance, one panel per method."""

    name, axes, position = "coverage_vs_K", ("K", "n", "recall", "imbalance"), 22

    def selections(self, sub, combo):
        if sub["K"].nunique() < 2:
            return []
        return [{"n": n, **op} for op in _operating_points(sub) for n in pick(sub["n"])]

    def stem(self, combo, sel):  # the metric first: one figure per metric of the study
        return f"{estimand(combo)[1]}_" + file_stem(self.name, combo, **sel)

    def draw(self, sub, combo, sel, colors, order):
        return coverage_panels(_at(sub, sel), "K", combo, colors, order,
                               title=f"Coverage vs number of classes K\n{_wrap(describe(combo, **sel))}")

    def caption(self, sub, combo, sel):
        return f"Coverage vs the number of classes K at {describe(combo, **sel)}."


@register_plot
class WidthVsK(Plot):
    """Expected width against K, methods overlaid, one panel per n."""

    name, axes, position = "width_vs_K", ("K", "n", "recall", "imbalance"), 42

    def selections(self, sub, combo):
        if sub["K"].nunique() < 2:
            return []
        return [{"n": pick(sub["n"]), **op} for op in _operating_points(sub)]

    def stem(self, combo, sel):
        return f"{estimand(combo)[1]}_" + file_stem(self.name, combo, recall=sel["recall"], imbalance=sel["imbalance"])

    def draw(self, sub, combo, sel, colors, order):
        at = {k: v for k, v in sel.items() if k != "n"}
        return width_panels(_at(sub, at), "K", "n", sel["n"], combo, colors, order,
                            title=f"Expected width vs number of classes K\n{_wrap(describe(combo, **at))}")

    def caption(self, sub, combo, sel):
        at = {k: v for k, v in sel.items() if k != "n"}
        return f"Expected interval width vs K at n = {', '.join(map(_fmt, sel['n']))}, {describe(combo, **at)}."
