"""The planner's door: ``plan()`` (the smallest test-set size meeting a target, under any
design) and ``size_performance()`` (the planner's table row at one size).

The planning wing's flow (arrows point down):

    plan (this door) ──> binomial (the exact binomial planner, on the pmf's support)
                     └─> sizing (every other design: exact search, Monte Carlo, plug-in)
                                  └─> stochastic_root (the seeded Monte Carlo root-finder)
    binomial, sizing ──> search (PlanResult, the sawtooth-aware search and its budgets)

``plan()`` checks the arguments both planners share, then hands the binomial design on
accuracy (no reps, plugin or power) to ``binomial.plan_binomial`` and everything else to
``sizing.plan_design``. ``eval_power`` (an eval's power, closed forms) stands apart.
"""

from __future__ import annotations

from .. import validate
from ..designs import get_design
from .binomial import plan_binomial
from .search import SEARCH_MAX, PlanResult, coverage_ceiling
from .sizing import plan_design


def plan(method: str, delta: float = 0.05, p: float | None = None, width: float | None = None,
         width_prob: float | None = None, coverage_tol: float | None = None, p_range=None,
         side: str = "two-sided", n_max: int = 10**6, horizon: int = 20, p_points: int = 51, *,
         design: str = "binomial", metric: str | None = None, assurance: float | None = None,
         coverage: float | None = None, reps: int | None = None, seed: int | None = 0, plugin: bool = False,
         power: float | None = None, null: float | None = None, **axes_and_params) -> PlanResult:
    """The smallest test-set size meeting the target, under any design, with a table.

    The binomial design (the default; exact, binomial.py) takes ``p`` or ``p_range``
    and at least one of ``width`` and ``coverage_tol`` (several targets: all must hold).
    Every other design takes its axes but the size it solves for (``Design.size_axis``: ``n``
    at a ``prevalence``, ``n1`` at a ``ratio`` n2/n1 for ``unpaired``, ``clusters`` at a
    ``cluster_size`` for ``clustered``) and plans at that point (sizing.py): exactly where the
    design enumerates its outcomes, else by Monte Carlo with a seeded stochastic root-finder
    (stochastic_root.py) whose 95% interval is ``.n_interval``. docs/planning.md.

    Parameters
    ----------
    method : str
        An interval method of the design's kind and metric (binomial: a proportion method,
        ``"wilson"``, ``methods("proportion")``; unpaired: ``"newcombe"`` ...).
    delta : float
        The miss rate in (0, 1): the interval's level is 1 - delta.
    p : float, optional
        The assumed accuracy (binomial, clustered).
    width : float, optional
        Target: expected width <= width (at the worst p), or with ``width_prob``
        P(width <= width) >= width_prob.
    width_prob : float, optional
        The probability in (0, 1) for the width target.
    coverage_tol : float, optional
        Target: coverage >= 1 - delta - coverage_tol for every p of the range (the exact
        infimum; over-coverage is allowed).
    p_range : (float, float), optional
        A range of accuracies instead of ``p``: every target must hold over all of it.
    side : {"two-sided", "lower", "upper"}
        The interval's side; a one-sided bound's "width" is its margin from p̂.
    n_max : int
        The largest size searched (exact binomial planner: at most 10⁸ at one p, 10⁶ over a range).
    horizon : int
        The target must hold at n and keep holding up to n + horizon (module docstring; exact engines).
    p_points : int
        How many equally spaced p of ``p_range`` the width targets are checked at (at most 1,000).
    design : str
        A registered design (``DESIGNS``); keyword only, as are the parameters below.
    metric : str, optional
        The estimand (default: the design's).
    assurance : float, optional
        With ``width``: P(width <= width) >= assurance (1 - γ); the same as ``width_prob``.
    coverage : float, optional
        Target: coverage >= coverage (= 1 - delta - ε; ``coverage_tol`` is ε), at most 1 - delta.
    reps, seed : int, optional
        Monte Carlo test sets per evaluated size (default: exact where possible, else 1000)
        and the seed of their streams.
    plugin : bool
        presize's plug-in answer instead: the size at which the interval at the expected
        counts has width ``width`` (``.n_continuous``: the real root; ``.n`` its ceiling).
    power, null : float, optional
        Target: P(the interval excludes ``null``) >= power, the power of the test that
        inverts the interval (``null`` defaults to the estimand's: 0 for a difference; it must
        lie in the metric's range, [0, 1] or [-1, 1] for a difference).
    **axes_and_params
        The method's parameters and, for designs other than binomial, the design's other
        axes (``prevalence``, ``tpr``, ``tnr``, ``p1``, ``p2``, ``ratio``, ``auc``,
        ``cluster_size``, ``icc`` ...).

    Returns
    -------
    PlanResult
        ``.n`` (on ``.size_axis``), the target in words, and ``.table`` (``.to_frame()``) of
        nearby sizes with their mean width and (minimum) coverage, and P(width <= width) where
        asked; ``print(result)`` shows both.

    Raises
    ------
    ValueError
        If no size <= n_max meets the target, or an input is invalid; or if the search exceeds
        its work bound (``SEARCH_MAX`` sizes, ``SEARCH_OUTCOMES`` outcomes: docs/planning.md).

    Examples
    --------
    >>> from covstudy import plan
    >>> plan("wilson", p=0.9, width=0.1).n
    139
    >>> plan("wilson", p_range=(0.8, 0.95), coverage_tol=0.01).n
    517
    >>> plan("wilson", design="stratified", metric="recall", prevalence=0.2, tpr=0.9, tnr=0.8,
    ...      width=0.1).n
    693
    """
    plugin = validate.flag("plugin", plugin)  # plugin="yes" is a typo, not True
    validate.counts("p_points", validate.scalar("p_points", p_points), minimum=1)  # checked even without p_range
    # a window longer than the sizes a search may evaluate could never be checked: refused, not searched
    validate.counts("horizon", validate.scalar("horizon", horizon), minimum=0, maximum=SEARCH_MAX)
    if width_prob is not None and assurance is not None:
        raise ValueError("assurance: give assurance or width_prob (the same thing), not both")
    assurance = width_prob if assurance is None else assurance
    if coverage is not None and coverage_tol is not None:
        raise ValueError("coverage: give coverage (the level) or coverage_tol (its distance below 1 - delta), not both")
    name = get_design(design).name
    binomial_metric = metric in (None, "accuracy")
    if name == "binomial" and binomial_metric and reps is None and not plugin and power is None:
        if coverage is not None:
            d = float(validate.delta(validate.scalar("delta", delta)))
            c = float(validate.unit_interval("coverage", validate.scalar("coverage", coverage), open_=True))
            coverage_tol = max(0.0, 1 - d - coverage_ceiling(c, d))
        return plan_binomial(method, delta, p, width, assurance, coverage_tol, p_range, side, n_max, horizon,
                             p_points, **axes_and_params)
    if p_range is not None:
        raise ValueError(f"p_range: a range of accuracies is planned by the exact binomial planner only "
                         f"(design binomial, no reps, no plugin)")
    if coverage_tol is not None:
        coverage_tol = float(validate.unit_interval("coverage_tol", validate.scalar("coverage_tol", coverage_tol),
                                                    open_=False))
        coverage = 1 - float(validate.delta(validate.scalar("delta", delta))) - coverage_tol
    given = {**({"p": p} if p is not None else {}), **axes_and_params}
    return plan_design(method, name, metric, delta, width, assurance, coverage, side, reps, seed, n_max, horizon,
                       plugin, given, power=power, null=null)


