"""Helpers the samplers share: blocks that bound memory, and counts of distinct outcomes."""

from __future__ import annotations

import numpy as np

BLOCK = 1 << 20  # draw at most this many replicates at once to bound memory


def merge(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Sum the counts of equal keys over blocks of ``np.unique(..., return_counts=True)``; keys come out sorted."""
    keys = np.concatenate([k for k, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    key, inverse = np.unique(keys, return_inverse=True)
    return key, np.bincount(inverse, weights=counts, minlength=key.size).astype(np.int64)
