"""The audit cache: a second run on the same counts reads each audit instead of recomputing it.

An audit (``audit.audit_metric``) is a pure function of what it sees: the metric's spec (design, operating
point, region, the AUC's scores — the sufficient statistics of the test set, not its rows), the method, delta,
reps, seed and the cut the budget made (``cost``). Its key is a BLAKE2b digest of those and of covstudy's
source files (``code_digest``: any change of the code recomputes everything); its value the audit's columns, one JSON file per key in
``folder()``:

    $COVSTUDY_CACHE, else $XDG_CACHE_HOME/covstudy, else ~/.cache/covstudy  (the XDG base directory
    convention, "XDG Base Directory Specification", freedesktop.org)

Each entry is written to a temporary file in the same folder and renamed into place (``os.replace`` is
atomic on one file system), so a reader sees a whole entry or none; one that does not parse, or parses
to something else than a dict of the audit's columns, is ignored and recomputed. A folder that cannot be
written is skipped silently: the cache only saves time, it never changes a result or fails a run.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

ENV = "COVSTUDY_CACHE"
LIMIT = 20_000  # entries kept; beyond, the oldest (by modification time) are removed at the next write
COLUMNS = {"coverage_at_estimate", "coverage_mcse", "worst_coverage", "worst_mcse", "worst_bound", "worst_at",
           "mean_width", "engine", "reps", "audit", "note"}


def folder() -> Path:
    """Where entries live: $COVSTUDY_CACHE, else $XDG_CACHE_HOME/covstudy, else ~/.cache/covstudy."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or ""
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "covstudy"


def _plain(value):
    """A JSON-able, order-stable form of a spec field (arrays by their bytes' digest)."""
    if isinstance(value, np.ndarray):
        a = np.ascontiguousarray(value)
        return ["array", str(a.dtype), list(a.shape), hashlib.blake2b(a.tobytes(), digest_size=16).hexdigest()]
    if isinstance(value, dict):
        return [[str(k), _plain(v)] for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        value = value.item()
    if isinstance(value, float):
        return repr(value)  # every bit, and NaN / inf as text
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return repr(type(value))  # a callable (point_of, project, scale): made from the fields above


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of covstudy's own source files: an audit cached by one build is never read by another.
    Stronger than the version number, which a development install keeps while its code changes."""
    h = hashlib.blake2b(digest_size=16)
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def key(s, qualified, delta, reps, seed, cut) -> str:
    """The digest of everything the audit of ``qualified`` on spec ``s`` depends on (module docstring)."""
    fields = {f: getattr(s, f) for f in ("metric", "design", "coverage_metric", "points", "multiclass", "region",
                                         "box", "at", "scores", "plug_in_only")}
    text = json.dumps([code_digest(), _plain(fields), qualified, repr(float(delta)), reps, seed, _plain(cut)])
    return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()


def read(digest: str, where: Path | None = None) -> dict | None:
    """The entry's audit columns, or None (absent, damaged or of another shape: recomputed)."""
    path = (where or folder()) / f"{digest}.json"
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or not set(value) <= COLUMNS:
        return None
    return value


def write(digest: str, value: dict, where: Path | None = None) -> None:
    """Store the audit's columns atomically (``_write_json``); errors are ignored."""
    plain = {k: (float(v) if isinstance(v, (np.floating, np.integer)) and not isinstance(v, np.bool_) else v)
             for k, v in value.items() if k in COLUMNS}
    _write_json(digest, plain, where)


def _trim(where: Path) -> None:
    """Keep at most LIMIT entries, the most recently written."""
    entries = list(where.glob("*.json"))
    if len(entries) <= LIMIT:
        return
    entries.sort(key=lambda p: p.stat().st_mtime)
    for p in entries[: len(entries) - LIMIT]:
        try:
            p.unlink()
        except OSError:
            pass


def memo(name: str, parts, compute, valid, use: bool = True):
    """``compute()``, or its value from the cache: for what is not an audit of a spec (the calibration rows'
    audit), keyed by ``name``, ``parts`` (as ``key``'s fields: arrays by their digest) and ``code_digest``.
    ``valid(value)`` checks a value read back (JSON: tuples come back as lists); one that fails is recomputed.
    ``use`` False: neither read nor written (``--no-cache``)."""
    if not use:
        return compute()
    digest = _memo_digest(name, parts)
    found = _memo_read(digest, valid)
    if found is not None:
        return found
    value = compute()
    _write_json(digest, {"memo": value}, default=lambda v: v.item() if isinstance(v, np.generic) else str(v))
    return value


def memo_held(name: str, parts, valid) -> bool:
    """Whether ``memo(name, parts, ...)`` would read its value back rather than compute it (the forecast's question:
    what the cache answers costs nothing to forecast)."""
    return _memo_read(_memo_digest(name, parts), valid) is not None


def _memo_digest(name: str, parts) -> str:
    return hashlib.blake2b(json.dumps([code_digest(), name, _plain(parts)]).encode(), digest_size=20).hexdigest()


def _memo_read(digest: str, valid):
    """The value of a memo entry, or None if there is none or it is damaged (``valid`` fails)."""
    try:
        with open(folder() / f"{digest}.json", encoding="utf-8") as fh:
            found = json.load(fh)
        if isinstance(found, dict) and set(found) == {"memo"} and valid(found["memo"]):
            return found["memo"]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass
    return None


def _write_json(digest: str, value, where: Path | None = None, default=None) -> None:
    """A JSON value written atomically (a temporary file renamed into place, so a reader never sees half an entry);
    errors are ignored (a value JSON cannot hold is not cached). ``default`` as ``json.dumps``'s."""
    where = where or folder()
    tmp = None
    try:
        where.mkdir(parents=True, exist_ok=True)
        text = json.dumps(value, default=default)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".entry-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, where / f"{digest}.json")
        tmp = None
        _trim(where)
    except (OSError, TypeError, ValueError):
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def restore(value: dict) -> dict:
    """The audit's columns as the table holds them: JSON's null for a float column is NaN."""
    out = dict(value)
    for k in ("coverage_at_estimate", "coverage_mcse", "worst_coverage", "worst_mcse", "worst_bound", "mean_width"):
        if k in out and out[k] is None:
            out[k] = math.nan
    return out
