"""Random streams derived from identity, never from loop order.

A grid point's stream is ``SeedSequence(seed, spawn_key=H(identity))`` where ``H`` is
SHA-256 of the canonical JSON of the point's design parameters. Its numbers therefore
do not depend on n_jobs, chunking, ordering, or which other points exist.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np


def canonical(value):
    """A JSON-stable form: numpy scalars become Python ones; floats are rounded to 12 digits."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return round(float(value), 12)
    return value


def identity_key(identity: dict) -> tuple[int, ...]:
    """Eight 32-bit words of SHA-256 over the sorted, canonical JSON of ``identity``."""
    text = json.dumps({k: canonical(v) for k, v in identity.items()}, sort_keys=True)
    digest = hashlib.sha256(text.encode()).digest()
    return tuple(int(w) for w in np.frombuffer(digest, dtype="<u4"))


def stream(seed: int, **identity) -> np.random.Generator:
    """The random generator of the grid point ``identity`` under study seed ``seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=identity_key(identity))))
