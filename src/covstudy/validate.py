"""Argument checks for the public API: one clear ValueError naming the argument and its valid range."""

from __future__ import annotations

import numpy as np

COUNT_MAX = 10**15  # counts beyond this are not test sets (and leave float64's exact integers)
REPS_MAX = 10**8  # simulated test sets per point: MCSE <= 5e-5; more is hours a point, use the exact engine
DRAWS_MAX = 10**7  # bootstrap resamples or posterior draws of one interval (methods' ``draws``)
LEVELS_MAX = 1000  # points of an ordinal score scale (binormal ``levels``): one root per cut point
RESAMPLE_WORK_MAX = 10**9  # draws × sample size of one resampling interval: ~10 CPU-s (it streams: memory is bounded)
MC_BYTES_MAX = 2 * 10**9  # what one Monte Carlo point holds at once (reps × test-set size), on a shared machine


def not_numbers(value) -> bool:
    """Whether ``value`` holds a bool or a string anywhere (True is not 1, "100" is not 100: mistakes)."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "bSU" or (value.dtype == object and any(map(not_numbers, value.flat)))
    if isinstance(value, (list, tuple)):
        return any(map(not_numbers, value))
    return False


def number(name: str, value, valid: str = "") -> float:
    """``value`` as a float if it is one real number (not a bool or a string); NaN passes, for the caller's range."""
    try:
        if not_numbers(value) or np.ndim(value) != 0:
            raise TypeError
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number{' in ' + valid if valid else ''}, got {value!r}") from None


def array(name: str, value, valid: str, dtype=None) -> np.ndarray:
    """``np.asarray(value, dtype)``; a ragged list (rows of different lengths) or anything else
    numpy cannot hold as one array is a one-line ValueError naming ``name``."""
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        ragged = isinstance(value, (list, tuple)) and len({np.shape(v) if _regular(v) else None for v in value}) > 1
        why = "rows of different lengths" if ragged else "not an array of numbers"
        raise ValueError(f"{name} must be {valid}, got {why}: {_short(value)}") from None


def _regular(value) -> bool:
    try:
        np.shape(value)
        return True
    except ValueError:
        return False


def _short(value) -> str:
    text = " ".join(repr(value).split())  # one line, whatever numpy's repr wraps
    return text if len(text) <= 80 else text[:77] + "..."


def counts(name: str, value, minimum: int = 0, maximum: int = COUNT_MAX) -> np.ndarray:
    """``value`` as an int64 array of whole numbers in [``minimum``, ``maximum``]."""
    if not_numbers(value):
        raise ValueError(f"{name} must be whole numbers >= {minimum}, got {value!r}")
    arr = array(name, value, f"whole numbers >= {minimum}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype == object and all(isinstance(v, int) and not isinstance(v, bool) for v in arr.flat):
        arr = np.asarray(value, dtype=float)  # Python ints beyond 64 bits: refused as too large below
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name} must be whole numbers >= {minimum}, got {value!r}")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
        raise ValueError(f"{name} must be whole numbers >= {minimum}, got non-integer {value!r}")
    if np.any(arr > maximum):  # beyond COUNT_MAX int64 would wrap around
        limit = f"{maximum:.0e}" if maximum == COUNT_MAX else f"{maximum:,}"
        raise ValueError(f"{name} must be at most {limit}, got {int(arr.max())}")
    arr = arr.astype(np.int64)
    if np.any(arr < minimum):
        raise ValueError(f"{name} must be >= {minimum}, got {arr.min()}")
    return arr


def resample_work(name: str, draws: int, size: int, what: str = "observations") -> None:
    """ValueError unless draws × size (resamples × ``what`` each) is at most RESAMPLE_WORK_MAX."""
    if draws * size > RESAMPLE_WORK_MAX:
        raise ValueError(f"{name}: {draws:,} resamples of {size:,} {what} is {draws * size:.1e} draws, "
                         f"at most {RESAMPLE_WORK_MAX:.0e} (~10 CPU-s); lower {name} to {max(1, RESAMPLE_WORK_MAX // size):,}")


