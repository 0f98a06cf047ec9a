"""Multi-class designs: K classes, class prevalences π and a K×K matrix R of P(predicted j | true i).

An outcome is a K×K confusion matrix C, **rows = true class, columns = predicted class**,
carried as the columns ``c{i}_{j}`` (and ``K``). Two ways of drawing a test set of n examples:

* ``multiclass`` (fixed class sizes): n_i = n·π_i apportioned by largest remainders, a class
  whose share rounds to 0 raised to one example (n >= K; see ``class_sizes``); row i of C ~
  Multinomial(n_i, R_i·), rows independent.
* ``multiclass_iid`` (i.i.d. examples): C ~ Multinomial(n, π_i·R_ij) over the K² cells, so a
  class can be empty.

The study axes keep the model simple: ``K`` classes, ``n`` examples, every class's ``recall``
R_ii = recall with its errors spread evenly, R_ij = (1 - recall)/(K - 1), and ``imbalance``
r >= 1, the ratio of the largest to the smallest prevalence, with prevalences geometric in
between: π_i ∝ r^(-i/(K-1)), i = 0..K-1 (r = 1: balanced classes). ``class_model`` gives
(π, R) from the axes; ``exact_outcomes`` and ``simulate_outcomes`` take any π and R.

Exact coverage enumerates what the estimand's methods need (``merge``):

    need        fixed class sizes          i.i.d.                  what it is for
    "trace"     n + 1                      n + 1                   accuracy, micro-F1, BEA
    "diagonal"  Π (n_i + 1)                C(n + 2K - 1, 2K - 1)   macro recall (k_i of n_i)
    None        Π C(n_i + K - 1, K - 1)    C(n + K² - 1, K² - 1)   macro-F1: the whole matrix

every outcome up to EXACT_LIMIT of them (the trace: up to TRACE_TRIM_FROM), as before. Beyond,
only the support (``support_outcomes``; docs/support.md): the outcomes carrying all but
support.BOUND = 1e-15 of the probability, at most SUPPORT_LIMIT of them, counted before any
work. The trace is Binomial(n, Σ π_i R_ii) (i.i.d.) or a sum of one binomial per distinct
recall (fixed sizes: classes of equal recall add up), each at its window, convolved; the rest
are chains of conditional binomials (a multinomial cell given the cells before it; k_i given
n_i), every level's window at BOUND/levels (union bound). So, at recall 0.8 and imbalance 4,
accuracy reaches n = 10⁹; macro recall with fixed sizes K = 2 n ≈ 2.5·10⁵, K = 3 n ≈ 2000
(was ≈ 440); macro-F1 with K = 2 n ≈ 2.5·10⁵ (fixed) and 1000 (i.i.d.); K = 3 macro-F1 stays
near n = 50 (fixed) and 20 (i.i.d.): there the support is most of the table. Monte Carlo
draws C for each test set from the stream keyed by the point and keeps the distinct matrices
with their counts.

Long because one outcome format (the K×K matrix as columns ``c{i}_{j}``) and one class model
(π, R) thread everything here: the two designs, the exact enumeration at the three needs above
(whole table and support: chains of conditional binomials specific to this model), simulation,
and the five estimands that read those outcomes. The support part (~150 lines) is the one
separable piece; it is only ever called by these designs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import special

from .._lazy import stats
from ..estimands import Estimand, register_estimand
from ..methods.multiclass import macro_f1
from ..seeds import stream
from .base import Axis, Design, Outcomes
from .registry import register
from .sampling import BLOCK
from .support import BOUND, window, window_pmf

EXACT_LIMIT = 2_000_000  # up to here every outcome is enumerated (the limit before the support); beyond, the support
TRACE_TRIM_FROM = 10_000  # the trace's n + 1 outcomes: beyond, its support (the full convolution: 21 s at n = 10⁵)
EXACT_N_LIMIT = 10**9  # as the binomial design's (window_pmf checked to there)
SUPPORT_LIMIT = 5_000_000  # most outcomes of a point's support (2K or K² numbers each; K = 3 at 8.2 million: 3.2 GB)
CONVOLUTION_LIMIT = 300_000_000  # multiply-adds of the trace's convolution over distinct recalls (~2 CPU-s)
AXES = (Axis("K", True, 2), Axis("n", True, 1), Axis("recall", False, 0.0, 1.0),
        Axis("imbalance", False, 1.0))


def class_model(K: int, recall: float, imbalance: float) -> tuple[np.ndarray, np.ndarray]:
    """(π, R): prevalences π_i ∝ imbalance^(-i/(K-1)) and R_ii = recall, R_ij = (1 - recall)/(K - 1)."""
    prevalence = float(imbalance) ** (-np.arange(K) / (K - 1))
    rates = np.full((K, K), (1 - recall) / (K - 1))
    np.fill_diagonal(rates, recall)
    return prevalence / prevalence.sum(), rates


def class_sizes(n: int, prevalence) -> np.ndarray:
    """n_i = n·π_i apportioned by largest remainders (Hamilton's method) so that Σ n_i = n; a class
    whose share rounds to 0 still gets one example (needs n >= K), taken from the class most above
    its share (largest n_i - n·π_i among those with n_i >= 2). [42, 12, 6] for n = 60, π = (.7, .2, .1)."""
    # shares rounded to 1e-9 so that float noise in n·π (60·0.7 = 42.00000000000001) decides no tie
    share = np.round(n * np.asarray(prevalence, dtype=float), 9)
    sizes = np.floor(share).astype(np.int64)
    sizes[np.argsort(-(share - sizes), kind="stable")[:n - int(sizes.sum())]] += 1
    for empty in np.flatnonzero(sizes == 0):
        sizes[np.argmax(np.where(sizes >= 2, sizes - share, -np.inf))] -= 1
        sizes[empty] = 1
    return sizes


def cell_names(K: int) -> list[str]:
    return [f"c{i}_{j}" for i in range(K) for j in range(K)]


def matrix(columns: dict) -> np.ndarray:
    """The outcomes' confusion matrices, shape (outcomes, K, K), from the columns ``c{i}_{j}``."""
    K = int(np.asarray(columns["K"]).flat[0])
    return np.stack([np.asarray(columns[c]) for c in cell_names(K)], axis=-1).reshape(-1, K, K)


def columns_of(cells: np.ndarray, K: int) -> dict:
    """Outcome columns from matrices flattened to shape (outcomes, K²)."""
    return {"K": np.full(cells.shape[0], K), **dict(zip(cell_names(K), cells.T))}


def compositions(n: int, parts: int) -> np.ndarray:
    """Every vector of ``parts`` whole numbers >= 0 summing to n, shape (C(n + parts - 1, parts - 1), parts)."""
    if parts == 1:
        return np.array([[n]], dtype=np.int64)
    bars = np.array(list(itertools.combinations(range(n + parts - 1), parts - 1)), dtype=np.int64)
    bars = bars.reshape(-1, parts - 1)
    edges = np.concatenate([np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), n + parts - 1)], 1)
    return np.diff(edges, axis=1) - 1


