"""The judged design: N examples labelled by a judge (an LLM autorater, a weak classifier), n of them by humans.

Every example has a true binary label Y ~ Bernoulli(p) and the judge's label Ŷ with sensitivity
se = P(Ŷ = 1 | Y = 1) and specificity sp = P(Ŷ = 0 | Y = 0), so the judge says "1" with
probability q = p·se + (1 - p)(1 - sp). The estimand is p (an accuracy, or any binary metric's
rate, over the example distribution). Axes: ``examples`` is N, ``labelled`` is n.

An outcome is the labelled 2×2 table (tp: Y = 1, Ŷ = 1; fn: Y = 1, Ŷ = 0; fp: Y = 0, Ŷ = 1;
tn: Y = 0, Ŷ = 0) and the unlabelled examples' judge labels (u_pos said 1, u_neg said 0).
Two ways of choosing the n (``sampling``):

* ``random``: a simple random sample, so (tp, fn, fp, tn) ~ Multinomial(n; p·se, p(1 - se),
  (1 - p)(1 - sp), (1 - p)·sp) and, independently, u_pos ~ Binomial(N - n, q).
* ``stratified`` (by the judge's label): the judge labels all N, J ~ Binomial(N, q) say 1; then
  n₁ = min(J, max(n - (N - J), round(share·n))) of the n are drawn from the J judge-positives and
  n₀ = n - n₁ from the judge-negatives, so tp ~ Binomial(n₁, PPV), fn ~ Binomial(n₀, FOR) with
  PPV = p·se/q and FOR = p(1 - se)/(1 - q), independently; u_pos = J - n₁, u_neg = N - J - n₀.

Exact coverage enumerates the outcomes carrying all but 1e-15 of the probability (every
labelled table, or for each J the two binomials, times the binomial support of u_pos or J:
``support``) when there are at most EXACT_LIMIT of them; Monte Carlo beyond. No interval tables
are shared between points (the binomial supports move with q), so each point is its own batch and
methods run on its outcomes.

References: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), "Prediction-powered
inference", Science 382; Fisch et al. (2024), "Stratified prediction-powered inference for
hybrid language model evaluation"; Tenenbein (1970), "A double sampling scheme for estimating
from binomial data with misclassifications", JASA 65.
"""

from __future__ import annotations

import itertools
import math
from typing import ClassVar

import numpy as np
from scipy import special

from .._lazy import stats
from ..estimands import Estimand, register_estimand
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .registry import register
from .sampling import BLOCK, merge

EXACT_LIMIT = 4_000_000  # outcomes in the support of one exact point
TAIL = 2.5e-16  # probability left out of each tail of a binomial support (and 5e-16 of the tables)
_KEY_LIMIT = 1 << 62  # Monte Carlo outcomes are keyed in int64
COLUMNS = ("tp", "fn", "fp", "tn", "u_pos", "u_neg")


def judge_rate(p, se, sp):
    """q = P(Ŷ = 1) = p·se + (1 - p)(1 - sp)."""
    return p * se + (1 - p) * (1 - sp)


def cell_probabilities(p, se, sp) -> np.ndarray:
    """(P(tp), P(fn), P(fp), P(tn)) of one labelled example drawn at random."""
    return np.array([p * se, p * (1 - se), (1 - p) * (1 - sp), (1 - p) * sp])


def stratum_rates(p, se, sp) -> tuple[float, float]:
    """(PPV, FOR) = (P(Y = 1 | Ŷ = 1), P(Y = 1 | Ŷ = 0)); 0 where the judge's label has probability 0."""
    q = judge_rate(p, se, sp)
    return (p * se / q if q > 0 else 0.0), (p * (1 - se) / (1 - q) if q < 1 else 0.0)


def allocation(J, n, N, share):
    """n₁, the labels drawn from the J judge-positives: round(share·n), within what each stratum holds."""
    J = np.asarray(J)
    return np.minimum(J, np.maximum(n - (N - J), round(share * n)))


def support(m: int, q: float) -> tuple[int, int]:
    """The smallest and largest counts of Binomial(m, q) with each tail beyond them below TAIL."""
    if q <= 0 or q >= 1 or m == 0:
        k = int(round(m * q))
        return k, k
    return int(stats.binom.ppf(TAIL, m, q)), int(stats.binom.isf(TAIL, m, q))


