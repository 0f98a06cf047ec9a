"""The calibration design: a classifier's scores, a true calibration curve, and binned labels.

A test set is n examples with scores s drawn from a score distribution (axis ``scores``: ``beta``,
s ~ Beta(a, b) with axes ``score_a``, ``score_b``; or ``binormal``, a binormal model's probabilities,
below) and labels Y | s ~ Bernoulli(c(s)), where the
true calibration curve is logit-linear, c(s) = expit(intercept + slope·logit(s)) (Cox 1958, "Two
further applications of a model for binary regression", Biometrika 45): slope = 1 and intercept = 0
is perfect calibration; slope < 1 an over-confident classifier (its scores more extreme than the
frequencies), slope > 1 an under-confident one; the intercept shifts every frequency.

**Binormal scores** (axes ``auc``, ``prevalence`` = π): in the equal-variance binormal model a
latent x is N(μ, 1) for positives and N(0, 1) for negatives, μ = √2·Φ⁻¹(auc) (the model's AUC is
Φ(μ/√2)); the score is the posterior probability P(Y = 1 | x), whose logit is logit π + μx - μ²/2. So
logit s is a two-normal mixture, π·N(logit π + μ²/2, μ²) + (1 - π)·N(logit π - μ²/2, μ²), and with the
perfect curve (slope 1, intercept 0) the labels drawn as Bernoulli(s) give exactly the binormal
model's joint law of (x, Y): the scores of a calibrated classifier of that model, whose mean is π.

Scores are binned into ``bins`` bins (``binning``): ``equal_width`` (edges j/B) or ``equal_mass``
(edges at the score distribution's quantiles j/B, so each bin holds 1/B of the score distribution; the population
quantiles, not the test set's). A score on an edge falls in the lower bin, as in scikit-learn's
``calibration_curve`` (bins (e_{j-1}, e_j], the first [0, e_1]).

Estimands (``truth`` functions here, by quadrature):

* per bin j, the true frequency f_j = E[c(s) | s in bin j] = ∫_bin c(s)·beta(s) ds / w_j, with
  w_j = P(s in bin j);
* the true binned ECE, Σ_j w_j·|f_j - m_j| with m_j = E[s | s in bin j], the mean score of the bin;
* the true unbinned ECE, E|c(s) - s| (the L1 calibration error of Kumar, Liang & Ma 2019,
  "Verified uncertainty calibration"), which the binned one bounds from below (Jensen).

The engine's estimand is one bin's frequency (axis ``bin``, 1-based): its outcome is (k, m), the
positives and examples of the bin. With n fixed the bin counts are multinomial, so
m ~ Binomial(n, w_j) and k | m ~ Binomial(m, f_j): ``exact`` enumerates (m, k), and ``simulate``
draws whole test sets (scores, then labels) and bins them, so the agreement of the two checks the
quadrature too. Proportion methods (Wilson, Clopper–Pearson, Jeffreys, ...) give the bin's
interval from (k, m); an empty bin (m = 0) carries no information: the vacuous [0, 1], not valid.
The whole curve and the ECE are the calibration study's (calibration/study.py), by Monte Carlo
from ``draw_test_sets``.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy import special

from .._lazy import integrate, stats
from ..estimands import Estimand, register_estimand
from ..methods.calibration import bin_index
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .registry import register
from .sampling import BLOCK, merge

EXACT_LIMIT = 4_000_000  # (m, k) outcomes of one exact point
TAIL = 2.5e-16  # probability left out of each tail of the bin count's binomial support
BINS_MAX = 200
BINNINGS = ("equal_width", "equal_mass")


SCORES = ("beta", "binormal")


@dataclass(frozen=True)
class ScoreLaw:
    """The score distribution on [0, 1]: Beta(a, b), or a binormal model's probabilities (auc, prevalence)."""

    kind: str = "beta"
    a: float = 2.0
    b: float = 2.0
    auc: float = 0.8
    prevalence: float = 0.3

    @classmethod
    def of(cls, point: dict) -> "ScoreLaw":
        """The law of a design point (``scores``, ``score_a``, ``score_b``, ``auc``, ``prevalence``)."""
        if point.get("scores", "beta") == "beta":
            return cls("beta", float(point["score_a"]), float(point["score_b"]))
        return cls("binormal", auc=float(point["auc"]), prevalence=float(point["prevalence"]))

    def _mixture(self) -> tuple[float, float, float]:
        """(μ, the positives' and the negatives' mean of logit s); both have sd μ."""
        mu = float(np.sqrt(2) * special.ndtri(self.auc))
        base = float(special.logit(self.prevalence))
        return mu, base + mu * mu / 2, base - mu * mu / 2

    def cdf(self, s):
        s = np.asarray(s, dtype=float)
        if self.kind == "beta":
            return stats.beta.cdf(s, self.a, self.b)
        mu, pos, neg = self._mixture()
        with np.errstate(divide="ignore"):
            t = special.logit(s)
        return self.prevalence * special.ndtr((t - pos) / mu) + (1 - self.prevalence) * special.ndtr((t - neg) / mu)

    def pdf(self, s):
        s = np.asarray(s, dtype=float)
        if self.kind == "beta":
            return stats.beta.pdf(s, self.a, self.b)
        mu, pos, neg = self._mixture()
        inside = (s > 0) & (s < 1)
        safe = np.where(inside, s, 0.5)
        t = special.logit(safe)
        dens = (self.prevalence * stats.norm.pdf(t, pos, mu) + (1 - self.prevalence) * stats.norm.pdf(t, neg, mu))
        return np.where(inside, dens / (safe * (1 - safe)), 0.0)

    def ppf(self, q):
        """Quantiles; the binormal's by 120 halvings of a bracket in logit s (40 sd beyond either component's mean)."""
        q = np.asarray(q, dtype=float)
        if self.kind == "beta":
            return stats.beta.ppf(q, self.a, self.b)
        mu, pos, neg = self._mixture()
        lo, hi = np.full(q.shape, min(pos, neg) - 40 * mu), np.full(q.shape, max(pos, neg) + 40 * mu)
        for _ in range(120):
            mid = (lo + hi) / 2
            below = self.cdf(special.expit(mid)) < q
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        return np.where(q <= 0, 0.0, np.where(q >= 1, 1.0, special.expit((lo + hi) / 2)))

    def draw(self, rng: np.random.Generator, size) -> np.ndarray:
        """Scores of the given size (a Beta draw; or the latent class, then logit s from its normal)."""
        if self.kind == "beta":
            return rng.beta(self.a, self.b, size=size)
        mu, pos, neg = self._mixture()
        positive = rng.random(size) < self.prevalence
        return special.expit(np.where(positive, pos, neg) + mu * rng.standard_normal(size))


