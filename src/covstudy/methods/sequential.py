"""Confidence sequences for a proportion, and the spending of delta over looks.

A *confidence sequence* is a sequence of intervals C_1, C_2, ... with P(p ∈ C_t for every t) ≥ 1 − delta:
the user may look after every example and stop whenever they like. The kernels here take what
a look sees, ``(k, n, look, delta)`` — k successes of the n examples seen so far, at the
``look``-th look (1, 2, ...) — and return the interval at that look. Each is a function of
(k, n, look) only, so the exact coverage of any stopping rule is a dynamic programme over
(look, k) (designs/sequential.py).

* ``mixture``: the beta-binomial mixture of Howard, Ramdas, McAuliffe and Sekhon (2021),
  "Time-uniform, nonparametric, nonasymptotic confidence sequences" (Annals of Statistics 49),
  in the form of the ``confseq`` package's ``bernoulli_confidence_interval``: for i.i.d.
  Bernoulli(p) with g = p, h = 1 − p its sub-Bernoulli mixture is the likelihood-ratio mixture
  M_n(p) = B(a + k, b + n − k) / B(a, b) / (p^k (1 − p)^(n−k)), a = c·p, b = c·(1 − p),
  c = max(t_opt / (2 log(1/delta) + log(1 + 2 log(1/delta))) − 1, 1e-3) (the mixture's rho
  tuned for the tightest boundary at n = t_opt). M_n(p) is a nonnegative martingale of mean 1
  under p, so by Ville's inequality {p : M_n(p) < 1/delta} misses p at some n with probability
  at most delta. The end points are the roots either side of p̂ (bisection, as confseq does).
* ``betting``: the diversified-Kelly (dKelly) hedged capital process of Waudby-Smith and
  Ramdas (2024), "Estimating means of bounded random variables by betting" (JRSS B 86), as
  ``confseq.betting.dKelly_cs``: K_n(m) = ½·(1/D)Σ_d (1 + c_d(1 − m)/m)^k (1 − c_d)^(n−k)
  + ½·(1/D)Σ_d (1 − c_d)^k (1 + c_d·m/(1 − m))^(n−k), c_d = d/(D + 1), d = 1..D, and the
  sequence {m : K_n(m) < 1/delta}. Both sums are convex in m, so the set is an interval,
  and K_n(p̂) ≤ 1 (each product is at most 1 at m = p̂ by Jensen), so it holds p̂. Constant
  bets keep K a function of (k, n): confseq's grid (breaks) and running intersection over
  every n are left out (the intersection only narrows and depends on the order).
* ``cp_union``: repeated Clopper–Pearson with a union bound over an unlimited number of looks,
  delta_l = delta/(l(l + 1)) at look l (Σ_l delta_l = delta).

``spend(rule, fractions, delta)`` gives the miss rate each look of a fixed schedule may spend
when a fixed-n method is applied at every look: ``none`` (the naive peek: delta at every
look), ``bonferroni`` (delta/L), and the Lan–DeMets alpha-spending functions (Lan and DeMets
1983, "Discrete sequential boundaries for clinical trials", Biometrika 70) of
O'Brien–Fleming type, α(t) = 2 − 2Φ(z_{1−delta/2}/√t), and Pocock type,
α(t) = delta·log(1 + (e − 1)t), at information fractions t_l = n_l/n_L:
delta_l = α(t_l) − α(t_{l−1}). These spend by the union bound (Σ delta_l = delta), which
is valid for any method whose fixed-n coverage is at least 1 − delta_l (Clopper–Pearson) and
conservative next to group-sequential boundaries that use the looks' correlation.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._lazy import stats

from .binomial import clopper_pearson
from .registry import Param, register, register_kind


def _no_door(m, est, counts, delta, side, rng, params, icc):
    """A confidence sequence is a sequence of intervals: its door is ``covstudy.confidence_sequence``."""
    raise ValueError(f"method: {m.qualified} is a confidence sequence; call covstudy.confidence_sequence"
                     f"({m.short!r}, k, n, delta=...) with the successes k and sizes n at every look")


# interval=False: "cp_union" also names a balanced-accuracy method; a confidence sequence is asked for by kind.
register_kind("sequential", ("k", "n", "look"), "confidence sequence", kind="sequential", route=_no_door,
              interval=False)

SPENDING = ("none", "bonferroni", "obf", "pocock")
MIN_DELTA = 1e-12  # a look's spent miss rate is at least this (O'Brien–Fleming spends ~1e-85 at t = 0.01)
_BISECTIONS = 60  # halvings of (0, 1): below 1e-18, under float spacing near any end point


def spend(rule: str, fractions, delta: float) -> np.ndarray:
    """The miss rate each look spends, shape (L,), for information fractions 0 < t_1 < ... < t_L = 1.

    ``rule``: one of ``SPENDING`` (module docstring); never below ``MIN_DELTA``."""
    t = np.asarray(fractions, dtype=float)
    if rule == "none":
        return np.full(t.shape, float(delta))
    if rule == "bonferroni":
        return np.full(t.shape, delta / t.size)
    if rule == "obf":
        z = stats.norm.isf(delta / 2)
        spent = 2 * stats.norm.sf(z / np.sqrt(t))
    elif rule == "pocock":
        spent = delta * np.log1p((np.e - 1) * t)
    else:
        raise ValueError(f"adjust must be one of {', '.join(SPENDING)}, got {rule!r}")
    spent[-1] = delta  # exactly, whatever rounding
    return np.maximum(np.diff(spent, prepend=0.0), MIN_DELTA)


def _bisect(f, outside, inside):
    """A point where f crosses log(1/delta) between ``outside`` (taken as above: f(0) = +inf at the
    lower end, f(1) at the upper, as confseq does) and ``inside`` (p̂, below): bisection, arrays."""
    for _ in range(_BISECTIONS):
        mid = 0.5 * (outside + inside)
        above = f(mid) > 0
        outside = np.where(above, mid, outside)
        inside = np.where(above, inside, mid)
    return 0.5 * (outside + inside)


def _level_set(log_stat, k, n, delta):
    """The interval {m : log_stat(m) < log(1/delta)} around p̂ = k/n, where log_stat(p̂) < log(1/delta):
    its ends by bisection between p̂ and 0 (if k > 0) and 1 (if k < n). Where log_stat stays below
    the level all the way to 0 (the mixture at k = 1), the end is 0 (to within 2^-60)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    phat = k / n
    level = np.log(1 / delta)

    def f(m):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = log_stat(k, n, m) - level
        return np.where(np.isnan(out), np.inf, out)

    lower = np.where(k > 0, _bisect(f, np.zeros_like(phat), phat), 0.0)
    upper = np.where(k < n, _bisect(f, np.ones_like(phat), phat.copy()), 1.0)
    return lower, upper