def tables(n: int) -> np.ndarray:
    """Every 2×2 table (tp, fn, fp, tn) of n examples, shape (C(n + 3, 3), 4)."""
    a, b, c = np.meshgrid(*(np.arange(n + 1),) * 3, indexing="ij")
    keep = a + b + c <= n
    a, b, c = a[keep], b[keep], c[keep]
    return np.stack([a, b, c, n - a - b - c], axis=1)


def table_pmf(cells: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """Multinomial(n; probabilities) pmf of each row of ``cells`` (xlogy: 0·log 0 = 0)."""
    n = cells.sum(axis=1)
    log = special.gammaln(n + 1) - special.gammaln(cells + 1).sum(axis=1) \
        + special.xlogy(cells, probabilities).sum(axis=1)
    return np.exp(log)


def trim(weight: np.ndarray, budget: float) -> np.ndarray:
    """Indices of ``weight`` kept when the smallest entries summing to at most ``budget`` are dropped."""
    order = np.argsort(weight, kind="stable")
    dropped = np.searchsorted(np.cumsum(weight[order]), budget, side="right")
    return np.sort(order[dropped:])


@register
class Judged(Design):
    name = "judged"
    data = "judged"
    axes = (Axis("examples", True, 2), Axis("labelled", True, 1), Axis("p", False, 0.0, 1.0),
            Axis("sensitivity", False, 0.0, 1.0), Axis("specificity", False, 0.0, 1.0),
            Axis("sampling", False, 0.0, choices=("random", "stratified")), Axis("share", False, 0.0, 1.0))
    parametrisations = (("examples", "labelled", "p", "sensitivity", "specificity"),)
    optional: ClassVar[dict] = {"sampling": "random", "share": 0.5}
    estimand = "rate"
    summary = ("examples (N) labelled by a judge of given sensitivity and specificity, labelled (n) of them by humans "
               "(random, or stratified by the judge's label); estimand p")
    example: ClassVar[dict] = {"examples": 60, "labelled": 12, "p": 0.3, "sensitivity": 0.85, "specificity": 0.9}

    def derive(self, point: dict) -> dict:
        point = {**self.optional, **point}
        return {a.name: point[a.name] for a in self.axes if a.name in point}

    def points(self, grid: dict) -> list[dict]:
        given = [a.name for a in self.axes if grid.get(a.name) is not None]
        return [self.derive(dict(zip(given, combo))) for combo in itertools.product(*(grid[a] for a in given))]

    def _q(self, point: dict) -> float:
        return judge_rate(point["p"], point["sensitivity"], point["specificity"])

    def outcome_count(self, point: dict) -> int:
        """The outcomes the exact engine enumerates at most (tables × the binomial support)."""
        N, n = point["examples"], point["labelled"]
        if point["sampling"] == "stratified":
            lo, hi = support(N, self._q(point))
            return (hi - lo + 1) * (n // 2 + 1) ** 2  # (n₁ + 1)(n₀ + 1) <= (n/2 + 1)²
        lo, hi = support(N - n, self._q(point))
        return math.comb(n + 3, 3) * (hi - lo + 1)

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        N, n = point["examples"], point["labelled"]
        if n >= N:
            return f"labelled: the human-labelled examples must be fewer than examples = {N:,}, got labelled = {n:,}"
        if (n + 1) ** 3 * (N + 1) > _KEY_LIMIT:
            return (f"examples, labelled: the judged design needs (labelled + 1)³(examples + 1) <= 2^62, got labelled = {n:,}, "
                    f"examples = {N:,}")
        if exact:
            count = self.outcome_count(point) if n < 2000 else math.inf
            if count > EXACT_LIMIT:
                return (f"labelled: exact judged coverage needs at most {EXACT_LIMIT:,} outcomes carrying all but 1e-15 of the "
                        f"probability, got {count:,} at examples = {N:,}, labelled = {n:,} (use Monte Carlo: give reps)")
        return None

    def table_key(self, point: dict) -> tuple:
        return (point["examples"], point["labelled"], point["sampling"], point["share"])

    def likely_outcomes(self, point: dict) -> float:
        return float(min(self.outcome_count(point), 10 * (point["labelled"] + 1) ** 2 * math.sqrt(point["examples"])))

    def stream_identity(self, point: dict) -> dict:
        return {"design": "judged", **{a.name: point[a.name] for a in self.axes}}

    def truth_inputs(self, point: dict) -> dict:
        return {"p": point["p"]}

    def test_set_numbers(self, point: dict) -> int:
        return 6

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        columns, weight = (_exact_stratified if pt["sampling"] == "stratified" else _exact_random)(pt)
        return Outcomes(columns, weight[None, :])

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        rng = stream(seed, **self.stream_identity(pt))
        draw = _draw_stratified if pt["sampling"] == "stratified" else _draw_random
        parts = [np.unique(draw(pt, min(BLOCK, reps - start), rng), return_counts=True)
                 for start in range(0, reps, BLOCK)]
        key, count = merge(parts)
        return Outcomes(decode(pt, key), count[None, :])

    # The planner: how many human labels (labelled) for a width, given N and the judge (its sensitivity and
    # specificity, or its agreement: a symmetric judge, se = sp = agreement). Monte Carlo from the
    # plug-in start: the exact search would stop at EXACT_LIMIT for most N.
    size_axis = "labelled"
    plans_exact = False
    plan_axes: ClassVar[dict] = {"agreement": (None, "P(judge = human), read as sensitivity = specificity")}

    def sized(self, axes: dict, size: int) -> dict:
        return {**judge_axes(axes), "labelled": size}

    def expected(self, axes: dict, size: float) -> dict | None:
        axes = judge_axes(axes)
        if axes.get("sampling", "random") != "random" or "examples" not in axes or "p" not in axes:
            return None
        p, se, sp, N = axes["p"], axes["sensitivity"], axes["specificity"], axes["examples"]
        cells = size * cell_probabilities(p, se, sp)
        q = judge_rate(p, se, sp)
        return {**dict(zip(COLUMNS[:4], cells)), "u_pos": (N - size) * q, "u_neg": (N - size) * (1 - q)}


def judge_axes(axes: dict) -> dict:
    """``axes`` with the planner's ``agreement`` read as sensitivity = specificity = agreement."""
    axes = dict(axes)
    if "agreement" not in axes:
        return axes
    a = axes.pop("agreement")
    if not 0 <= a <= 1:
        raise ValueError(f"agreement must be in [0, 1] (P(judge = human)), got {a!r}")
    if "sensitivity" in axes or "specificity" in axes:
        raise ValueError("agreement: give agreement, or sensitivity and specificity, not both")
    return {**axes, "sensitivity": a, "specificity": a}


def _exact_random(pt: dict) -> tuple[dict, np.ndarray]:
    """The support of (tp, fn, fp, tn) × u_pos under random sampling and its probabilities."""
    N, n = pt["examples"], pt["labelled"]
    cells = tables(n)
    pmf = table_pmf(cells, cell_probabilities(pt["p"], pt["sensitivity"], pt["specificity"]))
    keep = trim(pmf, 2 * TAIL)
    cells, pmf = cells[keep], pmf[keep]
    q, M = judge_rate(pt["p"], pt["sensitivity"], pt["specificity"]), N - n
    lo, hi = support(M, q)
    u = np.arange(lo, hi + 1)
    weight = np.outer(pmf, stats.binom.pmf(u, M, q)).ravel()
    rows = np.repeat(np.arange(len(cells)), len(u))
    u_pos = np.tile(u, len(cells))
    columns = {c: cells[rows, i] for i, c in enumerate(COLUMNS[:4])}
    return {**columns, "u_pos": u_pos, "u_neg": M - u_pos}, weight


def _exact_stratified(pt: dict) -> tuple[dict, np.ndarray]:
    """The support of (J, tp, fn) under stratified sampling and its probabilities."""
    N, n = pt["examples"], pt["labelled"]
    p, se, sp = pt["p"], pt["sensitivity"], pt["specificity"]
    q = judge_rate(p, se, sp)
    ppv, fo = stratum_rates(p, se, sp)
    lo, hi = support(N, q)
    J = np.arange(lo, hi + 1)
    # one pmf call over every J, and each stratum's pmfs once per allocation n₁ (J changes n₁ only where a
    # stratum runs short): the values of the pmf called J by J, multiplied in the same order
    p_J = stats.binom.pmf(J, N, q)
    strata = {}
    out = {c: [] for c in COLUMNS}
    weights = []
    for j, p_j, n1 in zip(J.tolist(), p_J, allocation(J, n, N, pt["share"]).tolist()):
        n0 = n - n1
        if n1 not in strata:
            tp, fn = (a.ravel() for a in np.meshgrid(np.arange(n1 + 1), np.arange(n0 + 1), indexing="ij"))
            strata[n1] = tp, fn, stats.binom.pmf(tp, n1, ppv), stats.binom.pmf(fn, n0, fo)
        tp, fn, p_tp, p_fn = strata[n1]
        weights.append(p_j * p_tp * p_fn)
        for c, v in zip(COLUMNS, (tp, fn, n1 - tp, n0 - fn, np.full(tp.size, j - n1), np.full(tp.size, N - j - n0))):
            out[c].append(v)
    weight = np.concatenate(weights)
    keep = trim(weight, 2 * TAIL)
    return {c: np.concatenate(v)[keep].astype(np.int64) for c, v in out.items()}, weight[keep]


def encode(pt: dict, tp, fn, fp, u_pos) -> np.ndarray:
    """One int64 key per outcome: ((tp·(n + 1) + fn)·(n + 1) + fp)·(N + 1) + u_pos."""
    n1, N1 = pt["labelled"] + 1, pt["examples"] + 1
    return ((tp.astype(np.int64) * n1 + fn) * n1 + fp) * N1 + u_pos


def decode(pt: dict, key: np.ndarray) -> dict:
    """The outcome columns of ``encode``'s keys (tn = n - tp - fn - fp; u_neg from the design)."""
    n, N = pt["labelled"], pt["examples"]
    rest, u_pos = np.divmod(key, N + 1)
    rest, fp = np.divmod(rest, n + 1)
    tp, fn = np.divmod(rest, n + 1)
    # both samplings: u_neg = N - n - u_pos (stratified: N - J - n₀ with J = u_pos + n₁)
    return {"tp": tp, "fn": fn, "fp": fp, "tn": n - tp - fn - fp, "u_pos": u_pos, "u_neg": N - n - u_pos}


def _draw_random(pt: dict, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` random-sampling outcomes, as keys: the labelled table, then the unlabelled count."""
    n, M = pt["labelled"], pt["examples"] - pt["labelled"]
    cells = rng.multinomial(n, cell_probabilities(pt["p"], pt["sensitivity"], pt["specificity"]), size=size)
    u_pos = rng.binomial(M, judge_rate(pt["p"], pt["sensitivity"], pt["specificity"]), size=size)
    return encode(pt, cells[:, 0], cells[:, 1], cells[:, 2], u_pos)


def _draw_stratified(pt: dict, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` stratified-sampling outcomes, as keys: J, then each stratum's labelled positives."""
    N, n = pt["examples"], pt["labelled"]
    p, se, sp = pt["p"], pt["sensitivity"], pt["specificity"]
    ppv, fo = stratum_rates(p, se, sp)
    J = rng.binomial(N, judge_rate(p, se, sp), size=size)
    n1 = allocation(J, n, N, pt["share"])
    tp = rng.binomial(n1, ppv)
    fn = rng.binomial(n - n1, fo)
    return encode(pt, tp, fn, n1 - tp, J - n1)


@register_estimand("judged", "rate", takes=("judged", "proportion"))
class JudgedRate(Estimand):
    """p, the rate of Y = 1: judged methods read the whole outcome (methods/judged.py); proportion
    methods the human labels alone (tp + fn of n: the classical interval)."""

    def truth(self, inputs: dict) -> float:
        return float(inputs["p"])

    def bounds(self, method, columns, delta, side, rng=None, **params):
        if method.takes == "proportion":
            k = np.asarray(columns["tp"]) + columns["fn"]
            n = k + columns["fp"] + columns["tn"]
            return method.bounds((k, n), delta, side, **params)
        return method.bounds(tuple(columns[c] for c in COLUMNS), delta, side, rng=rng, **params)