def multinomial_pmf(x: np.ndarray, n: int, p: np.ndarray) -> np.ndarray:
    """Multinomial(n, p) probabilities of the rows of ``x``."""
    log = special.gammaln(n + 1) - special.gammaln(x + 1).sum(-1) + special.xlogy(x, p).sum(-1)
    return np.exp(log)


def outcome_count(K: int, n: int, sizes, merge) -> int:
    """How many outcomes an exact enumeration has (module docstring's table)."""
    if merge == "trace":
        return n + 1
    if sizes is None:
        return math.comb(n + 2 * K - 1, 2 * K - 1) if merge == "diagonal" else math.comb(n + K * K - 1, K * K - 1)
    if merge == "diagonal":
        return math.prod(int(s) + 1 for s in sizes)
    return math.prod(math.comb(int(s) + K - 1, K - 1) for s in sizes)


def trimmed(K: int, n: int, sizes, merge) -> bool:
    """Whether exact coverage runs on the support (``support_outcomes``): beyond TRACE_TRIM_FROM
    outcomes for the trace, beyond EXACT_LIMIT (the limit before the support) otherwise; below,
    every outcome is enumerated as before."""
    return outcome_count(K, n, sizes, merge) > (TRACE_TRIM_FROM if merge == "trace" else EXACT_LIMIT)


