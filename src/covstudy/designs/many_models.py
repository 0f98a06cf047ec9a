"""The many_models design: k models scored on the same n examples (a leaderboard).

Each example i gives every model m a latent score Z_im, Z_i· ~ N(0, R) (R a correlation matrix:
exchangeable, R = (1 - rho)·I + rho·11ᵀ, or given), and model m is correct on example i when
Z_im < Φ⁻¹(a_m): a Gaussian copula with accuracies a_1..a_k and latent correlation R. Examples are
independent. The estimands are every pairwise difference d_ij = a_i - a_j (i < j, in ``pairs``
order) at once, and every model's rank (1 = the most accurate; tied models share the range
[1 + #{j: a_j > a_i}, k - #{j: a_j < a_i}]).

An outcome is one test set's correctness matrix X (n × k); the normal-theory methods read only its
sufficient statistics, ``correct`` (k counts) and ``both`` (k × k, examples both models got right),
the bootstrap methods the matrix itself.

Engines. Monte Carlo draws X directly (exchangeable R: one common factor, Z = √rho·F + √(1 - rho)·E;
a given R: its Cholesky factor), in blocks of test sets from one stream keyed by the point. Exact:
the outcome is the vector of counts of the 2^k correctness patterns, Multinomial(n; π), with
C(n + 2^k - 1, 2^k - 1) outcomes; that is at most EXACT_LIMIT only for n <= 22 at k = 3, n <= 9 at
k = 4 and n <= 5 at k = 5, so the exact engine is the check of the Monte Carlo one, not the study's. π comes from Gauss–Hermite quadrature over the common factor (exchangeable rho >= 0) or from
scipy's multivariate normal cdf (a given R, k <= 3).

This design is not in ``designs.registry.DESIGNS``: its methods return a family of intervals, claims
and rank sets per test set, not one interval, so the engine's one-interval measures do not apply;
its door and measures are ``leaderboard/coverage.py`` (as the band and sequential designs have
theirs). References: Nelsen (2006), "An introduction to copulas"; Genz & Bretz (2009), "Computation
of multivariate normal and t probabilities".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .. import validate
from .._lazy import stats
from ..seeds import stream

EXACT_LIMIT = 2_000_000  # pattern-count outcomes of one exact point
BLOCK_CELLS = 4_000_000  # test sets × n × k drawn at once
QUADRATURE = 96  # Gauss–Hermite nodes over the common factor


def pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """(first, second): the k(k - 1)/2 pairs i < j in row-major order."""
    first, second = np.triu_indices(k, 1)
    return first, second


def spaced(k: int, top: float, spread: float) -> np.ndarray:
    """Accuracies top, ..., top - spread, evenly spaced (spread 0: k equal models)."""
    return top - spread * np.arange(k) / max(k - 1, 1)


def exchangeable(k: int, rho: float) -> np.ndarray:
    """The k × k correlation matrix with every off-diagonal entry rho."""
    return (1 - rho) * np.eye(k) + rho * np.ones((k, k))


def true_ranks(accuracies) -> tuple[np.ndarray, np.ndarray]:
    """Each model's true rank range: (1 + #{j: a_j > a_i}, k - #{j: a_j < a_i})."""
    a = np.asarray(accuracies, dtype=float)
    greater = (a[None, :] > a[:, None]).sum(axis=1)
    less = (a[None, :] < a[:, None]).sum(axis=1)
    return 1 + greater, a.size - less