def interval(name: str, value, low: float, high: float | None, low_open: bool, high_open: bool) -> np.ndarray:
    """``value`` as a float array inside the interval from ``low`` to ``high`` (None: no upper end)."""
    valid = f"{'(' if low_open else '['}{low:g}, {'inf' if high is None else f'{high:g}'}{')' if high_open else ']'}"
    try:
        if not_numbers(value):
            raise TypeError
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in {valid}, got {value!r}") from None
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    inside = (arr > low) if low_open else (arr >= low)
    if high is not None:
        inside &= (arr < high) if high_open else (arr <= high)
    if not np.all(inside):  # NaN fails too
        bad = float(arr[~inside].flat[0])
        raise ValueError(f"{name} must be in {valid}, got {bad!r}")
    return arr


def unit_interval(name: str, value, *, open_: bool) -> np.ndarray:
    """``value`` as a float array inside (0, 1) if ``open_`` else [0, 1]."""
    return interval(name, value, 0.0, 1.0, open_, open_)


def p_range(value) -> tuple[float, float]:
    """``(lo, hi)``, two numbers in [0, 1] with lo <= hi (a range of true proportions)."""
    try:
        if not_numbers(value):
            raise TypeError
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"p_range must be two numbers (lo, hi) in [0, 1], got {value!r}") from None
    unit_interval("p_range", [lo, hi], open_=False)
    if lo > hi:
        raise ValueError(f"p_range must have lo <= hi, got ({lo:g}, {hi:g})")
    return lo, hi


def scalar(name: str, value):
    """``value`` itself if it is a single number (not an array)."""
    if not _regular(value) or np.ndim(value) != 0:
        raise ValueError(f"{name} must be a single number, got {_short(value)}")
    return value


def seed(value) -> int:
    """A study seed: any whole number >= 0 (SeedSequence takes arbitrarily large ints)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {value!r}")
    return int(value)


def reps_and_seed(reps, seed_value) -> tuple[int | None, int | None]:
    """Monte Carlo settings: whole reps >= 1 and a seed (fresh entropy if None, so it can be
    recorded); (None, None) for the exact engine (reps None)."""
    if reps is None:
        return None, None
    reps = int(counts("reps", scalar("reps", reps), minimum=1, maximum=REPS_MAX))
    return reps, np.random.SeedSequence().entropy if seed_value is None else seed(seed_value)


DELTA_MIN, DELTA_MAX = 1e-10, 0.5  # below 1e-10 some quantile solvers lose their ends (NaN)
DELTA_HINT = "delta is the miss rate: 95% confidence is delta=0.05"


def delta_problem(value) -> str | None:
    """Why ``value`` is not a valid miss rate (a number in [DELTA_MIN, DELTA_MAX]), or None."""
    if not_numbers(value):
        bad = value
    else:
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            arr, bad = None, value
        else:
            if arr.size == 0:
                return "must not be empty"
            ok = (arr >= DELTA_MIN) & (arr <= DELTA_MAX)  # NaN fails too
            if np.all(ok):
                return None
            bad = float(arr[~ok].flat[0])
    return f"must be in [{DELTA_MIN:g}, {DELTA_MAX:g}], got {bad!r} ({DELTA_HINT})"


def delta(value) -> np.ndarray:
    """``value`` as a float array of miss rates in [DELTA_MIN, DELTA_MAX]."""
    problem = delta_problem(value)
    if problem:
        raise ValueError(f"delta {problem}")
    return np.asarray(value, dtype=float)


def k_and_n(k, n) -> tuple[np.ndarray, np.ndarray]:
    n_arr = counts("n", n, minimum=1)
    k_arr = counts("k", k, minimum=0)
    try:
        too_big = k_arr > n_arr
    except ValueError:
        raise ValueError(f"k and n must broadcast together, got shapes {k_arr.shape} and {n_arr.shape}") from None
    if np.any(too_big):
        kb, nb = np.broadcast_arrays(k_arr, n_arr)
        i = np.argmax(too_big)
        raise ValueError(f"k must be in [0, n], got k={kb.flat[i]} > n={nb.flat[i]}")
    return k_arr, n_arr


def class_counts(k_pos, n_pos, k_neg, n_neg) -> tuple[np.ndarray, ...]:
    """Two-class outcome: 0 <= k_pos <= n_pos, 0 <= k_neg <= n_neg, n_pos + n_neg >= 1 (one class may be empty)."""
    arrays = {name: counts(name, value) for name, value in
              (("k_pos", k_pos), ("n_pos", n_pos), ("k_neg", k_neg), ("n_neg", n_neg))}
    try:
        k_pos, n_pos, k_neg, n_neg = np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = ", ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(f"k_pos, n_pos, k_neg and n_neg must broadcast together, got shapes {shapes}") from None
    for k, n, cls in ((k_pos, n_pos, "pos"), (k_neg, n_neg, "neg")):
        if np.any(k > n):
            i = np.argmax(k > n)
            raise ValueError(f"k_{cls} must be in [0, n_{cls}], got k_{cls}={k.flat[i]} > n_{cls}={n.flat[i]}")
    if np.any(n_pos + n_neg == 0):
        raise ValueError("n_pos + n_neg must be >= 1 (at most one class may be empty), got n_pos = n_neg = 0")
    return k_pos, n_pos, k_neg, n_neg


def bounds_out(lower, upper):
    """``(lower, upper)`` as Python floats for scalar input, float arrays otherwise."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    if lower.ndim == 0 and upper.ndim == 0:
        return float(lower), float(upper)
    return lower, upper


