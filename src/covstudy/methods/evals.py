"""Intervals for a language-model eval: m questions in groups, K answers per question.

Two kinds of method (declared below with ``register_kind``):

* ``eval``: kernels on one model's per-question counts ``(correct, answers, group, delta)``:
  ``correct[..., i]`` of ``answers[..., i]`` answers to question i are right, ``group[..., i]``
  labels its group (passage, document); questions on the last axis, leading axes are test sets.
* ``paired_eval``: kernels on two models' counts on the same questions
  ``(correct_first, correct_second, answers, group, delta)``; the estimand is the difference
  of their mean accuracies.

Notation (Miller 2024): question i's score s_i = correct_i/answers_i (its K answers averaged),
s̄ = Σ s_i/m the eval's score, d_i = s_i - s̄, c(i) question i's group, G the number of
groups. The standard errors:

* naive (what harnesses print when each answer is a sample): SE² = v/N, v the sample
  variance (ddof 1) of the N = Σ answers_i answers, centre k/N;
* question (Miller eq. 1 on the K-averaged scores, §3.2): SE² = Σ d_i²/((m - 1)·m);
* clustered (Miller eq. 4): SE² = Σ d_i²/((m - 1)·m) + Σ_c Σ_{i≠j in c} d_i·d_j/m²;
* CR1 (inspect_ai's ``stderr(cluster=...)``): SE² = G/(G - 1)·Σ_c (Σ_{i in c} d_i)²/m².

Each gives s̄ ± q·SE clipped to [0, 1] ([-1, 1] for a difference), q = z = Φ⁻¹(1 - delta/2), or
t_{G-1} for the ``_t`` methods (inspect_ai's ``ci(method="t", cluster=...)``). The design-effect
methods put the pooled answers through Wilson or Clopper–Pearson on an effective sample size
(Korn & Graubard 1998). The cluster bootstrap resamples groups (methods/clustered.py's kernel
on the groups' sums).

References: Miller (2024), "Adding Error Bars to Evals: A Statistical Approach to Language
Model Evaluations", arXiv:2411.00640; Korn & Graubard (1998), "Confidence intervals for
proportions with small expected number of positive counts estimated from survey data",
Survey Methodology 24, 193-201; inspect_ai (UK AISI), ``scorer/_metrics/std.py``.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .. import validate
from .binomial import _z, wilson
from .clustered import clopper_pearson_deff, cluster_bootstrap
from .registry import draws_param, register, register_kind


def _check(names, arrays):
    """Per-question counts checked and broadcast: questions on the last axis, at least 2 groups."""
    *corrects, answers, group = arrays
    out = [validate.counts(n, c) for n, c in zip(names, corrects)]
    answers = validate.counts("answers", answers, minimum=1)
    group = np.asarray(group)
    if group.dtype.kind not in "iu":
        _, group = np.unique(group, return_inverse=True)
        group = group.reshape(np.shape(arrays[-1]))
    try:
        *out, answers, group = np.broadcast_arrays(*out, answers, group)
    except ValueError:
        raise ValueError(f"{', '.join(names)}, answers, group: need the same questions on the last axis, got "
                         f"shapes {', '.join(str(np.shape(a)) for a in arrays)}") from None
    if answers.ndim == 0 or answers.shape[-1] < 2:
        raise ValueError(f"{names[0]}: need at least 2 questions on the last axis, got shape {answers.shape}")
    for n, c in zip(names, out):
        if np.any(c > answers):
            raise ValueError(f"{n} must be <= answers for every question")
    if np.any(_groups(group) < 2):
        raise ValueError("group: need at least 2 groups of questions (one group has no between-group variance)")
    return (*out, answers, group)


def _eval_door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for one model's per-question counts (intervals.py)."""
    correct, answers, group = _check(("correct",), counts)
    d = validate.delta(validate.scalar("delta", delta))
    return eval_bounds(m, {"correct": correct, "answers": answers, "group": group,
                           **totals(correct, answers, group)}, d, side, rng=rng, **params)


def _paired_door(m, est, counts, delta, side, rng, params, icc):
    """The interval door's route for two models' per-question counts (intervals.py)."""
    first, second, answers, group = _check(("correct_first", "correct_second"), counts)
    d = validate.delta(validate.scalar("delta", delta))
    return m.bounds((first, second, answers, group), d, side, rng=rng, **params)


_WHY = "reads per-question counts, which the eval designs enumerate only for a few questions"
register_kind("eval", ("correct", "answers", "group"), "eval", per_test_set=True, why_mc_only=_WHY,
              kind="eval", prefix="eval_", route=_eval_door)