@dataclass(frozen=True)
class ManyModels:
    """k models' accuracies, the test-set size n and the latent correlation (``rho``, or ``correlation``)."""

    accuracies: tuple[float, ...]
    n: int
    rho: float = 0.0
    correlation: tuple[tuple[float, ...], ...] | None = None

    def __post_init__(self):  # a design that cannot work is refused when it is made, not deep in a study
        problem = self.check()
        if problem:
            raise ValueError(problem)

    @property
    def k(self) -> int:
        return len(self.accuracies)

    def check(self, exact: bool = False) -> str | None:
        """One line naming the bad field and its valid range, or None."""
        try:
            if validate.not_numbers(self.accuracies):
                raise TypeError
            a = np.asarray(self.accuracies, dtype=float)
        except (TypeError, ValueError):
            return f"accuracies: give at least 2 models' accuracies, numbers in (0, 1), got {self.accuracies!r}"
        if a.ndim != 1 or a.size < 2:
            return f"accuracies: give at least 2 models' accuracies, got {self.accuracies!r}"
        if validate.not_numbers(self.rho) or not isinstance(self.rho, (int, float, np.integer, np.floating)):
            return f"rho: the latent correlation must be a number, got {self.rho!r}"
        if not np.all((a > 0) & (a < 1)):
            return f"accuracies: each must be in (0, 1), got {self.accuracies!r}"
        if isinstance(self.n, bool) or not (isinstance(self.n, (int, np.integer)) and 1 <= self.n <= 10**6):
            return f"n: the test-set size must be a whole number in [1, 1,000,000], got {self.n!r}"
        if self.correlation is None:
            if not -1 / (self.k - 1) < self.rho < 1:
                return f"rho: the latent correlation must be in (-1/(k - 1), 1) = ({-1 / (self.k - 1):.3g}, 1), got {self.rho!r}"
        else:
            R = np.asarray(self.correlation, dtype=float)
            if R.shape != (self.k, self.k) or not np.allclose(R, R.T) or not np.allclose(np.diag(R), 1):
                return f"correlation: must be a symmetric {self.k} × {self.k} matrix with unit diagonal"
            if np.linalg.eigvalsh(R)[0] <= 1e-12:
                return "correlation: must be positive definite"
        if exact:
            count = self.outcome_count()
            if count > EXACT_LIMIT:
                return (f"n: exact many_models coverage needs at most {EXACT_LIMIT:,} outcomes (C(n + 2^k - 1, 2^k - 1)), "
                        f"got {count:,} at k = {self.k}, n = {self.n} (use Monte Carlo: give reps)")
            if self.correlation is None and self.rho < 0:
                return f"rho: the exact engine integrates over a common factor, so rho must be >= 0, got {self.rho!r}"
        return None

    def outcome_count(self) -> int:
        cells = 2**self.k
        return math.comb(self.n + cells - 1, cells - 1) if self.k <= 6 else math.inf

    def matrix(self) -> np.ndarray:
        return exchangeable(self.k, self.rho) if self.correlation is None else np.asarray(self.correlation, float)

    def differences(self) -> np.ndarray:
        """The true d_ij = a_i - a_j over ``pairs(k)``."""
        a = np.asarray(self.accuracies, dtype=float)
        first, second = pairs(self.k)
        return a[first] - a[second]

    def ranks(self) -> tuple[np.ndarray, np.ndarray]:
        return true_ranks(self.accuracies)

    def identity(self) -> dict:
        """What the random stream is keyed by."""
        return {"design": "many_models", "accuracies": list(self.accuracies), "n": self.n, "rho": self.rho,
                "correlation": None if self.correlation is None else [list(r) for r in self.correlation]}

    # ------------------------------------------------------------------ Monte Carlo

    def simulate(self, reps: int, seed: int):
        """Yield blocks of test sets, each a bool array X (r, n, k); r·n·k <= BLOCK_CELLS."""
        rng = stream(seed, **self.identity())
        t = stats.norm.ppf(np.asarray(self.accuracies, dtype=float))
        block = max(1, BLOCK_CELLS // (self.n * self.k))
        # one common factor for an exchangeable rho >= 0; a negative rho or a given R: R's Cholesky factor
        chol = None if self.correlation is None and self.rho >= 0 else np.linalg.cholesky(self.matrix())
        for start in range(0, reps, block):
            r = min(block, reps - start)
            if chol is None:
                factor = rng.standard_normal((r, self.n, 1))
                z = math.sqrt(self.rho) * factor + math.sqrt(1 - self.rho) * rng.standard_normal((r, self.n, self.k))
            else:
                z = rng.standard_normal((r, self.n, self.k)) @ chol.T
            yield z < t

    # ------------------------------------------------------------------ exact

    def pattern_probabilities(self) -> np.ndarray:
        """π over the 2^k patterns; pattern p has model m correct when bit m of p is set."""
        k = self.k
        bits = (np.arange(2**k)[:, None] >> np.arange(k)) & 1
        t = stats.norm.ppf(np.asarray(self.accuracies, dtype=float))
        if self.correlation is None:
            x, w = np.polynomial.hermite_e.hermegauss(QUADRATURE)
            w = w / w.sum()
            s = math.sqrt(self.rho)
            p = stats.norm.cdf((t[None, :] - s * x[:, None]) / math.sqrt(1 - self.rho))  # (nodes, k)
            like = np.where(bits[:, None, :] == 1, p[None], 1 - p[None]).prod(axis=2)  # (patterns, nodes)
            return like @ w
        return orthant_probabilities(t, self.matrix(), bits)

    def exact(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every outcome's (correct (J, k), both (J, k, k)) and its probability (J,)."""
        k, n = self.k, self.n
        cells = 2**k
        counts = compositions(n, cells)
        pi = self.pattern_probabilities()
        log = special.gammaln(n + 1) - special.gammaln(counts + 1).sum(axis=1) + special.xlogy(counts, pi).sum(axis=1)
        bits = ((np.arange(cells)[:, None] >> np.arange(k)) & 1).astype(float)
        correct = counts @ bits
        both = np.einsum("jp,pa,pb->jab", counts.astype(float), bits, bits)
        return correct, both, np.exp(log)


def orthant_probabilities(t, R, bits) -> np.ndarray:
    """P(Z_m < t_m where bit m is set, Z_m >= t_m elsewhere), Z ~ N(0, R): scipy's multivariate normal cdf
    after flipping the signs of the models that are wrong (Genz's algorithm)."""
    out = np.empty(len(bits))
    for p, row in enumerate(bits):
        sign = np.where(row == 1, 1.0, -1.0)
        out[p] = stats.multivariate_normal.cdf(sign * t, mean=np.zeros(len(t)), cov=R * np.outer(sign, sign),
                                               abseps=1e-10, releps=1e-10)
    return out / out.sum()


def compositions(n: int, cells: int) -> np.ndarray:
    """Every vector of ``cells`` non-negative integers summing to n, shape (C(n + cells - 1, cells - 1), cells)."""
    if cells == 1:
        return np.array([[n]])
    rows = []
    for first in range(n + 1):
        rest = compositions(n - first, cells - 1)
        rows.append(np.column_stack([np.full(len(rest), first), rest]))
    return np.concatenate(rows)


def sufficient(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(correct (r, k), both (r, k, k), n) of test sets X (r, n, k); exact integer sums in float64."""
    Xf = X.astype(np.float64)
    return Xf.sum(axis=1), np.matmul(np.swapaxes(Xf, 1, 2), Xf), X.shape[1]
