"""A bounded memo: solved rows remembered across calls, the oldest forgotten first.

A call reads what it needs into its own dict before it stores anything, so storing (and evicting)
can never take away a key the call relies on, however many new keys it brings.
"""
from __future__ import annotations

import itertools


class BoundedMemo:
    """A dict of at most ``limit`` entries; storing past it forgets the least recently used ones."""

    def __init__(self, limit: int):
        self.limit = int(limit)
        self._entries: dict = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key) -> bool:
        return key in self._entries

    def found(self, keys) -> dict:
        """The remembered values of ``keys`` (those known), as a new dict; they become the most recent."""
        out = {}
        for k in keys:
            v = self._entries.pop(k, None)
            if v is not None:
                self._entries[k] = v  # re-inserted: dicts keep insertion order, so it is now the newest
                out[k] = v
        return out

    def store(self, items) -> None:
        """Remember ``items`` ((key, value) pairs), then forget the oldest entries beyond the limit."""
        self._entries.update(items)
        excess = len(self._entries) - self.limit
        if excess > 0:  # the oldest go (a call's own keys came last); islice: O(excess), not O(limit)
            for k in list(itertools.islice(self._entries, excess)):
                del self._entries[k]

    def clear(self) -> None:
        self._entries.clear()