register_kind("paired_eval", ("correct_first", "correct_second", "answers", "group"), "paired eval",
              per_test_set=True, why_mc_only=_WHY, kind="paired_eval", prefix="paired_eval_", route=_paired_door)


def _dense(group):
    """Group labels as 0..L-1 over the whole array (a row's groups are the labels it holds)."""
    _, inverse = np.unique(group, return_inverse=True)
    return inverse.reshape(group.shape), int(inverse.max()) + 1 if inverse.size else 0


def group_sums(values, group):
    """(Σ of ``values`` over each group, questions in each group): shape (..., L), L labels in all.

    Sums run in question order (np.add.reduceat, bincount): no BLAS, the same bits whatever else
    is in the array."""
    values, group = np.broadcast_arrays(np.asarray(values, dtype=float), np.asarray(group))
    shape, m = values.shape[:-1], values.shape[-1]
    values, group = values.reshape(-1, m), group.reshape(-1, m)
    if len(group) == 0 or np.array_equal(group, np.broadcast_to(group[:1], group.shape)):
        # the same labels in every test set (the designs): one sort of the questions
        labels, label = np.unique(group[0] if len(group) else group, return_inverse=True)
        order = np.argsort(label, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(label[order]) != 0])
        sums = np.add.reduceat(values[:, order], starts, axis=1) if len(group) else np.zeros((0, len(labels)))
        sizes = np.broadcast_to(np.diff(np.r_[starts, m]), sums.shape)
        return sums.reshape(*shape, -1), np.array(sizes).reshape(*shape, -1)
    label, count = _dense(group)
    key = (np.arange(len(values))[:, None] * count + label).ravel()
    sums = np.bincount(key, weights=values.ravel(), minlength=len(values) * count)
    sizes = np.bincount(key, minlength=len(values) * count)
    return sums.reshape(*shape, count), sizes.reshape(*shape, count)


def _groups(group):
    """G: the groups each test set's questions fall in."""
    _, sizes = group_sums(np.zeros(np.shape(group)), group)
    return np.sum(sizes > 0, axis=-1)


def totals(correct, answers, group):
    """The columns the proportion and clustered methods read: pooled (k, n) and per-group (successes, sizes)."""
    successes, _ = group_sums(correct, group)
    sizes, _ = group_sums(np.broadcast_to(answers, np.shape(correct)), group)
    return {"k": np.sum(correct, axis=-1), "n": np.sum(np.broadcast_to(answers, np.shape(correct)), axis=-1),
            "successes": successes, "sizes": sizes}


def _deviations(scores):
    s = np.asarray(scores, dtype=float)
    mean = s.mean(axis=-1)
    return mean, s - mean[..., None]


def question_variance(scores):
    """Miller eq. 1: Σ d_i²/((m - 1)·m), the CLT variance of s̄ from the question scores."""
    _, d = _deviations(scores)
    m = d.shape[-1]
    return np.sum(d * d, axis=-1) / ((m - 1) * m)


def clustered_variance(scores, group):
    """Miller eq. 4: the question variance plus the within-group cross terms Σ_c Σ_{i≠j} d_i·d_j/m²."""
    _, d = _deviations(scores)
    m = d.shape[-1]
    by_group, _ = group_sums(d, group)
    cross = np.sum(by_group * by_group, axis=-1) - np.sum(d * d, axis=-1)
    return question_variance(scores) + cross / (m * m)


def cr1_variance(scores, group):
    """G/(G - 1)·Σ_c (Σ_{i in c} d_i)²/m²: the cluster-robust variance with the finite-cluster factor (inspect_ai)."""
    _, d = _deviations(scores)
    m = d.shape[-1]
    by_group, sizes = group_sums(d, group)
    g = np.sum(sizes > 0, axis=-1)
    return g / (g - 1) * np.sum(by_group * by_group, axis=-1) / (m * m)


def _t(delta, df):
    """Student-t critical value t_{df}(1 - delta/2)."""
    return special.stdtrit(df, 1 - np.asarray(delta, dtype=float) / 2)


def _clip(centre, half, low):
    return np.clip(centre - half, low, 1.0), np.clip(centre + half, low, 1.0)


def _scores(correct, answers):
    return np.asarray(correct, dtype=float) / np.asarray(answers, dtype=float)


