"""Data-generating mechanisms: the distribution of a test set's outcome, exactly or by simulation.

Binomial design: a test set of n examples, each correct with probability p, so the
number of correct predictions k ~ Binomial(n, p). Its outcome space is k = 0..n.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .seeds import stream

_BLOCK = 1 << 20  # draw at most this many replicates at once to bound memory


def binomial_pmf(n: int, p: np.ndarray) -> np.ndarray:
    """Exact outcome probabilities, shape (len(p), n + 1): Binomial(k; n, p) for k = 0..n."""
    p = np.atleast_1d(np.asarray(p, dtype=float))
    return stats.binom.pmf(np.arange(n + 1), n, p[:, None])


def binomial_counts(n: int, p: float, reps: int, seed: int) -> np.ndarray:
    """Histogram over k = 0..n of ``reps`` simulated test sets (each k ~ Binomial(n, p)).

    The replicates are drawn one by one from the stream of the grid point (n, p), so
    the histogram is the same whichever other points or methods are computed.
    """
    rng = stream(seed, design="binomial", n=n, p=p)
    hist = np.zeros(n + 1, dtype=np.int64)
    for start in range(0, reps, _BLOCK):
        k = rng.binomial(n, p, size=min(_BLOCK, reps - start))
        hist += np.bincount(k, minlength=n + 1)
    return hist