def size_performance(method: str, size: int, width: float | None = None, *, design: str = "binomial",
                     metric: str | None = None, delta: float = 0.05, reps: int | None = None, seed: int | None = 0,
                     **axes_and_params) -> dict:
    """The planner's table row at one size: what a test set of that size gives.

    Parameters
    ----------
    method : str
        An interval method of the design's kind and metric.
    size : int
        The value of the design's size axis (``n``; unpaired ``n1``; clustered ``clusters``).
    width : float, optional
        Also P(width <= width), e.g. the assurance of a plug-in answer.
    design, metric, delta : optional
        As for ``plan``.
    reps, seed : int, optional
        None: exact where the design allows, else 1000 simulated test sets; an integer: that
        many simulated test sets, from streams seeded by ``seed``.
    **axes_and_params
        The design's other axes (as for ``plan``) and the method's parameters.

    Returns
    -------
    dict
        The size, the design's other sizes (n_pos, n_neg, n2 ...), ``mean_width``,
        ``prob_width`` (with ``width``), ``coverage``; Monte Carlo also ``sd_width``.

    Examples
    --------
    >>> from covstudy import size_performance
    >>> row = size_performance("wilson", 141, width=0.1, p=0.9)
    >>> round(row["mean_width"], 4), round(row["prob_width"], 3)
    (0.0991, 0.559)
    """
    return plan_design(method, get_design(design).name, metric, delta, width, None, None,
                       "two-sided", reps, seed, 10**15, 0, False, dict(axes_and_params), at=size)
