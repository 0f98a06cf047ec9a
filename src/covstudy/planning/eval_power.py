"""Power for comparing two models on one eval: the minimum detectable effect and the questions it needs.

Miller (2024, §5, "power analysis"): with m questions, K answers per question and a two-sided
test at level delta with power 1 - β on the paired differences, the variance of the mean
difference is (ω² + (σ²_A + σ²_B)/K)/m, where ω² = Var(x_A - x_B) is the variance over questions
of the difference of the two models' per-question accuracies and σ²_A = E[x_A(1 - x_A)] the
mean within-question (answer-sampling) variance of model A (and so for B). Hence

    MDE = (z_{1-delta/2} + z_{1-β})·sqrt(deff·(ω² + (σ²_A + σ²_B)/K)/m),
    m   = ⌈(z_{1-delta/2} + z_{1-β})²·deff·(ω² + (σ²_A + σ²_B)/K)/MDE²⌉,

with deff >= 1 the design effect of grouped questions (1 for independent questions; the
clustered-over-question variance ratio of a pilot otherwise). ``components`` estimates ω²,
σ²_A, σ²_B and deff from a pilot run (K >= 2 answers per question to separate σ² from ω²).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .. import validate
from ..methods.evals import clustered_variance, question_variance


def _z(q):
    return float(special.ndtri(q))


def _check(omega2, sigma2_first, sigma2_second, answers, delta, power, deff):
    for name, v in (("omega2", omega2), ("sigma2_first", sigma2_first), ("sigma2_second", sigma2_second)):
        validate.interval(name, validate.scalar(name, v), 0.0, 1.0, False, False)
    validate.counts("answers", answers, minimum=1)
    validate.delta(validate.scalar("delta", delta))
    validate.interval("power", validate.scalar("power", power), 0.0, 1.0, True, True)
    validate.interval("deff", validate.scalar("deff", deff), 1.0, None, False, False)
    if omega2 + sigma2_first + sigma2_second == 0:
        raise ValueError("omega2, sigma2_first, sigma2_second: all 0 means no variance; give at least one > 0")


def _variance(omega2, sigma2_first, sigma2_second, answers, deff):
    return deff * (omega2 + (sigma2_first + sigma2_second) / answers)


def mde(questions, omega2, sigma2_first, sigma2_second, answers=1, delta=0.05, power=0.8, deff=1.0) -> float:
    """The minimum detectable difference in accuracy of two models on ``questions`` questions (Miller 2024 §5).

    MDE = (z_{1-delta/2} + z_{power})·sqrt(deff·(omega2 + (sigma2_first + sigma2_second)/answers)/questions).

    Parameters
    ----------
    questions : int
        The questions both models answer (m >= 1).
    omega2 : float
        ω² = Var(x_A - x_B) over questions of the two models' per-question accuracies, in [0, 1].
    sigma2_first, sigma2_second : float
        σ² = E[x(1 - x)], each model's mean within-question variance of its 0/1 answers, in [0, 1].
    answers : int
        K, the answers per question, averaged (default 1).
    delta : float
        The two-sided level of the test (default 0.05).
    power : float
        The power 1 - β in (0, 1) (default 0.8).
    deff : float
        The design effect of grouped questions, >= 1 (default 1: independent questions).

    Returns
    -------
    float
        The smallest true difference detected with probability ``power``.

    Examples
    --------
    >>> from covstudy import eval_mde
    >>> round(eval_mde(1000, omega2=0.0, sigma2_first=0.25, sigma2_second=0.25), 4)
    0.0626
    """
    _check(omega2, sigma2_first, sigma2_second, answers, delta, power, deff)
    validate.counts("questions", questions, minimum=1)
    z = _z(1 - delta / 2) + _z(power)
    return z * math.sqrt(_variance(omega2, sigma2_first, sigma2_second, answers, deff) / questions)


def questions_needed(effect, omega2, sigma2_first, sigma2_second, answers=1, delta=0.05, power=0.8,
                     deff=1.0) -> int:
    """The planner's answer: the fewest questions whose minimum detectable effect is at most ``effect``.

    m = ⌈(z_{1-delta/2} + z_{power})²·deff·(omega2 + (sigma2_first + sigma2_second)/answers)/effect²⌉
    (Miller 2024 §5).

    Parameters
    ----------
    effect : float
        The difference in accuracy to detect, in (0, 1].
    omega2, sigma2_first, sigma2_second, answers, delta, power, deff
        As in ``eval_mde``.

    Returns
    -------
    int
        The number of questions.

    Examples
    --------
    >>> from covstudy import eval_questions_needed
    >>> eval_questions_needed(0.03, omega2=0.0, sigma2_first=0.25, sigma2_second=0.25)
    4361
    """
    _check(omega2, sigma2_first, sigma2_second, answers, delta, power, deff)
    validate.interval("effect", validate.scalar("effect", effect), 0.0, 1.0, True, False)
    z = _z(1 - delta / 2) + _z(power)
    m = math.ceil(z * z * _variance(omega2, sigma2_first, sigma2_second, answers, deff) / (effect * effect)
                  - 1e-9)  # a ratio that is a whole number up to rounding stays that number
    return max(m, 1)


def components(correct_first, correct_second, answers, group=None) -> dict:
    """ω², σ²_A, σ²_B and deff estimated from a pilot: both models' per-question counts (K >= 2).

    σ̂²_A = mean over questions of K/(K - 1)·s_Ai(1 - s_Ai) (the unbiased within-question variance
    of the 0/1 answers); ω̂² = max(0, S²_d - (σ̂²_A + σ̂²_B)/K) with S²_d the sample variance of the
    per-question differences d_i = s_Ai - s_Bi (Var(d_i) = ω² + (σ²_A + σ²_B)/K); deff = Miller's
    clustered variance of d̄ over its question variance (at least 1; 1 without ``group``).

    Parameters
    ----------
    correct_first, correct_second : array
        Each model's correct answers per question (1-d, the same questions).
    answers : int
        K >= 2, the answers per question.
    group : array, optional
        Each question's group label.

    Returns
    -------
    dict
        ``omega2``, ``sigma2_first``, ``sigma2_second``, ``deff``: the arguments of ``eval_mde``.

    Examples
    --------
    >>> from covstudy import eval_components
    >>> c = eval_components([2, 1, 2, 0], [1, 1, 0, 0], answers=2, group=[0, 0, 1, 1])
    >>> sorted(c), round(c["sigma2_first"], 3)
    (['deff', 'omega2', 'sigma2_first', 'sigma2_second'], 0.125)
    """
    k = int(validate.counts("answers", answers, minimum=2))
    a = validate.counts("correct_first", correct_first) / k
    b = validate.counts("correct_second", correct_second) / k
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(f"correct_first, correct_second: need two 1-d arrays of the same questions (>= 2), "
                         f"got shapes {a.shape} and {b.shape}")
    if np.any(a > 1) or np.any(b > 1):
        raise ValueError("correct_first, correct_second must be <= answers for every question")
    sigma_a = float(np.mean(a * (1 - a)) * k / (k - 1))
    sigma_b = float(np.mean(b * (1 - b)) * k / (k - 1))
    d = a - b
    s2 = float(np.var(d, ddof=1))
    deff = 1.0
    if group is not None:
        base = float(question_variance(d))
        deff = max(1.0, float(clustered_variance(d, np.asarray(group))) / base) if base > 0 else 1.0
    return {"omega2": max(0.0, s2 - (sigma_a + sigma_b) / k), "sigma2_first": sigma_a,
            "sigma2_second": sigma_b, "deff": deff}
