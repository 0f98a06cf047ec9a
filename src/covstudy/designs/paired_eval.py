"""The paired eval design: two models answer the same m questions in g groups, K answers each.

Each model's accuracies follow the eval design's hierarchy (designs/eval.py): group mean
μ_j ~ Beta(mean acc, icc_group), question accuracy π_i ~ Beta(mean μ_j, icc_question), K Bernoulli
answers. The two models' draws are coupled by a Gaussian copula with correlation ρ
(``correlation``) at both levels: each Beta draw is the Beta quantile of Φ(z), with (z_first,
z_second) standard bivariate normal with correlation ρ. So each model keeps its marginal
hierarchy (its mean accuracy is exactly acc_first, acc_second) and questions that are hard for
one model tend to be hard for the other; ρ = 0 makes the models independent given the
questions, ρ = 1 ranks the questions identically. Given the π's, the two models' answers are
independent.

Estimand: acc_first - acc_second (over the question distribution). Monte Carlo only: the
per-question counts of both models have no small enumeration with a copula.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ..estimands import Estimand, register_estimand
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .clustered import beta_parameters
from .eval import QUESTION_LIMIT, QuestionsInGroups
from .registry import register
from .sampling import BLOCK


@register
class PairedEval(QuestionsInGroups, Design):
    name = "paired_eval"
    data = "paired_eval"
    exact_engine = False
    axes = (Axis("questions", True, 2), Axis("groups", True, 2), Axis("answers", True, 1),
            Axis("acc_first", False, 0.0, 1.0), Axis("acc_second", False, 0.0, 1.0),
            Axis("correlation", False, 0.0, 1.0), Axis("icc_group", False, 0.0, 1.0, high_open=True),
            Axis("icc_question", False, 0.0, 1.0, high_open=True))
    parametrisations = (("questions", "groups", "answers", "acc_first", "acc_second", "correlation",
                         "icc_group", "icc_question"),)
    estimand = "difference"
    summary = ("two models on the same m questions in g groups, K answers each; eval hierarchies "
               "coupled by a Gaussian copula with correlation")
    example = {"questions": 8, "groups": 4, "answers": 2, "acc_first": 0.7, "acc_second": 0.6,
               "correlation": 0.5, "icc_group": 0.2, "icc_question": 0.3}
    keeps_test_sets = True
    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        m = point["questions"]
        if problem := self.groups_problem(point):
            return problem
        if exact:
            return "reps: the paired eval design has Monte Carlo coverage only; give reps (e.g. reps=2000)"
        if m > QUESTION_LIMIT:
            return f"questions: Monte Carlo keeps every question's count; needs questions <= {QUESTION_LIMIT:,}, got {m:,}"
        return None

    def test_set_numbers(self, point: dict) -> int:
        return 2 * point["questions"]

    def table_key(self, point: dict) -> tuple:
        return (point["questions"], point["groups"], point["answers"])

    def cost(self, point: dict, reps: int | None) -> float:
        # drawing a question's two Beta quantiles costs about a fifth of a table interval
        return float(reps or 1) * (1 + point["questions"] / 20)

    def stream_identity(self, point: dict) -> dict:
        return {"design": "paired_eval", **{a.name: point[a.name] for a in self.axes}}

    def truth_inputs(self, point: dict) -> dict:
        return {"acc_first": point["acc_first"], "acc_second": point["acc_second"]}

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        m, g, k = pt["questions"], pt["groups"], pt["answers"]
        first, second = paired_counts(pt, reps, stream(seed, **self.stream_identity(pt)))
        group = np.broadcast_to(np.repeat(np.arange(g), m // g), (reps, m))
        return Outcomes({"correct_first": first, "correct_second": second, "answers": np.full((reps, 1), k),
                         "group": group}, np.ones((1, reps), dtype=np.int64))


def _coupled(rng, rho, shape):
    """Φ(z_first), Φ(z_second): uniforms of a Gaussian copula with correlation ρ."""
    z1 = rng.standard_normal(shape)
    z2 = rho * z1 + np.sqrt(1 - rho * rho) * rng.standard_normal(shape)
    return special.ndtr(z1), special.ndtr(z2)


def _quantile(u, mean, icc):
    """The Beta(mean, icc) quantile of u (a point mass where icc = 0 or mean is 0 or 1)."""
    mean = np.broadcast_to(np.asarray(mean, dtype=float), np.shape(u))
    if icc == 0:
        return mean.copy()
    inner = (mean > 0) & (mean < 1)
    a, b = beta_parameters(np.where(inner, mean, 0.5), icc)
    return np.where(inner, special.betaincinv(a, b, u), mean)


def paired_counts(point: dict, reps: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Both models' per-question correct counts, each (reps, questions), grouped in order; drawn in
    fixed blocks (group uniforms, question uniforms, then each model's counts)."""
    m, g, k = point["questions"], point["groups"], point["answers"]
    s, rho = m // g, point["correlation"]
    first, second = (np.empty((reps, m), dtype=np.int64) for _ in range(2))
    step = max(1, BLOCK // (2 * m))
    for start in range(0, reps, step):
        b = min(step, reps - start)
        ug = _coupled(rng, rho, (b, g))
        uq = _coupled(rng, rho, (b, m))
        for out, acc, u_group, u_question in ((first, point["acc_first"], ug[0], uq[0]),
                                              (second, point["acc_second"], ug[1], uq[1])):
            mu = _quantile(u_group, acc, point["icc_group"])
            pi = _quantile(u_question, np.repeat(mu, s, axis=1), point["icc_question"])
            out[start:start + b] = rng.binomial(k, pi)
    return first, second


@register_estimand("paired_eval", "difference", takes=("paired_eval",), null=0.0)
class PairedEvalDifference(Estimand):
    """acc_first - acc_second over the question distribution (methods/evals.py, kind paired_eval)."""

    def truth(self, inputs: dict) -> float:
        return inputs["acc_first"] - inputs["acc_second"]

    def valid(self, columns):
        return np.ones(len(columns["correct_first"]), dtype=bool)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((columns["correct_first"], columns["correct_second"], columns["answers"],
                              columns["group"]), delta, side, rng=rng, **params)