def _naive_variance(correct, answers):
    """v/N with v the sample variance (ddof 1) of the N pooled 0/1 answers: (k - k²/N)/((N - 1)·N)."""
    k = np.sum(np.broadcast_to(correct, np.broadcast(correct, answers).shape), axis=-1).astype(float)
    n = np.sum(np.broadcast_to(answers, np.broadcast(correct, answers).shape), axis=-1).astype(float)
    return k / n, (k - k * k / n) / ((n - 1) * n)


@register("eval_naive", display="naive CLT (answers)", takes="eval", family="approximate", guaranteed=False,
          random=False, reference="lm-evaluation-harness mean_stderr on every answer; Miller (2024) eq. 1")
def eval_naive(correct, answers, group, delta, rng=None):
    """k/N ± z·sqrt(v/N): every answer as an independent sample (v: their sample variance, ddof 1)."""
    p, v = _naive_variance(correct, answers)
    return _clip(p, _z(delta) * np.sqrt(v), 0.0)


@register("eval_question", display="question CLT (K averaged)", takes="eval", family="approximate",
          guaranteed=False, random=False, reference="Miller (2024) eq. 1 and §3.2 (answers averaged per question)")
def eval_question(correct, answers, group, delta, rng=None):
    """s̄ ± z·sqrt(Σ d_i²/((m - 1)·m)): questions independent, each question's K answers averaged."""
    s = _scores(correct, answers)
    return _clip(s.mean(axis=-1), _z(delta) * np.sqrt(question_variance(s)), 0.0)


@register("eval_clustered", display="clustered SE (Miller)", takes="eval", family="approximate", guaranteed=False,
          random=False, reference="Miller (2024) eq. 4 (Appendix A)")
def eval_clustered(correct, answers, group, delta, rng=None):
    """s̄ ± z·SE, SE² = Σ d_i²/((m - 1)·m) + Σ_c Σ_{i≠j in c} d_i·d_j/m² (Miller's clustered SE)."""
    s = _scores(correct, answers)
    return _clip(s.mean(axis=-1), _z(delta) * np.sqrt(np.maximum(clustered_variance(s, group), 0.0)), 0.0)


@register("eval_clustered_t", display="clustered t (as Inspect)", takes="eval", family="approximate",
          guaranteed=False, random=False, reference="inspect_ai ci(method='t', cluster=...); Cameron & Miller (2015)")
def eval_clustered_t(correct, answers, group, delta, rng=None):
    """s̄ ± t_{G-1}·SE, SE² = G/(G - 1)·Σ_c (Σ_{i in c} d_i)²/m² (CR1 with G - 1 degrees of freedom)."""
    s = _scores(correct, answers)
    g = _groups(group)
    return _clip(s.mean(axis=-1), _t(delta, g - 1) * np.sqrt(cr1_variance(s, group)), 0.0)


def effective_size(correct, answers, group):
    """Korn–Graubard effective number of answers: min(N, p̂(1 - p̂)/v̂), v̂ the CR1 variance; N where
    either is 0 (p̂ = 0 or 1, or perfectly cancelling groups). Returns (k/N, N, n_eff, G)."""
    s = _scores(correct, answers)
    p, _ = _naive_variance(correct, answers)
    n = np.sum(np.broadcast_to(answers, np.shape(s)), axis=-1).astype(float)
    v = cr1_variance(s, group)
    numerator = p * (1 - p)
    usable = (numerator > 0) & (v > 0)
    n_eff = np.where(usable, np.minimum(numerator / np.where(usable, v, 1.0), n), n)
    return p, n, n_eff, _groups(group)


@register("eval_wilson_design", display="Wilson (design effect)", takes="eval", family="approximate",
          guaranteed=False, random=False,
          reference="Korn & Graubard (1998); inspect_ai ci_wilson(cluster=...)")
def eval_wilson_design(correct, answers, group, delta, rng=None):
    """Wilson on the pooled answers at the effective size n_eff = min(N, p̂(1 - p̂)/v̂_CR1), with t_{G-1} for z.

    Wilson with critical value q: (p̂ + q²/2n' ± q·sqrt(p̂(1 - p̂)/n' + q²/4n'²))/(1 + q²/n'), n' = n_eff.
    """
    p, _, n_eff, g = effective_size(correct, answers, group)
    q = _t(delta, g - 1)
    # Wilson at critical value q is Wilson at the effective counts scaled by (z/q)²
    scale = (_z(delta) / q) ** 2
    return wilson(p * n_eff * scale, n_eff * scale, delta)


@register("eval_clopper_pearson_design", display="Clopper–Pearson (design effect)", takes="eval",
          family="approximate", guaranteed=False, random=False, reference="Korn & Graubard (1998)")