def _product(blocks: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Cartesian product of independent parts (values (m_i, w_i) and probabilities): rows in
    the order of the first part major."""
    values, prob = blocks[0]
    for v, p in blocks[1:]:
        values = np.concatenate([np.repeat(values, len(v), 0), np.tile(v, (len(values), 1))], axis=1)
        prob = np.outer(prob, p).ravel()
    return values, prob


def exact_outcomes(n: int, prevalence, rates, sizes=None, merge=None) -> tuple[dict, np.ndarray]:
    """Every outcome (columns) and its probability; ``sizes`` the fixed class sizes (None: i.i.d.).

    ``merge`` "trace": columns K, k (correct), n; "diagonal": K, k{i}, n{i} (correct and size
    of class i); None: the matrices (``c{i}_{j}``).
    """
    pi, R = np.asarray(prevalence, dtype=float), np.asarray(rates, dtype=float)
    K = pi.size
    if merge == "trace":
        k = np.arange(n + 1)
        if sizes is None:
            weight = stats.binom.pmf(k, n, float(np.sum(pi * np.diag(R))))
        else:
            weight = np.array([1.0])
            for s, r in zip(sizes, np.diag(R)):
                weight = np.convolve(weight, stats.binom.pmf(np.arange(s + 1), s, r))
        return {"K": np.full(n + 1, K), "k": k, "n": np.full(n + 1, n)}, weight
    if merge == "diagonal":
        size_rows = (np.array([sizes]), np.array([1.0])) if sizes is not None else \
            (compositions(n, K), None)
        if size_rows[1] is None:
            size_rows = (size_rows[0], multinomial_pmf(size_rows[0], n, pi))
        parts, weights = [], []
        for row, p_row in zip(*size_rows):
            blocks = [(np.arange(s + 1)[:, None], stats.binom.pmf(np.arange(s + 1), s, R[i, i]))
                      for i, s in enumerate(row)]
            k, p = _product(blocks)
            parts.append(np.concatenate([k, np.broadcast_to(row, k.shape)], axis=1))
            weights.append(p_row * p)
        values, weight = np.concatenate(parts), np.concatenate(weights)
        cols = {"K": np.full(len(values), K)}
        cols.update({f"k{i}": values[:, i] for i in range(K)})
        cols.update({f"n{i}": values[:, K + i] for i in range(K)})
        return cols, weight
    if sizes is None:
        cells = compositions(n, K * K)
        return columns_of(cells, K), multinomial_pmf(cells, n, (pi[:, None] * R).ravel())
    blocks = []
    for i, s in enumerate(sizes):
        row = compositions(int(s), K)
        blocks.append((row, multinomial_pmf(row, int(s), R[i])))
    cells, weight = _product(blocks)
    return columns_of(cells, K), weight


# --- the support (designs/support.py): the outcomes carrying all but BOUND of the probability ---


def _conditional(p: np.ndarray) -> np.ndarray:
    """The chain rule of a multinomial: P(cell j | not cells < j) = p_j / Σ_{j' >= j} p_j' (0 when
    nothing is left), so cell j ~ Binomial(remaining, q_j) given the cells before it."""
    tail = np.cumsum(np.asarray(p, dtype=float)[::-1])[::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip(np.where(tail > 0, p / tail, 0.0), 0.0, 1.0)


def _chains(n: int, pi: np.ndarray, R: np.ndarray, sizes, merge) -> list[tuple[int, list]]:
    """The outcome as independent blocks ``(total, steps)`` of binomial chains (fixed sizes: one
    block per class). A step ``(column, q, then)``: column ~ Binomial(remaining, q), or the
    remaining itself if q is None, which it leaves; ``then = (column2, q2)``: column2 ~
    Binomial(column, q2). "diagonal": (n_i, then k_i ~ Bin(n_i, R_ii)); None: the cells of a
    row (fixed sizes) or of the whole matrix (i.i.d.), each given the ones before it."""
    K = pi.size
    if merge == "diagonal":
        if sizes is not None:
            return [(int(s), [(f"n{i}", None, (f"k{i}", R[i, i]))]) for i, s in enumerate(sizes)]
        q = _conditional(pi)
        return [(n, [(f"n{i}", q[i] if i < K - 1 else None, (f"k{i}", R[i, i])) for i in range(K)])]
    if sizes is not None:
        return [(int(s), [(f"c{i}_{j}", q if j < K - 1 else None, None) for j, q in enumerate(_conditional(R[i]))])
                for i, s in enumerate(sizes)]
    q = _conditional((pi[:, None] * R).ravel())
    return [(n, [(name, q[c] if c < K * K - 1 else None, None) for c, name in enumerate(cell_names(K))])]


def _share(chains) -> float:
    """Each binomial level of every chain leaves out less than BOUND / levels (of its law given
    the levels before it), so the outcomes outside carry less than BOUND in all (union bound)."""
    levels = sum((q is not None) + (then is not None) for _, steps in chains for _, q, then in steps)
    return BOUND / max(levels, 1)


def _windows(trials: np.ndarray, q: float, share: float) -> tuple[np.ndarray, np.ndarray]:
    """``window`` of Binomial(trials, q) for every entry, computed once per distinct trials."""
    u, inv = np.unique(trials, return_inverse=True)
    lo, hi = window(u, q, share)
    return lo[inv], hi[inv]


def _expand(trials: np.ndarray, q: float, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Every x in each entry's window: ``(x, at)``, ``at`` the entry each x extends."""
    lo, hi = _windows(trials, q, share)
    size = hi - lo + 1
    at = np.repeat(np.arange(trials.size), size)
    return lo[at] + np.arange(at.size) - np.repeat(np.cumsum(size) - size, size), at


def _chain_count(total: int, steps: list, share: float, limit: float) -> float:
    """How many outcomes ``_chain`` gives, counted over the distinct remaining totals with their
    multiplicities (no outcome is made); inf as soon as it exceeds ``limit`` (every prefix
    extends to at least one outcome)."""
    r, mult = np.array([total], dtype=np.int64), np.array([1.0])
    for _, q, then in steps:
        if q is not None and np.dot(np.subtract(*window(r, q, share)[::-1]) + 1, mult) > limit:
            return math.inf  # before making the (state, x) pairs
        x, at = (r, np.arange(r.size)) if q is None else _expand(r, q, share)
        m = mult[at]
        if then is not None:
            lo, hi = _windows(x, then[1], share)
            m = m * (hi - lo + 1)
        if m.sum() > limit:
            return math.inf
        r, inv = np.unique(r[at] - x, return_inverse=True)
        mult = np.bincount(inv, m)
    return float(mult.sum())


def _chain(total: int, steps: list, share: float) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The support of one chain: column names, values (outcomes, columns) and probabilities
    (products of the levels' binomial pmfs, scipy's)."""
    r, weight = np.array([total], dtype=np.int64), np.ones(1)
    names, values = [], []
    for name, q, then in steps:
        if q is None:
            x = r
        else:
            x, at = _expand(r, q, share)
            values = [v[at] for v in values]
            r, weight = r[at], weight[at] * stats.binom.pmf(x, r[at], q)
        names.append(name)
        values.append(x)
        r = r - x
        if then is not None:
            y, at = _expand(x, then[1], share)
            values = [v[at] for v in values]
            r, weight = r[at], weight[at] * stats.binom.pmf(y, values[-1], then[1])
            names.append(then[0])
            values.append(y)
    return names, np.stack(values, axis=1), weight


def _trace_groups(n: int, pi: np.ndarray, R: np.ndarray, sizes) -> list[tuple[int, float]]:
    """The trace as a sum of independent binomials (trials, p): i.i.d. Binomial(n, Σ π_i R_ii);
    fixed sizes one per distinct recall (classes of equal recall add up to one binomial)."""
    if sizes is None:
        return [(n, float(np.sum(pi * np.diag(R))))]
    recall = np.diag(R)
    return [(int(np.sum(sizes[recall == r])), float(r)) for r in np.unique(recall)]


def support_size(n: int, prevalence, rates, sizes, merge, limit: float = SUPPORT_LIMIT) -> tuple[float, int]:
    """(outcomes of ``support_outcomes``, multiply-adds of the trace's convolution); the count
    is inf once above ``limit``."""
    pi, R = np.asarray(prevalence, dtype=float), np.asarray(rates, dtype=float)
    if merge == "trace":
        groups = _trace_groups(n, pi, R, sizes)
        widths = [int(hi[0] - lo[0] + 1) for lo, hi in (window(m, q, BOUND / len(groups)) for m, q in groups)]
        work = sum(int(np.sum(widths[:j])) * widths[j] for j in range(1, len(widths)))
        return float(sum(widths) - len(widths) + 1), work
    chains = _chains(n, pi, R, sizes, merge)
    share, count = _share(chains), 1.0
    for total, steps in chains:
        count *= _chain_count(total, steps, share, limit)
        if count > limit:
            return math.inf, 0
    return count, 0


def support_outcomes(n: int, prevalence, rates, sizes=None, merge=None) -> tuple[dict, np.ndarray]:
    """The outcomes carrying all but BOUND of the probability, as ``exact_outcomes`` (same
    columns) gives all of them, and their probabilities (not renormalised).

    "trace": the window of each binomial of ``_trace_groups`` at BOUND/groups, convolved.
    Otherwise the chains of ``_chains`` (fixed-size classes independent: their product)."""
    pi, R = np.asarray(prevalence, dtype=float), np.asarray(rates, dtype=float)
    K = pi.size
    if merge == "trace":
        groups = _trace_groups(n, pi, R, sizes)
        start, weight = 0, np.ones(1)
        for m, q in groups:
            lo, hi = window(m, q, BOUND / len(groups))
            start += int(lo[0])
            weight = np.convolve(weight, window_pmf(m, np.array([q]), int(lo[0]), int(hi[0]))[0])
        k = start + np.arange(weight.size)
        return {"K": np.full(k.size, K), "k": k, "n": np.full(k.size, n)}, weight
    chains = _chains(n, pi, R, sizes, merge)
    share = _share(chains)
    names, blocks = [], []
    for total, steps in chains:
        block_names, values, weight = _chain(total, steps, share)
        names += block_names
        blocks.append((values, weight))
    values, weight = _product(blocks)
    found = dict(zip(names, values.T))
    if merge == "diagonal":
        cols = {"K": np.full(weight.size, K)}
        cols.update({f"{v}{i}": found[f"{v}{i}"] for v in "kn" for i in range(K)})
        return cols, weight
    return {"K": np.full(weight.size, K), **{c: found[c] for c in cell_names(K)}}, weight


def simulate_outcomes(n: int, prevalence, rates, sizes, reps: int, rng) -> tuple[dict, np.ndarray]:
    """The distinct matrices of ``reps`` simulated test sets and their counts; ``sizes`` as in
    ``exact_outcomes``. Drawn in blocks: per block every row's (fixed sizes) or the whole
    matrix's (i.i.d.) multinomial draws, in class order."""
    pi, R = np.asarray(prevalence, dtype=float), np.asarray(rates, dtype=float)
    K = pi.size
    block = max(1, BLOCK // (K * K))
    found: dict = {}
    for start in range(0, reps, block):
        size = min(block, reps - start)
        if sizes is None:
            cells = rng.multinomial(n, (pi[:, None] * R).ravel(), size=size)
        else:
            cells = np.concatenate([rng.multinomial(int(s), R[i], size=size) for i, s in enumerate(sizes)], axis=1)
        unique, count = np.unique(cells, axis=0, return_counts=True)
        for row, c in zip(map(tuple, unique.tolist()), count.tolist()):
            found[row] = found.get(row, 0) + c
    keys = sorted(found)
    return columns_of(np.array(keys, dtype=np.int64), K), np.array([found[k] for k in keys], dtype=np.int64)


class _Multiclass(Design):
    data = "multiclass"
    estimand = "macro_recall"
    axes = AXES
    parametrisations = (("K", "n", "recall", "imbalance"),)
    fixed_sizes: bool

    def points(self, grid: dict) -> list[dict]:
        return [{"K": K, "n": n, "recall": r, "imbalance": g}
                for K, n, r, g in itertools.product(grid["K"], grid["n"], grid["recall"], grid["imbalance"])]

    def model(self, point: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(π, R, class sizes or None) of a point: from its axes, or its full ``prevalence`` and
        ``rates`` where given (``covstudy.multiclass_coverage``)."""
        if "rates" in point:
            pi, R = np.asarray(point["prevalence"], dtype=float), np.asarray(point["rates"], dtype=float)
        else:
            pi, R = class_model(point["K"], point["recall"], point["imbalance"])
        return pi, R, class_sizes(point["n"], pi) if self.fixed_sizes else None

    def check(self, point: dict, exact: bool, merge=None) -> str | None:
        K, n = point["K"], point["n"]
        if self.fixed_sizes and n < K:
            return f"n: design {self.name} gives every class at least one example, so n >= K = {K}; got {n}"
        if K > 100:
            return f"K: design {self.name} takes K <= 100 classes, got {K}"
        if exact and n > EXACT_N_LIMIT:
            return f"n: exact {self.name} coverage needs n <= {EXACT_N_LIMIT:,}, got {n:,}"
        pi, R, sizes = self.model(point)
        if exact and trimmed(K, n, sizes, merge):  # the support's size, counted without making it
            count, work = support_size(n, pi, R, sizes, merge)
            what = {"trace": "k", "diagonal": "(n_i, k_i)", None: "(whole matrices)"}[merge]
            if count > SUPPORT_LIMIT:
                return (f"n: exact {self.name} coverage at K = {K}, n = {n:,} needs at most {SUPPORT_LIMIT:,} "
                        f"outcomes {what} carrying all but {BOUND:g} of the probability, and has more")
            if work > CONVOLUTION_LIMIT:
                return (f"n: exact {self.name} coverage of the trace at K = {K}, n = {n:,} convolves its classes' "
                        f"distinct recalls in {work:,} multiply-adds, more than {CONVOLUTION_LIMIT:,}")
        return None

    keeps_test_sets = True  # its distinct matrices, as many as reps for large n
    sized_by = "K"

    def test_set_numbers(self, point: dict) -> int:
        return point["K"] ** 2

    def table_key(self, point: dict) -> tuple:
        return (point["K"], point["n"])

    def stream_identity(self, point: dict) -> dict:
        return {"design": self.name, **point}

    def truth_inputs(self, point: dict) -> dict:
        pi, R, sizes = self.model(point)
        if sizes is not None:  # the test set's own class proportions
            pi = sizes / sizes.sum()
        return {"prevalence": pi, "rates": R}

    def exact(self, points: list[dict], merge=None) -> Outcomes:
        [pt] = points
        pi, R, sizes = self.model(pt)
        if trimmed(pt["K"], pt["n"], sizes, merge):  # the support only; its pmf is exact, not renormalised
            columns, weight = support_outcomes(pt["n"], pi, R, sizes, merge)
            return Outcomes(columns, weight[None, :])
        columns, weight = exact_outcomes(pt["n"], pi, R, sizes, merge)
        return Outcomes(columns, weight[None, :] / weight.sum())  # exp(log pmf) sums to 1 only to ~1e-15

    def simulate(self, points: list[dict], reps: int, seed: int) -> Outcomes:
        [pt] = points
        pi, R, sizes = self.model(pt)
        columns, count = simulate_outcomes(pt["n"], pi, R, sizes, reps, stream(seed, **self.stream_identity(pt)))
        return Outcomes(columns, count[None, :])


@register
class Multiclass(_Multiclass):
    name = "multiclass"
    fixed_sizes = True
    summary = ("K classes of fixed sizes n_i ≈ n·π_i (π geometric, largest/smallest = imbalance); each row of the "
               "confusion matrix ~ Multinomial(n_i; recall on the diagonal, errors spread evenly)")
    example = {"K": 3, "n": 9, "recall": 0.7, "imbalance": 2.0}


@register
class MulticlassIID(_Multiclass):
    name = "multiclass_iid"
    fixed_sizes = False
    summary = ("K classes, n i.i.d. examples: the confusion matrix ~ Multinomial(n; π_i·R_ij) over K² cells "
               "(a class can be empty)")
    example = {"K": 3, "n": 8, "recall": 0.7, "imbalance": 2.0}


# K classes (the multiclass designs): outcomes are K×K confusion matrices C, rows = true class,
# columns = predicted (columns ``K`` and ``c{i}_{j}``; merged enumerations carry ``k``, ``n``
# or ``k{i}``, ``n{i}`` instead). One example's cell probabilities are P_ij = π_i·R_ij
# (π the class prevalences, R the matrix of P(predicted j | true i)); truths use them:
#
#     accuracy       Σ_i P_ii                                   binomial methods on (trace C, n)
#     micro_f1       = accuracy (single-label data: every error is one FP and one FN, so
#                    micro precision = micro recall = trace/n)  binomial methods on (trace C, n)
#     bea            A_BE(accuracy, K) (``bea``)                 a binomial interval mapped by A_BE
#     macro_recall   mean_i R_ii                                 methods taking "classes"
#     macro_f1       mean_i 2P_ii/(P_i· + P_·i)                  methods taking "multiclass"(_draws)


def bea(accuracy, K):
    """Binary-equivalent accuracy (from "Comparing Classifier Performance — Introduction to BEA"):

        A_BE = ½ + ½·(A^(1/(K-1)) - c)/(1 - c),   c = (1/K)^(1/(K-1)),

    strictly increasing in A, with A_BE(1/K) = ½ (chance), A_BE(1) = 1, and A_BE = A for K = 2.
    Below chance it keeps decreasing past ½, and for K >= 3 it is negative near A = 0
    (A_BE(0) = ½ - c/(2(1 - c)), e.g. -0.18 for K = 3): it is not clipped, so an interval mapped
    through it covers A_BE exactly when the accuracy interval covers A.
    """
    a = np.asarray(accuracy, dtype=float)
    e = 1.0 / (np.asarray(K, dtype=float) - 1)
    c = (1.0 / np.asarray(K, dtype=float)) ** e
    return 0.5 + 0.5 * (a ** e - c) / (1 - c)


def multiclass_cells(inputs: dict) -> np.ndarray:
    """P_ij = π_i·R_ij from a multiclass design's ``truth_inputs``."""
    return np.asarray(inputs["prevalence"], dtype=float)[:, None] * np.asarray(inputs["rates"], dtype=float)


MULTICLASS_METRICS = ("macro_recall", "macro_f1", "accuracy", "micro_f1", "bea")
"""The metrics of a K-class confusion matrix that the multiclass designs estimate.

Examples
--------
>>> from covstudy import MULTICLASS_METRICS, multiclass_interval
>>> MULTICLASS_METRICS
('macro_recall', 'macro_f1', 'accuracy', 'micro_f1', 'bea')
>>> [round(x, 4) for x in multiclass_interval("macro_recall", "union_cp", [[40, 5, 5], [3, 20, 2], [1, 1, 8]])]
[0.5198, 0.9498]
"""


@register_estimand("multiclass", "macro_recall", takes=("classes",))
class MacroRecall(Estimand):
    """mean_i R_ii: methods on the classes' correct counts k_i = C_ii and sizes n_i = Σ_j C_ij."""

    def truth(self, inputs):
        return float(np.mean(np.diag(np.asarray(inputs["rates"], dtype=float))))

    def merge(self, method):
        return "diagonal"

    def counts(self, columns):
        if "k0" in columns:
            K = int(np.asarray(columns["K"]).flat[0])
            return tuple(np.stack([np.asarray(columns[f"{v}{i}"]) for i in range(K)], axis=-1) for v in "kn")
        c = matrix(columns)
        return np.diagonal(c, axis1=-2, axis2=-1), c.sum(-1)

    def valid(self, columns):
        return np.all(self.counts(columns)[1] > 0, axis=-1)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds(self.counts(columns), delta, side, **params)


@register_estimand("multiclass", "macro_f1", takes=("multiclass", "multiclass_draws"))
class MacroF1(Estimand):
    """mean_i 2P_ii/(P_i· + P_·i): methods on the confusion matrix."""

    def truth(self, inputs):
        return float(macro_f1(multiclass_cells(inputs)))

    def valid(self, columns):
        c = matrix(columns)
        return np.all(c.sum(-1) + c.sum(-2) > 0, axis=-1)

    def bounds(self, method, columns, delta, side, rng=None, **params):
        return method.bounds((matrix(columns),), delta, side, rng=rng, **params)


@register_estimand("multiclass", "accuracy", "micro_f1", "bea", takes=("proportion",))
class MulticlassAccuracy(Estimand):
    """Accuracy, micro-F1 (the same number) or BEA: binomial methods on (trace C, n)."""

    def truth(self, inputs):
        a = float(np.trace(multiclass_cells(inputs)))
        return float(bea(a, len(inputs["prevalence"]))) if self.name == "bea" else a

    def merge(self, method):
        return "trace"

    def counts(self, columns):
        if "k" in columns:
            return np.asarray(columns["k"]), np.asarray(columns["n"])
        c = matrix(columns)
        return np.trace(c, axis1=-2, axis2=-1), c.sum(axis=(-2, -1))

    def bounds(self, method, columns, delta, side, rng=None, **params):
        lower, upper = method.bounds(self.counts(columns), delta, side, **params)
        if self.name == "bea":
            K = np.asarray(columns["K"])
            lower, upper = bea(lower, K), bea(upper, K)
        return lower, upper