def whole(name: str, value, low: int, high: int | None = None) -> int:
    """``value`` as an int if it is one whole number in [low, high] (not a bool, a string or 2.5)."""
    ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer, float, np.floating))
    if ok and isinstance(value, (float, np.floating)):
        ok = bool(np.isfinite(value) and value == round(value))
    valid = f"a whole number >= {low:,}" if high is None else f"a whole number in [{low:,}, {high:,}]"
    if not ok or value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {valid}, got {value!r}")
    return int(value)


def flag(name: str, value) -> bool:
    """``value`` if it is True or False ("yes" and 1 are not: a typo would silently change the question)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def one_dimensional(name: str, arr: np.ndarray) -> np.ndarray:
    """``arr`` if it has at most one axis: a 2-d array is not silently flattened into a list."""
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a number or a 1-d list, got an array of shape {arr.shape}")
    return arr


def test_sets(scores, labels) -> tuple[np.ndarray, np.ndarray]:
    """Calibration test sets, one per row (a 1-d pair is one test set): real scores in [0, 1] and labels in
    {0, 1} of the same shape, as 2-d float arrays."""
    arrays = []
    for name, value, valid, kinds in (("scores", scores, "real numbers in [0, 1]", "iuf"),
                                      ("labels", labels, "0 or 1", "biuf")):
        arr = array(name, value, valid)
        if arr.dtype.kind not in kinds:  # complex, datetime, text: not a probability
            raise ValueError(f"{name} must be {valid}, got {arr.dtype} values: {_short(value)}")
        if arr.size == 0:
            raise ValueError(f"{name} must not be empty")
        if arr.ndim > 2:
            raise ValueError(f"{name} must be one test set (1-d) or one per row (2-d), got shape {arr.shape}")
        arrays.append(np.atleast_2d(arr.astype(float, copy=False)))
    s, y = arrays
    if s.shape != y.shape:
        raise ValueError(f"scores and labels must have the same shape, got {s.shape} and {y.shape}")
    if not (s.min() >= 0 and s.max() <= 1):  # reductions, no temporaries; NaN fails too
        bad = ~((s >= 0) & (s <= 1))
        raise ValueError(f"scores must be probabilities in [0, 1], got {float(s[bad][0])!r}")
    if not (y.min() >= 0 and y.max() <= 1) or np.any(y != np.round(y)):
        bad = (y != 0) & (y != 1)
        raise ValueError(f"labels must be 0 or 1, got {float(y[bad][0])!r}")
    return s, y


def bin_edges(edges) -> np.ndarray:
    """Reliability-diagram bin edges: at least two non-decreasing finite numbers (one bin or more; the
    scores are binned by the inner edges, so the outer ones may be anything below and above them)."""
    arr = array("edges", edges, "non-decreasing numbers", dtype=None)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"edges must be at least two non-decreasing numbers (one bin or more), got {_short(edges)}")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)) or np.any(np.diff(arr) < 0):
        raise ValueError(f"edges must be non-decreasing finite numbers, got {_short(edges)}")
    return arr
