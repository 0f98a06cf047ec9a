"""A guaranteed leaderboard: every pair's exact McNemar-compatible interval at δ/P, and the rank sets they imply.

For k models on one test set, each of the P = k(k - 1)/2 pairwise differences d_ij = a_i - a_j gets the interval
of ``paired_exact_mcnemar`` (methods/melded.py, Fay & Lumbard 2021), which covers with probability >= 1 - δ/P at
every truth; by the union bound all P cover together with probability >= 1 - δ (Bonferroni's product of the P
coordinates' exact intervals, the simultaneous region projected onto each pair). Rank sets come from the claims
those intervals make (``leaderboard.from_intervals``): when every interval covers, every model's true rank is in
its set (Mogstad, Romano, Shaikh & Wilhelm 2024), so the rank sets hold together with probability >= 1 - δ too.
"""

from __future__ import annotations

import numpy as np

from .leaderboard import from_intervals, paired_cells
from .melded import paired_exact_mcnemar
from .registry import register


@register("leaderboard_exact_bonferroni", display="exact McNemar, Bonferroni", family="exact", guaranteed=True,
          takes="leaderboard",
          reference="Fay & Lumbard (2021), Stat. Med. 40, 1147-1159 (each pair) at delta/P (Bonferroni); rank sets: "
                    "Mogstad, Romano, Shaikh & Wilhelm (2024)")
def exact_bonferroni(correct, both, n, delta):
    """Each pair's exact McNemar-compatible interval at delta/P, P = k(k - 1)/2: simultaneous by the union bound."""
    k = np.shape(correct)[-1]
    cells = np.broadcast_arrays(*paired_cells(correct, both, n))
    lower, upper = paired_exact_mcnemar(*cells, np.full(cells[0].shape, delta / (k * (k - 1) // 2)))
    return from_intervals(lower, upper, k)