def curve(s, slope=1.0, intercept=0.0):
    """The true calibration curve c(s) = expit(intercept + slope·logit(s)) (c(0) = 0, c(1) = 1 for slope > 0)."""
    s = np.asarray(s, dtype=float)
    with np.errstate(divide="ignore"):
        return special.expit(intercept + slope * special.logit(s))


def edges(bins: int, binning: str = "equal_width", law: ScoreLaw = ScoreLaw("beta", 1.0, 1.0)) -> np.ndarray:
    """The bins + 1 edges, 0 first and 1 last: j/B (equal width) or the score law's quantiles j/B (equal mass)."""
    q = np.arange(bins + 1) / bins
    e = q.copy() if binning == "equal_width" else law.ppf(q)
    e[0], e[-1] = 0.0, 1.0
    return e


@functools.lru_cache(maxsize=256)
def bin_moments(bins: int, binning: str, law: ScoreLaw, slope: float, intercept: float) -> tuple:
    """Per bin (w_j, f_j, m_j): the bin's probability, true frequency and mean score, by quadrature
    (scipy.integrate.quad of c(s)·p(s) and s·p(s) over the bin, p the score density; w_j from its CDF)."""
    e = edges(bins, binning, law)
    w = np.diff(law.cdf(e))
    pdf = law.pdf
    f, m = np.empty(bins), np.empty(bins)
    for j in range(bins):
        lo, hi = e[j], e[j + 1]
        f[j] = _bin_integral(lambda s: curve(s, slope, intercept), law, lo, hi)
        m[j] = _bin_integral(lambda s: s, law, lo, hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        f, m = np.where(w > 0, f / w, np.nan), np.where(w > 0, m / w, np.nan)
    return w, f, m


QUAD_ERROR = 1e-7  # a bin integral's quadrature error estimate beyond which its warning is passed on


def _bin_integral(g, law: ScoreLaw, lo: float, hi: float) -> float:
    """∫ g(s)·p(s) ds over [lo, hi] by quadrature. A Beta density with a < 1 (b < 1) is singular at 0 (1): a
    bin at that end takes the singular factor s^(a-1) ((1 - s)^(b-1)) as quad's algebraic weight (QAWS), which
    integrates it exactly, where the plain rule stalls at ~1e-6 with a roundoff warning (Beta(0.05, 0.08)
    scores, a model whose probabilities pile up at 0 and 1)."""
    alpha = law.a - 1 if law.kind == "beta" and lo == 0.0 and law.a < 1 else 0.0
    beta = law.b - 1 if law.kind == "beta" and hi == 1.0 and law.b < 1 else 0.0
    if alpha == 0.0 and beta == 0.0:
        return integrate.quad(lambda s: g(s) * law.pdf(s), lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
    log_norm = special.betaln(law.a, law.b)

    def smooth(s):  # p(s) / ((s - lo)^alpha (hi - s)^beta): the Beta density's other factors, smooth on the bin
        return g(s) * np.exp(special.xlogy(law.a - 1 - alpha, s) + special.xlog1py(law.b - 1 - beta, -s) - log_norm)

    with warnings.catch_warnings(record=True) as caught:  # it may flag roundoff at this tolerance, its error
        warnings.simplefilter("always")                    # estimate staying below 1e-7: not the user's concern
        value, error = integrate.quad(smooth, lo, hi, weight="alg", wvar=(alpha, beta), epsabs=1e-13, epsrel=1e-10,
                                      limit=200)
    if error > QUAD_ERROR:
        for w in caught:
            warnings.warn(w.message, w.category, stacklevel=2)
    return value


def true_ece_binned(bins: int, binning: str, law: ScoreLaw, slope: float, intercept: float) -> float:
    """Σ_j w_j·|f_j - m_j|: the binned ECE of the population (bins of probability 0 add nothing)."""
    w, f, m = bin_moments(bins, binning, law, slope, intercept)
    return float(np.sum(np.where(w > 0, w * np.abs(np.nan_to_num(f - m)), 0.0)))


@functools.lru_cache(maxsize=256)
def true_ece(law: ScoreLaw, slope: float, intercept: float) -> float:
    """E|c(s) - s| under the score law, by quadrature split where c(s) = s (where the integrand has a kink)."""
    pdf = law.pdf
    g = lambda s: abs(curve(s, slope, intercept) - s) * pdf(s)  # noqa: E731
    # c(s) = s where logit(s)·(1 - slope) = intercept: at most one crossing inside (0, 1) for slope != 1
    points = []
    if slope != 1:
        points.append(float(special.expit(intercept / (1 - slope))))
    return float(integrate.quad(g, 0, 1, points=points or None, epsabs=1e-14, epsrel=1e-12, limit=400)[0])


@functools.lru_cache(maxsize=256)
def true_smooth_ece(law: ScoreLaw, slope: float, intercept: float, nodes: int = 1 << 20) -> float:
    """The population's smooth ECE (methods/smooth_ece.py): smECE_σ of the law of (s, Y) at its fixed point σ*,
    the residual c(s) - s integrated by the midpoint rule in the score's quantile u (s = F⁻¹(u), ``nodes``
    points) and binned onto the smoothing grid as a test set's residuals are. 0 when c(s) = s."""
    from ..methods import smooth_ece as sm

    if slope == 1 and intercept == 0:
        return 0.0
    u = (np.arange(nodes) + 0.5) / nodes
    if law.kind == "beta":
        s, weight = stats.beta.ppf(u, law.a, law.b), np.full(nodes, 1 / nodes)
    else:  # each normal component of logit s by its own quantiles, weighted by its share
        mu, pos, neg = law._mixture()
        z = special.ndtri(u)
        s = special.expit(np.concatenate([pos + mu * z, neg + mu * z]))
        weight = np.concatenate([np.full(nodes, law.prevalence / nodes), np.full(nodes, (1 - law.prevalence) / nodes)])
    c = sm._cosine_coefficients(sm.binned_residuals(s[None, :], curve(s, slope, intercept)[None, :], weight[None, :]))
    sigma = sm.fixed_point(c)
    return float(sm.smooth_at(c, sigma)[0])


def draw_test_sets(n: int, reps: int, law: ScoreLaw, slope: float, intercept: float,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` test sets of n examples: scores (reps, n) from the law, labels ~ Bernoulli(c(score))."""
    scores = law.draw(rng, (reps, n))
    labels = rng.random((reps, n)) < curve(scores, slope, intercept)
    return scores, labels


def support(m: int, q: float) -> tuple[int, int]:
    """The smallest and largest counts of Binomial(m, q) with each tail beyond them below TAIL."""
    if q <= 0 or q >= 1 or m == 0:
        k = int(round(m * q))
        return k, k
    return int(stats.binom.ppf(TAIL, m, q)), int(stats.binom.isf(TAIL, m, q))


def bin_outcomes(n: int, w: float, f: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (k, m) of one bin with its probability: m ~ Binomial(n, w), k | m ~ Binomial(m, f), on the
    supports carrying all but about 1e-15 of the probability."""
    lo, hi = support(n, w)
    ks, ms, ps = [], [], []
    for m in range(lo, hi + 1):
        klo, khi = support(m, f)
        k = np.arange(klo, khi + 1)
        ks.append(k)
        ms.append(np.full(k.size, m))
        ps.append(stats.binom.pmf(m, n, w) * stats.binom.pmf(k, m, f))
    return np.concatenate(ks), np.concatenate(ms), np.concatenate(ps)


@register
class Calibration(Design):
    name = "calibration"
    data = "calibration"
    axes = (Axis("n", True, 1), Axis("bins", True, 1, BINS_MAX), Axis("bin", True, 1, BINS_MAX),
            Axis("binning", False, 0.0, choices=BINNINGS), Axis("score_a", False, 0.0, 1e3, low_open=True),
            Axis("score_b", False, 0.0, 1e3, low_open=True), Axis("slope", False, 0.0, 20.0, low_open=True),
            Axis("intercept", False, -20.0, 20.0), Axis("scores", False, 0.0, choices=SCORES),
            Axis("auc", False, 0.5, 0.9999, low_open=True), Axis("prevalence", False, 0.0, 1.0, low_open=True,
                                                                high_open=True))
    parametrisations = (("n", "bins", "bin"),)
    optional: ClassVar[dict] = {"binning": "equal_width", "score_a": 2.0, "score_b": 2.0, "slope": 1.0, "intercept": 0.0,
                                "scores": "beta", "auc": 0.8, "prevalence": 0.3}
    BINORMAL = ("scores", "auc", "prevalence")  # a point's stream identity: these with binormal scores, else
    BETA = ("score_a", "score_b")                # these (so Beta points kept their streams when binormal came)
    estimand = "bin_frequency"
    summary = ("n scores ~ Beta(score_a, score_b) or a binormal model's probabilities (scores=binormal: auc, "
               "prevalence), labels ~ Bernoulli(expit(intercept + slope·logit(score))), binned into bins "
               "(equal width or equal mass); estimand: bin's true frequency")
    example: ClassVar[dict] = {"n": 40, "bins": 5, "bin": 4, "slope": 0.6}

    def derive(self, point: dict) -> dict:
        point = {**self.optional, **point}
        return {a.name: point[a.name] for a in self.axes if a.name in point}

    def points(self, grid: dict) -> list[dict]:
        given = [a.name for a in self.axes if grid.get(a.name) is not None]
        return [self.derive(dict(zip(given, combo))) for combo in itertools.product(*(grid[a] for a in given))]

    def moments(self, point: dict) -> tuple[float, float]:
        """(w, f): the probability and the true frequency of the point's bin."""
        w, f, _ = bin_moments(point["bins"], point["binning"], ScoreLaw.of(point), float(point["slope"]),
                              float(point["intercept"]))
        j = point["bin"] - 1
        return float(w[j]), float(f[j])

    def outcome_count(self, point: dict) -> int:
        n = point["n"]
        return (n + 1) * (n + 2) // 2

    def likely_outcomes(self, point: dict) -> float:
        """About the (m, k) the exact engine keeps: each within ~8 standard deviations of its mean."""
        w, f = self.moments(point)
        n = point["n"]
        spread = (16 * (n * w * (1 - w)) ** 0.5 + 1) * (16 * (n * w * f * (1 - f)) ** 0.5 + 1)
        return float(min(self.outcome_count(point), spread))

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        if point["bin"] > point["bins"]:
            return f"bin: the bin must be one of 1..bins = {point['bins']}, got bin = {point['bin']}"
        if point["n"] > 10 ** 7:
            return f"n: the calibration design takes at most 10,000,000 examples, got n = {point['n']:,}"
        if point["bins"] > BINS_MAX:
            return f"bins: the calibration design takes at most {BINS_MAX} bins, got bins = {point['bins']:,}"
        if exact and self.outcome_count(point) > EXACT_LIMIT and self.likely_outcomes(point) > EXACT_LIMIT:
            return (f"n: exact calibration coverage enumerates about {self.likely_outcomes(point):,.0f} (m, k) of the "
                    f"bin at n = {point['n']:,}, more than {EXACT_LIMIT:,}")
        return None

    def table_key(self, point: dict) -> tuple:
        return tuple(point[a.name] for a in self.axes)

    def stream_identity(self, point: dict) -> dict:
        """The point's axes, less those of the other score law."""
        binormal = point.get("scores", "beta") == "binormal"
        skip = self.BETA if binormal else self.BINORMAL
        return {"design": "calibration", **{a.name: point[a.name] for a in self.axes if a.name not in skip}}

    def truth_inputs(self, point: dict) -> dict:
        return {"f": self.moments(point)[1]}

    sized_by = "n"

    def test_set_numbers(self, point: dict) -> int:
        return 2 * point["n"]  # its scores and labels, while a block is binned

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        w, f = self.moments(pt)
        k, m, p = bin_outcomes(pt["n"], w, f)
        return Outcomes({"k": k.astype(np.int64), "m": m.astype(np.int64)}, p[None, :])

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        rng = stream(seed, **self.stream_identity(pt))
        n, j = pt["n"], pt["bin"] - 1
        law = ScoreLaw.of(pt)
        e = edges(pt["bins"], pt["binning"], law)
        block = max(1, BLOCK // (4 * n))
        parts = []
        for start in range(0, reps, block):
            scores, labels = draw_test_sets(n, min(block, reps - start), law, float(pt["slope"]), float(pt["intercept"]),
                                            rng)
            inside = bin_index(scores, e) == j
            m = inside.sum(axis=1)
            k = (inside & labels).sum(axis=1)
            parts.append(np.unique(k.astype(np.int64) * (n + 1) + m, return_counts=True))
        key, count = merge(parts)
        k, m = np.divmod(key, n + 1)
        return Outcomes({"k": k, "m": m}, count[None, :])


@register_estimand("calibration", "bin_frequency", takes=("proportion",))
class BinFrequency(Estimand):
    """f_j, the true frequency of positives among the examples whose score falls in bin j; a
    proportion method on (k, m); [0, 1] for an empty bin (m = 0), which is not valid."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["f"])

    def valid(self, columns):
        return np.asarray(columns["m"]) > 0

    def bounds(self, method, columns, delta, side, rng=None, **params):
        k, m = np.asarray(columns["k"]), np.asarray(columns["m"])
        empty = m == 0
        lower, upper = method.bounds((k, np.where(empty, 1, m)), delta, side, **params)
        return np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)


__all__ = ["BINNINGS", "SCORES", "Calibration", "ScoreLaw", "true_smooth_ece", "bin_index", "bin_moments", "bin_outcomes", "curve", "draw_test_sets", "edges",
           "true_ece", "true_ece_binned"]
