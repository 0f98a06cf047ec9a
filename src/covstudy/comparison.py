"""Comparing two classifiers: intervals for a difference of accuracies and the posterior
probability that the first is better.

* ``difference_interval(method, k1, n1, k2, n2)``: two independent test sets (k1 of n1 and k2
  of n2 correct), interval for p1 - p2 (methods/difference.py).
* ``paired_interval(method, both, only_first, only_second, neither)``: both classifiers on the
  same test set, interval for acc_first - acc_second (methods/paired.py).
* ``superiority_probability``: P(first better | data). Paired, under a Dirichlet(prior) prior
  on the four cells, θ12/(θ12 + θ21) ~ Beta(b + prior, c + prior) and θ12 > θ21 exactly when it
  exceeds 1/2, so P = 1 - I_{1/2}(b + prior, c + prior), closed form. Unpaired, with
  independent Beta(prior, prior) posteriors updated to X ~ Beta(k1 + prior, n1 - k1 + prior)
  and Y likewise, P(X > Y) = ∫₀¹ f_Y(y)·(1 - I_y(X's parameters)) dy, by adaptive quadrature
  (absolute error below 1e-10).

Methods are named within their kind (``"newcombe"``); the prefixed (``"diff_newcombe"``) and
qualified (``"difference.newcombe"``) names work too.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import special

from ._lazy import integrate, stats
from . import validate
from .methods.counts import broadcast_counts, difference_counts, paired_confusion_counts

UNPAIRED_MAX = 20_000  # distinct unpaired count sets of one superiority_probability call (~20 CPU-s)


def difference_interval(method: str, k1, n1, k2, n2, delta=0.05, **params):
    """The ``1 - delta`` interval ``(lower, upper)`` for p1 - p2 from two independent test sets.

    A thin wrapper: ``interval(method, k1=..., n1=..., k2=..., n2=..., delta=...)``.

    Parameters
    ----------
    method : str
        A difference method (``methods("difference")``): ``"newcombe"``, ``"wald"``, ... (the
        prefixed ``"diff_newcombe"`` and qualified ``"difference.newcombe"`` work too).
    k1, n1, k2, n2 : int or array
        ``k1`` of ``n1`` correct on the first test set, ``k2`` of ``n2`` on the second; broadcast.
    delta : float or array
        The miss rate in (0, 1).
    **params
        The method's parameters (``a``, ``b`` of bayes).

    Returns
    -------
    Interval
        ``(lower, upper)`` in [-1, 1]: floats for scalar counts, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import difference_interval
    >>> lo, hi = difference_interval("newcombe", 56, 70, 48, 80)
    >>> round(lo, 4), round(hi, 4)
    (0.0524, 0.3339)
    """
    from .intervals import interval

    return interval(method, k1=k1, n1=n1, k2=k2, n2=n2, delta=delta, **params)


def paired_interval(method: str, both, only_first, only_second, neither, delta=0.05, **params):
    """The ``1 - delta`` interval ``(lower, upper)`` for acc_first - acc_second of two classifiers
    scored on the same test set.

    A thin wrapper: ``interval(method, both=..., only_first=..., only_second=..., neither=..., delta=...)``.

    Parameters
    ----------
    method : str
        A paired method (``methods("paired")``): ``"tango"``, ``"newcombe"``, ... (or
        ``"paired_tango"``, ``"paired.tango"``).
    both, only_first, only_second, neither : int or array
        Examples right for both classifiers, for the first only, the second only, neither; broadcast.
    delta : float or array
        The miss rate in (0, 1).
    **params
        The method's parameters.

    Returns
    -------
    Interval
        ``(lower, upper)`` in [-1, 1]: floats for scalar counts, float arrays otherwise.

    Examples
    --------
    >>> from covstudy import paired_interval
    >>> lo, hi = paired_interval("tango", 20, 12, 2, 16)
    >>> round(lo, 4), round(hi, 4)
    (0.0611, 0.3447)
    """
    from .intervals import interval

    return interval(method, both=both, only_first=only_first, only_second=only_second, neither=neither,
                    delta=delta, **params)


def _prior(prior) -> float:
    value = validate.number("prior", prior, "(0, inf)")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"prior must be a finite number > 0, got {prior!r}")
    return value


def superiority_probability(only_first=None, only_second=None, prior: float = 1.0, *, k1=None, n1=None,
                            k2=None, n2=None):
    """Posterior probability that the first classifier is the more accurate (module docstring).

    Paired (one test set): the discordant counts under a Dirichlet(prior, prior, prior, prior)
    prior on the four cells: 1 - I_{1/2}(only_first + prior, only_second + prior) (exact).
    Unpaired (two test sets): Beta(prior, prior) priors, P(p1 > p2 | data) by quadrature to
    1e-10. Arguments broadcast.

    Parameters
    ----------
    only_first, only_second : int or array, optional
        Paired: the test cases only the first, or only the second, classifier gets right.
    prior : float
        The prior's parameter (> 0; 1 is uniform).
    k1, n1, k2, n2 : int or array, optional
        Unpaired (keywords only): k1 of n1 correct for the first classifier, k2 of n2 for the
        second.

    Returns
    -------
    float or ndarray
        P(first more accurate | data): a float for scalar counts.

    Examples
    --------
    >>> from covstudy import superiority_probability
    >>> round(superiority_probability(12, 2), 4)
    0.9963
    >>> round(superiority_probability(k1=56, n1=70, k2=48, n2=80), 4)
    0.9959
    """
    a = _prior(prior)
    unpaired = [v is not None for v in (k1, n1, k2, n2)]
    if any(unpaired):
        if only_first is not None or only_second is not None or not all(unpaired):
            raise ValueError("give either only_first, only_second (paired) or all of k1, n1, k2, n2 (unpaired)")
        k1, n1, k2, n2 = difference_counts(k1, n1, k2, n2)
        rows, inverse = np.unique(np.stack([k1.ravel(), n1.ravel(), k2.ravel(), n2.ravel()], axis=1), axis=0,
                                  return_inverse=True)
        if len(rows) > UNPAIRED_MAX:
            raise ValueError(f"k1, n1, k2, n2: the unpaired probability is one quadrature (~1 ms) per distinct "
                             f"(k1, n1, k2, n2), at most {UNPAIRED_MAX:,} a call, got {len(rows):,}; split the call")
        out = np.array([_unpaired_superiority(x1 + a, m1 - x1 + a, x2 + a, m2 - x2 + a) for x1, m1, x2, m2 in rows])
        return _float_out(out[inverse.ravel()].reshape(k1.shape))
    if only_first is None or only_second is None:
        raise ValueError("give either only_first, only_second (paired) or all of k1, n1, k2, n2 (unpaired)")
    b, c = broadcast_counts(("only_first", "only_second"), (only_first, only_second))
    # P(R > 1/2) for R ~ Beta(b + a, c + a): the reflected form keeps full precision near 1.
    return _float_out(special.betainc(c + a, b + a, 0.5))


def _float_out(values):
    """A Python float for scalar input, a float array otherwise (as the intervals)."""
    values = np.asarray(values, dtype=float)
    return float(values) if values.ndim == 0 else values


def _unpaired_superiority(a1, b1, a2, b2) -> float:
    """P(X > Y), X ~ Beta(a1, b1), Y ~ Beta(a2, b2) independent: ∫ f_Y(y)·P(X > y) dy.

    Scalar special functions, not scipy.stats' frozen distributions: the quadrature calls the
    integrand hundreds of times, and that overhead was most of the cost."""
    log_norm = special.betaln(a2, b2)

    def integrand(t):
        return math.exp(special.xlogy(a2 - 1, t) + special.xlog1py(b2 - 1, -t) - log_norm) * special.betainc(b1, a1, 1 - t)

    # integrate over Y's bulk and tails separately so that the quadrature sees its peak
    cuts = sorted({0.0, *(min(max(float(special.betaincinv(a2, b2, q)), 0.0), 1.0) for q in (1e-6, 0.5, 1 - 1e-6)),
                   1.0})
    total = 0.0
    for lo, hi in itertools.pairwise(cuts):
        if hi > lo:
            total += integrate.quad(integrand, lo, hi, epsabs=1e-12, epsrel=1e-12, limit=200)[0]
    return float(min(max(total, 0.0), 1.0))


def paired_metric_interval(method: str, metric: str, pos_both, pos_only_first, pos_only_second, pos_neither,
                           neg_both, neg_only_first, neg_only_second, neg_neither, delta=0.05, seed: int | None = 0,
                           **params):
    """The ``1 - delta`` interval for metric(first) - metric(second), two classifiers on one test set.

    A thin wrapper: ``interval(method, metric=f"{metric}_difference", pos_both=..., ...)``.

    Parameters
    ----------
    method : str
        A paired-metric method (``methods("paired_metric")``: delta, mover, bootstrap, dirichlet); for
        recall, specificity and accuracy also a paired method (``methods("paired")``: tango, ...),
        applied to the class's (or the summed) 2×2 table.
    metric : str
        recall, specificity, precision, npv, accuracy, f1 or balanced_accuracy.
    pos_both, pos_only_first, pos_only_second, pos_neither : int or array
        Of the positives: how many both classifiers get right, only the first, only the second, neither.
    neg_both, neg_only_first, neg_only_second, neg_neither : int or array
        The same for the negatives.
    delta : float
        The miss rate in (0, 1).
    seed : int or None
        Seeds the draws of bootstrap and dirichlet (default 0: the same call, the same interval).
    **params
        The method's parameters (``draws``; ``prior``, ``mc_error`` of dirichlet).

    Returns
    -------
    Interval
        ``(lower, upper)`` in [-1, 1].

    Examples
    --------
    >>> from covstudy import paired_metric_interval
    >>> lo, hi = paired_metric_interval("delta", "f1", 10, 5, 2, 3, 30, 4, 6, 2)
    >>> round(lo, 4), round(hi, 4)
    (-0.132, 0.2642)
    """
    from .intervals import interval
    from .methods.paired_metrics import COUNTS

    counts = (pos_both, pos_only_first, pos_only_second, pos_neither, neg_both, neg_only_first, neg_only_second,
              neg_neither)
    return interval(method, metric=f"{_metric(metric)}_difference", delta=delta, seed=seed,
                    **dict(zip(COUNTS, counts)), **params)


def _metric(metric) -> str:
    from .methods.paired_metrics import METRICS

    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    return metric


def paired_metric_superiority(metric: str, pos_both, pos_only_first, pos_only_second, pos_neither, neg_both,
                              neg_only_first, neg_only_second, neg_neither, prior: float = 1.0,
                              mc_error: float = 1e-3, seed: int | None = 0) -> tuple[float, float]:
    """P(metric(first) > metric(second) | data) and its Monte Carlo standard error.

    Under the Dirichlet(counts + prior) posterior of the 8 cells (the paired analogue of Goutte
    & Gaussier 2005). No closed form: sampled (methods/paired_metrics.py
    ``posterior_differences``) with at least 0.25/mc_error² draws, so the standard error
    sqrt(P(1 - P)/N) is at most ``mc_error``; the returned error is that of the draws made.

    Parameters
    ----------
    metric : str
        recall, specificity, precision, npv, accuracy, f1 or balanced_accuracy.
    pos_both, pos_only_first, pos_only_second, pos_neither : int
        Of the positives: how many both classifiers get right, only the first, only the second, neither.
    neg_both, neg_only_first, neg_only_second, neg_neither : int
        The same for the negatives.
    prior : float
        The Dirichlet prior count of each cell (> 0; 1 is uniform).
    mc_error : float
        The largest Monte Carlo standard error allowed, in (0, 0.1].
    seed : int or None
        Seeds the draws (default 0: the same call, the same answer).

    Returns
    -------
    tuple
        (P(first > second), its Monte Carlo standard error).

    Examples
    --------
    >>> from covstudy import paired_metric_superiority
    >>> p, err = paired_metric_superiority("f1", 10, 5, 2, 3, 30, 4, 6, 2)
    >>> round(p, 2), err < 1e-3
    (0.73, True)
    """
    from .methods.paired_metrics import posterior_differences

    x = np.array(paired_confusion_counts(pos_both, pos_only_first, pos_only_second, pos_neither, neg_both,
                                         neg_only_first, neg_only_second, neg_neither), dtype=float)
    if x.ndim != 1:
        raise ValueError("paired_metric_superiority takes one table: give the 8 counts as whole numbers, not arrays")
    a = _prior(prior)
    err = validate.number("mc_error", mc_error, "(0, 0.1]")
    if not 0 < err <= 0.1:
        raise ValueError(f"mc_error must be in (0, 0.1], got {mc_error!r}")
    d = posterior_differences(x, _metric(metric), a, err, 0.05, np.random.default_rng(seed))
    d = d[~np.isnan(d)]
    p = float(np.mean(d > 0))
    return p, float(np.sqrt(max(p * (1 - p), 1e-300) / d.size))
