"""The many_binormal design: k classifiers score the same m positives and n negatives (a leaderboard of AUCs).

A case's k scores are jointly normal with correlation R (exchangeable ``rho``): the negatives'
N(0, R), the positives' N(μ, R) with μ_c = √2·Φ⁻¹(AUC_c), so classifier c has AUC
Φ(μ_c/√2) = AUC_c (the equal-variance binormal model; designs/binormal.py is the one-classifier
case). The estimands are every pairwise difference AUC_i - AUC_j and every classifier's rank, as
in designs/many_models.py. Monte Carlo only (continuous scores cannot be enumerated), one stream
keyed by the point. Not in ``DESIGNS``, for the reason many_models is not. Reference: Hanley &
McNeil (1983), "A method of comparing the areas under receiver operating characteristic curves
derived from the same cases".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .. import validate
from ..seeds import stream
from .many_models import exchangeable, pairs, true_ranks

BLOCK_CELLS = 4_000_000  # test sets × cases × k drawn at once


@dataclass(frozen=True)
class ManyBinormal:
    """k classifiers' AUCs, the positives m and negatives n, and the exchangeable latent correlation rho."""

    aucs: tuple[float, ...]
    n_pos: int
    n_neg: int
    rho: float = 0.0

    def __post_init__(self):  # a design that cannot work is refused when it is made
        problem = self.check()
        if problem:
            raise ValueError(problem)

    @property
    def k(self) -> int:
        return len(self.aucs)

    def check(self, exact: bool = False) -> str | None:
        try:
            if validate.not_numbers(self.aucs):
                raise TypeError
            a = np.asarray(self.aucs, dtype=float)
        except (TypeError, ValueError):
            return f"aucs: give at least 2 classifiers' AUCs, numbers in (0, 1), got {self.aucs!r}"
        if validate.not_numbers(self.rho) or not isinstance(self.rho, (int, float, np.integer, np.floating)):
            return f"rho: the latent correlation must be a number, got {self.rho!r}"
        if a.ndim != 1 or a.size < 2:
            return f"aucs: give at least 2 classifiers' AUCs, got {self.aucs!r}"
        if not np.all((a > 0) & (a < 1)):
            return f"aucs: each must be in (0, 1), got {self.aucs!r}"
        for name, v in (("n_pos", self.n_pos), ("n_neg", self.n_neg)):
            if isinstance(v, bool) or not (isinstance(v, (int, np.integer)) and 2 <= v <= 10**5):
                return f"{name}: must be a whole number in [2, 100,000], got {v!r}"
        if not -1 / (self.k - 1) < self.rho < 1:
            return f"rho: the latent correlation must be in ({-1 / (self.k - 1):.3g}, 1), got {self.rho!r}"
        if exact:
            return "reps: many_binormal is Monte Carlo only (continuous scores cannot be enumerated): give reps"
        return None

    def differences(self) -> np.ndarray:
        a = np.asarray(self.aucs, dtype=float)
        first, second = pairs(self.k)
        return a[first] - a[second]

    def ranks(self) -> tuple[np.ndarray, np.ndarray]:
        return true_ranks(self.aucs)

    def identity(self) -> dict:
        return {"design": "many_binormal", "aucs": list(self.aucs), "n_pos": self.n_pos, "n_neg": self.n_neg,
                "rho": self.rho}

    def simulate(self, reps: int, seed: int):
        """Yield blocks (scores_pos (r, k, m), scores_neg (r, k, n)) of test sets."""
        rng = stream(seed, **self.identity())
        root = np.linalg.cholesky(exchangeable(self.k, self.rho))
        mu = math.sqrt(2) * special.ndtri(np.asarray(self.aucs, dtype=float))
        block = max(1, BLOCK_CELLS // ((self.n_pos + self.n_neg) * self.k))
        for start in range(0, reps, block):
            r = min(block, reps - start)
            neg = rng.standard_normal((r, self.n_neg, self.k)) @ root.T
            pos = rng.standard_normal((r, self.n_pos, self.k)) @ root.T + mu
            yield np.swapaxes(pos, 1, 2), np.swapaxes(neg, 1, 2)