def eval_clopper_pearson_design(correct, answers, group, delta, rng=None):
    """Clopper–Pearson on the effective counts (p̂·n_eff, n_eff), n_eff = min(N, p̂(1 - p̂)/v̂_CR1)."""
    p, n, n_eff, _ = effective_size(correct, answers, group)
    return clopper_pearson_deff(p * n, n, n / n_eff, delta)


# ---- two models on the same questions -------------------------------------------------------

def _differences(first, second, answers):
    return _scores(first, answers) - _scores(second, answers)


@register("paired_eval_unpaired", display="unpaired naive (answers)", takes="paired_eval", family="approximate",
          guaranteed=False, random=False, reference="two harness runs compared: sqrt(SE_A² + SE_B²)")
def paired_eval_unpaired(correct_first, correct_second, answers, group, delta, rng=None):
    """(k_A - k_B)/N ± z·sqrt(v_A/N + v_B/N): each model's naive answer-level SE, as if independent."""
    pa, va = _naive_variance(correct_first, answers)
    pb, vb = _naive_variance(correct_second, answers)
    return _clip(pa - pb, _z(delta) * np.sqrt(va + vb), -1.0)


@register("paired_eval_question", display="paired question CLT", takes="paired_eval", family="approximate",
          guaranteed=False, random=False, reference="Miller (2024) §4 (paired differences, eq. 9 form)")
def paired_eval_question(correct_first, correct_second, answers, group, delta, rng=None):
    """d̄ ± z·sqrt(Σ(d_i - d̄)²/((m - 1)·m)) with d_i = s_Ai - s_Bi: the paired-difference SE."""
    d = _differences(correct_first, correct_second, answers)
    return _clip(d.mean(axis=-1), _z(delta) * np.sqrt(question_variance(d)), -1.0)


@register("paired_eval_clustered", display="paired clustered SE (Miller)", takes="paired_eval",
          family="approximate", guaranteed=False, random=False, reference="Miller (2024) §4 with eq. 4")
def paired_eval_clustered(correct_first, correct_second, answers, group, delta, rng=None):
    """d̄ ± z·SE, Miller's clustered SE (eq. 4) of the paired differences d_i."""
    d = _differences(correct_first, correct_second, answers)
    return _clip(d.mean(axis=-1), _z(delta) * np.sqrt(np.maximum(clustered_variance(d, group), 0.0)), -1.0)


@register("paired_eval_clustered_t", display="paired clustered t", takes="paired_eval", family="approximate",
          guaranteed=False, random=False, reference="CR1 with G - 1 degrees of freedom (inspect_ai's ci form)")
def paired_eval_clustered_t(correct_first, correct_second, answers, group, delta, rng=None):
    """d̄ ± t_{G-1}·sqrt(G/(G - 1)·Σ_c (Σ_{i in c}(d_i - d̄))²/m²)."""
    d = _differences(correct_first, correct_second, answers)
    return _clip(d.mean(axis=-1), _t(delta, _groups(group) - 1) * np.sqrt(cr1_variance(d, group)), -1.0)


@register("paired_eval_bootstrap", display="paired cluster bootstrap", takes="paired_eval", family="approximate",
          guaranteed=False, reference="Davison & Hinkley (1997) ch. 3 (methods/clustered.py cluster_bootstrap)",
          params=(draws_param(1000, "bootstrap resamples"),))
def paired_eval_bootstrap(correct_first, correct_second, answers, group, delta, rng=None, draws=1000):
    """Percentile bootstrap over groups of the mean difference: cluster_bootstrap on the groups' Σ d_i and sizes."""
    d = _differences(correct_first, correct_second, answers)
    sums, sizes = group_sums(d, group)
    lower, upper = cluster_bootstrap(sums, sizes, delta, rng=rng, draws=draws)
    return np.clip(lower, -1.0, 1.0), np.clip(upper, -1.0, 1.0)


def eval_bounds(method, columns: dict, delta, side: str = "two-sided", rng=None, **params):
    """``method``'s interval from eval ``columns`` (correct, answers, group; k, n; successes, sizes) as its kind takes them."""
    if method.takes == "eval":
        return method.bounds((columns["correct"], columns["answers"], columns["group"]), delta, side, rng=rng,
                             **params)
    if method.takes == "clustered" and np.any(np.sum(columns["sizes"] > 0, axis=-1) < 2):
        raise ValueError("group: the clustered methods need at least 2 groups")
    from .clustered import clustered_bounds

    return clustered_bounds(method, columns, delta, side, rng=rng, **params)
