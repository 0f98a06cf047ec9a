"""The design registry: name -> Design instance, filled by ``@register`` on each design class."""

from __future__ import annotations

import difflib

from .base import Design

DESIGNS: dict[str, Design] = {}
"""Every registered design (data-generating mechanism) by name: its axes, estimands and engines.

Examples
--------
>>> from covstudy import DESIGNS
>>> sorted(DESIGNS)[:4]
['binomial', 'binormal', 'calibration', 'clustered']
>>> [axis.name for axis in DESIGNS["binomial"].axes]
['n', 'p']
"""


def register(cls: type[Design]) -> type[Design]:
    """Class decorator: register one instance of ``cls`` under ``cls.name``."""
    if cls.name in DESIGNS:
        raise ValueError(f"design {cls.name!r} is already registered")
    DESIGNS[cls.name] = cls()
    return cls


def get_design(name) -> Design:
    """The design registered as ``name``; otherwise a one-line ValueError listing the designs."""
    if isinstance(name, str) and name in DESIGNS:
        return DESIGNS[name]
    close = difflib.get_close_matches(str(name), list(DESIGNS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(f"design must be one of {', '.join(DESIGNS)}, got {name!r}{hint}")