def mixture_concentration(t_opt: float, delta: float) -> float:
    """c of the beta-binomial mixture's Beta(c·p, c·(1 − p)) (module docstring): confseq's
    r = max(rho − p(1 − p), 1e-3·p(1 − p)) over p(1 − p), with rho = v_opt/(2 log(1/alpha) + log(1 + 2 log(1/alpha))),
    v_opt = p(1 − p)·t_opt (Howard et al. 2021, the two-sided normal mixture's best rho)."""
    log_inv = np.log(1 / delta)
    return max(t_opt / (2 * log_inv + np.log1p(2 * log_inv)) - 1, 1e-3)


def mixture_log_martingale(k, n, p, c):
    """log M_n(p) of the beta-binomial mixture: log B(c·p + k, c(1 − p) + n − k) − log B(c·p, c(1 − p))
    − k log p − (n − k) log(1 − p)."""
    a, b = c * p, c * (1 - p)
    return (special.betaln(a + k, b + n - k) - special.betaln(a, b)
            - special.xlogy(k, p) - special.xlogy(n - k, 1 - p))


@register("mixture", family="exact", guaranteed=True, takes="sequential",
          reference="Howard, Ramdas, McAuliffe, Sekhon (2021), Time-uniform, nonparametric, nonasymptotic "
                    "confidence sequences; the beta-binomial mixture of the confseq package",
          params=(Param("t_opt", 100.0, above=0.0, doc="the sample size at which the boundary is tightest"),),
          display="beta-binomial mixture CS")
def mixture(k, n, look, delta, t_opt=100.0):
    """Beta-binomial mixture confidence sequence (Howard et al. 2021): valid at every n at once."""
    c = mixture_concentration(t_opt, delta)
    return _level_set(lambda k, n, m: mixture_log_martingale(k, n, m, c), k, n, delta)


def betting_log_capital(k, n, m, bets: int):
    """log K_n(m) of the hedged dKelly capital process (module docstring), D = ``bets``."""
    c = (np.arange(1, bets + 1) / (bets + 1)).reshape((-1,) + (1,) * np.ndim(m))
    k, n, m = np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(m, dtype=float)
    up = special.xlogy(k, 1 + c * (1 - m) / m) + (n - k) * np.log1p(-c)
    down = k * np.log1p(-c) + special.xlogy(n - k, 1 + c * m / (1 - m))
    both = np.concatenate([up, down])
    return special.logsumexp(both, axis=0) - np.log(2 * bets)


@register("betting", family="exact", guaranteed=True, takes="sequential",
          reference="Waudby-Smith, Ramdas (2024), Estimating means of bounded random variables by betting "
                    "(the hedged diversified-Kelly capital process, confseq dKelly_cs)",
          params=(Param("bets", 10, above=0.0, integer=True, at_most=1000,
                        doc="D, the number of constant bets averaged"),),
          display="betting CS")
def betting(k, n, look, delta, bets=10):
    """Betting confidence sequence (Waudby-Smith and Ramdas 2024, dKelly): valid at every n at once."""
    return _level_set(lambda k, n, m: betting_log_capital(k, n, m, bets), k, n, delta)


@register("cp_union", family="exact", guaranteed=True, takes="sequential",
          reference="Clopper, Pearson (1934) at delta/(l(l+1)) at look l: a union bound over unlimited looks",
          display="repeated Clopper–Pearson")
def cp_union(k, n, look, delta):
    """Clopper–Pearson at delta/(l(l + 1)) at the l-th look: valid over any number of looks."""
    look = np.asarray(look, dtype=float)
    return clopper_pearson(k, n, delta / (look * (look + 1)))
