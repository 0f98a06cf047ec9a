"""The eval design: a language-model benchmark of m questions in g groups, K answers per question.

Questions come in g groups of s = m/g (passages, documents, videos). Group j's mean accuracy
μ_j ~ Beta(mean p, icc_group); question i of group j is answered correctly with probability
π_i ~ Beta(mean μ_j, icc_question); its K answers are Bernoulli(π_i), so its correct count
y_i ~ Binomial(K, π_i). A Beta "with mean a and correlation r" has α = a(1 - r)/r, β = (1 - a)(1 - r)/r
(clustered.beta_parameters); r = 0 is a point mass at a. Then two answers to the same question
are correlated icc_group + (1 - icc_group)·icc_question, two answers to different questions of
one group icc_group, and answers in different groups not at all.

Estimand: p = E[π], the model's accuracy over the question distribution (Miller 2024's
super-population mean), not the mean over the m questions drawn.

Exact (small m): a group's counts, as a multiset (the methods are symmetric in the questions of a
group and in the groups), have probability ∫ Π_i P(y_i | μ) dBeta(μ); P(y | μ) is a polynomial
of degree K in μ (beta-binomial: C(K, y)·(μc)_y((1 - μ)c)_{K-y}/(c)_K with rising factorials,
c = 1/icc_question - 1), so the product has degree s·K and Gauss–Jacobi quadrature with
⌊s·K/2⌋ + 1 nodes of the Beta weight integrates it exactly. A test set is a multiset of g
group outcomes, its probability the multinomial coefficient times the product. Monte Carlo:
each simulated test set's per-question counts from the stream keyed by the point.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import special

from .._lazy import stats
from ..estimands import Estimand, register_estimand
from ..methods.evals import eval_bounds, group_sums
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .clustered import beta_parameters
from .registry import register
from .sampling import BLOCK

EXACT_LIMIT = 200_000  # enumerated test sets of an exact point
EXACT_NUMBERS = 4_000_000  # test sets × questions held at once
QUESTION_LIMIT = 1_000_000  # questions of a Monte Carlo point


class QuestionsInGroups:
    """What the eval designs share: m questions in g equal groups; the planner sizes them in whole groups."""

    sized_by = "questions"
    size_axis = "questions"  # the planner's size, in whole groups of the given number

    def sized(self, axes: dict, size: int) -> dict:
        """The point of about ``size`` questions: rounded up to a multiple of ``groups`` (equal groups)."""
        g = int(axes.get("groups", 1))
        return {**axes, "questions": g * max(1, -(-int(size) // g))}

    def points(self, grid: dict) -> list[dict]:
        names = [a.name for a in self.axes]
        return [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]

    @staticmethod
    def groups_problem(point: dict) -> str | None:
        """One line when the groups do not split the questions equally, else None."""
        m, g = point["questions"], point["groups"]
        if g > m or m % g:
            return f"groups: must divide questions (equal groups of questions), got groups = {g:,}, questions = {m:,}"
        return None


@register
class Eval(QuestionsInGroups, Design):
    name = "eval"
    data = "eval"
    axes = (Axis("questions", True, 2), Axis("groups", True, 2), Axis("answers", True, 1),
            Axis("p", False, 0.0, 1.0), Axis("icc_group", False, 0.0, 1.0, high_open=True),
            Axis("icc_question", False, 0.0, 1.0, high_open=True))
    parametrisations = (("questions", "groups", "answers", "p", "icc_group", "icc_question"),)
    estimand = "accuracy"
    summary = ("m questions in g groups, K answers each; group accuracy ~ Beta(p, icc_group), "
               "question accuracy ~ Beta(group's, icc_question)")
    example = {"questions": 8, "groups": 4, "answers": 2, "p": 0.7, "icc_group": 0.2, "icc_question": 0.3}
    keeps_test_sets = True
    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        m, g = point["questions"], point["groups"]
        if problem := self.groups_problem(point):
            return problem
        if exact:
            count = exact_test_sets(m, g, point["answers"])
            if count > EXACT_LIMIT or count * m > EXACT_NUMBERS:
                return (f"questions, groups, answers: exact eval coverage enumerates {count:,} test sets of {m:,} "
                        f"questions; needs <= {EXACT_LIMIT:,} and test sets × questions <= {EXACT_NUMBERS:,} "
                        f"(use Monte Carlo: give reps)")
        if m > QUESTION_LIMIT:
            return f"questions: Monte Carlo keeps every question's count; needs questions <= {QUESTION_LIMIT:,}, got {m:,}"
        return None

    def test_set_numbers(self, point: dict) -> int:
        return point["questions"] + 2 * point["groups"]

    def table_key(self, point: dict) -> tuple:
        return (point["questions"], point["groups"], point["answers"])

    def outcome_count(self, point: dict) -> int:
        return min(exact_test_sets(point["questions"], point["groups"], point["answers"]), 10 ** 15)

    def cost(self, point: dict, reps: int | None) -> float:
        # one interval per test set, its work growing with the questions (~100 questions cost
        # about one table interval, estimate.SECONDS_PER_INTERVAL; measured roughly)
        return float(reps if reps is not None else self.outcome_count(point)) * (1 + point["questions"] / 100)

    def stream_identity(self, point: dict) -> dict:
        return {"design": "eval", **{a.name: point[a.name] for a in self.axes}}

    def truth_inputs(self, point: dict) -> dict:
        return {"p": point["p"]}

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        m, g, k = pt["questions"], pt["groups"], pt["answers"]
        correct, weight = exact_outcomes(m, g, k, pt["p"], pt["icc_group"], pt["icc_question"])
        return Outcomes(columns(correct, k, g), weight[None, :])

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        m, g, k = pt["questions"], pt["groups"], pt["answers"]
        correct = question_counts(m, g, k, pt["p"], pt["icc_group"], pt["icc_question"], reps,
                                  stream(seed, **self.stream_identity(pt)))
        return Outcomes(columns(correct, k, g), np.ones((1, reps), dtype=np.int64))


def columns(correct: np.ndarray, answers: int, groups: int) -> dict:
    """The outcome columns of test sets ``correct`` (test sets × questions, grouped in order): per-question
    counts for the eval methods, pooled (k, n) and per-group (successes, sizes) for the others."""
    t, m = correct.shape
    group = np.broadcast_to(np.repeat(np.arange(groups), m // groups), (t, m))
    successes, _ = group_sums(correct, group)
    return {"correct": correct, "answers": np.full((t, 1), answers), "group": group,
            "k": correct.sum(axis=1), "n": np.full(t, m * answers),
            "successes": successes.astype(np.int64), "sizes": np.full((t, groups), m // groups * answers)}


def exact_test_sets(questions: int, groups: int, answers: int) -> int:
    """How many test sets exact enumeration holds: multisets of g group outcomes, each a multiset
    of s = m/g counts in 0..K."""
    s = questions // max(groups, 1)
    outcomes = math.comb(s + answers, answers)
    return math.comb(outcomes + groups - 1, groups)


def answer_pmf(mu: np.ndarray, answers: int, icc_question: float) -> np.ndarray:
    """P(y | μ), y = 0..K, of a question of a group with mean μ: shape (len(μ), K + 1)."""
    y = np.arange(answers + 1)
    mu = np.asarray(mu, dtype=float)[:, None]
    if icc_question == 0:
        return stats.binom.pmf(y, answers, mu)
    c = (1 - icc_question) / icc_question
    a, b = mu * c, (1 - mu) * c
    # C(K, y)·(a)_y·(b)_{K-y}/(c)_K with rising factorials (a)_y = Γ(a + y)/Γ(a) = poch(a, y)
    return special.comb(answers, y) * special.poch(a, y) * special.poch(b, answers - y) / special.poch(c, answers)


def group_nodes(p: float, icc_group: float, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes μ and weights of a quadrature over Beta(mean p, icc_group) exact for polynomials of
    ``degree`` (Gauss–Jacobi on [0, 1]); one node at p when the Beta is a point mass."""
    if icc_group == 0 or p in (0.0, 1.0):
        return np.array([p]), np.ones(1)
    alpha, beta = beta_parameters(p, icc_group)
    x, w = special.roots_jacobi(degree // 2 + 1, beta - 1, alpha - 1)  # weight (1 - x)^(β-1)(1 + x)^(α-1)
    return (1 + x) / 2, w / w.sum()


def group_outcomes(size: int, answers: int, p: float, icc_group: float, icc_question: float):
    """Every multiset of a group's ``size`` counts (rows, sorted) and its probability."""
    rows = np.array(list(itertools.combinations_with_replacement(range(answers + 1), size)), dtype=np.int64)
    mu, w = group_nodes(p, icc_group, size * answers)
    pmf = answer_pmf(mu, answers, icc_question)  # (nodes, K + 1)
    joint = np.sum(w[:, None] * np.prod(pmf[:, rows], axis=2), axis=0)
    return rows, _multinomial(rows, answers + 1) * joint


def _multinomial(rows: np.ndarray, values: int) -> np.ndarray:
    """Orderings of each sorted row: size!/Π multiplicity!."""
    counts = np.stack([(rows == v).sum(axis=1) for v in range(values)], axis=1)
    return np.exp(special.gammaln(rows.shape[1] + 1) - special.gammaln(counts + 1).sum(axis=1))


def exact_outcomes(questions, groups, answers, p, icc_group, icc_question):
    """(correct, weight): every test set (questions grouped in order) and its probability."""
    s = questions // groups
    rows, prob = group_outcomes(s, answers, p, icc_group, icc_question)
    pick = np.array(list(itertools.combinations_with_replacement(range(len(rows)), groups)), dtype=np.int64)
    weight = _multinomial(pick, len(rows)) * np.prod(prob[pick], axis=1)
    return rows[pick].reshape(len(pick), questions), weight


def _beta(rng, mean, icc, shape):
    """Draws of Beta(mean, icc) (a point mass where icc = 0 or mean is 0 or 1)."""
    mean = np.broadcast_to(np.asarray(mean, dtype=float), shape)
    if icc == 0:
        return mean.copy()
    inner = (mean > 0) & (mean < 1)
    safe = np.where(inner, mean, 0.5)
    a, b = beta_parameters(safe, icc)
    return np.where(inner, rng.beta(a, b, size=shape), mean)


def question_counts(questions, groups, answers, p, icc_group, icc_question, reps, rng) -> np.ndarray:
    """Per-question correct counts of ``reps`` test sets, shape (reps, questions), grouped in order.

    Drawn in blocks of a fixed size (group means, question accuracies, counts), so the numbers
    depend only on the stream and (point, reps)."""
    s = questions // groups
    out = np.empty((reps, questions), dtype=np.int64)
    step = max(1, BLOCK // questions)
    for start in range(0, reps, step):
        b = min(step, reps - start)
        mu = _beta(rng, p, icc_group, (b, groups))
        pi = _beta(rng, np.repeat(mu, s, axis=1), icc_question, (b, questions))
        out[start:start + b] = rng.binomial(answers, pi)
    return out


@register_estimand("eval", "accuracy", takes=("eval", "proportion", "clustered"))
class EvalAccuracy(Estimand):
    """p, the accuracy over the question distribution: eval methods on the per-question counts, proportion
    methods on the pooled answers, clustered methods on the groups' totals (methods/evals.py)."""

    def truth(self, inputs: dict) -> float:
        return inputs["p"]

    def valid(self, columns):
        return np.ones(len(columns["k"]), dtype=bool)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return eval_bounds(method, columns, delta, side, rng=rng, **params)
