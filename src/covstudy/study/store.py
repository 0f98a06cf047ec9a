"""The result store of one study folder (``out``): resumable, atomic, locked.

Layout::

    out/results.csv, results.parquet   the tidy table, one row per cell of the current study; the same
                                       bytes for the same config and seed (no wall-clock columns)
    out/study.yaml, provenance.json    the resolved config; versions, commit, times (per cell: summed), cores
    out/parts/*.csv                    finished cells, one file per finished task (with each cell's seconds),
                                       named <time>-<pid>-<cell>.<checksum>.csv
    out/parts/code.json                the fingerprints of the covstudy code that computed them
    out/.lock                          held (flock) while a run writes here

Every file is written to a temporary name and renamed into place, so it is either whole
or absent; a run killed at any moment loses at most the tasks in flight. Parts are
never edited: rows are keyed by ``cell_id`` and the newest part wins, so recomputed
cells (``force=true``) replace old ones without touching them until compaction.

A part's name carries the first 16 hex digits of its SHA-256, so a part changed after it was
written (an edit, a disk fault) is found on reading and its cells computed again. A part without
one (written before the store named parts so, or renamed) is not trusted: nothing ties a value
such as a mean width to the rest of its row, so an edit in range could not be found. It is moved
aside as ``*.csv.unchecked`` and its cells are computed again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd
import yaml


class StoreLocked(RuntimeError):
    """Another run holds the study folder."""


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:  # a full disk or an interrupt: leave no half-written file behind
        tmp.unlink(missing_ok=True)
        raise


def _csv_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)  # floats written with repr: they read back bit for bit
    return buf.getvalue().encode()


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as Parquet whose bytes depend only on its values and the pyarrow version: a
    schema fixed by column kind (text, whole numbers, floats; never inferred from which values
    happen to be empty) and no pandas metadata (it embeds pandas' version and its index)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from .tasks import TEXT_COLUMNS

    def kind(col):
        if col in TEXT_COLUMNS:
            return pa.string()
        return pa.int64() if pd.api.types.is_integer_dtype(frame[col]) else pa.float64()

    schema = pa.schema([(col, kind(col)) for col in frame.columns])
    arrays = [pa.array(frame[col].astype(object).where(frame[col].notna(), None).tolist(), type=field.type)
              for col, field in zip(frame.columns, schema)]
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_arrays(arrays, schema=schema), buf, compression="zstd")
    return buf.getvalue()


def checksum(data: bytes) -> str:
    """The checksum a part's name carries: the first 16 hex digits of the SHA-256 of its bytes."""
    return hashlib.sha256(data).hexdigest()[:16]


UNCHECKED = "no checksum in its name (written before parts had one, or renamed), so its values cannot be checked"


def read_part(path: Path, columns: dict | None = None, ours: str | None = None) -> tuple[pd.DataFrame | None, str | None]:
    """A part's rows, or None and why it is damaged: empty, not a CSV table, cut short (every
    part ends with a newline), not rows as a task writes them (tasks.row_problem: columns,
    types, ranges; exactly ``columns[cell_id]`` for the cells it names), then other bytes than
    its name's checksum; a part without one is ``UNCHECKED``.
    ``ours``: the checksum of the bytes this process wrote there (``Store.save``); the same bytes are
    rows as ``evaluate`` made them, and only that is checked (the row checks cost ~10 ms a part)."""
    from .tasks import row_problem

    stem = path.name.removesuffix(".csv").split(".")
    if len(stem) != 2:  # recomputed, not re-derived: an in-range edit of a mean width would pass any row check
        return None, UNCHECKED
    data = path.read_bytes()
    if ours is not None and checksum(data) == ours:
        return pd.read_csv(io.BytesIO(data)), None
    if not data.strip():
        return None, "empty"
    if not data.endswith(b"\n"):
        return None, "truncated: no final newline"
    try:
        frame = pd.read_csv(io.BytesIO(data))
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        return None, f"not a CSV table: {str(err).splitlines()[0] if str(err) else type(err).__name__}"
    try:
        problem = "no rows" if frame.empty else row_problem(frame, columns)
        if not problem and checksum(data) != stem[1]:
            problem = "not the bytes its name's checksum says: changed after it was written"
    except Exception as err:  # whatever else is wrong makes a damaged part, never a folder stuck on it
        problem = f"unreadable: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    return (None, problem) if problem else (frame, None)


def _move_aside(part: Path, problem: str) -> None:
    """Rename a part that cannot be trusted to ``*.unchecked`` (no checksum) or ``*.damaged`` and say so on stderr:
    its cells count as missing and are computed again."""
    what = "unchecked" if problem == UNCHECKED else "damaged"
    part.rename(part.with_name(f"{part.name}.{what}"))
    print(f"covstudy: warning: {what} part {part} ({problem}); moved aside to {part.name}.{what}, "
          "its cells will be computed again", file=sys.stderr)


class Store:
    """Open with ``with Store(out) as store:``; entering takes the folder's lock."""

    def __init__(self, out: Path, columns: dict[str, tuple] | None = None):
        self.out = Path(out)
        self.parts = self.out / "parts"
        self._lock = None
        self.columns = columns or {}  # cell_id -> its row's columns (tasks.row_columns), for read_part
        self._saved: dict[str, str] = {}  # part name -> checksum of the bytes this process wrote
        self.provenance: dict = {}  # what ``assemble`` adds to provenance.json

    def __enter__(self) -> "Store":
        self.parts.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.out / ".lock", "a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.seek(0)
            holder = self._lock.read().strip() or "another process"
            self._lock.close()
            raise StoreLocked(f"out: {self.out} is in use by another covstudy run ({holder}); "
                              "wait for it to finish or choose another out=") from None
        self._lock.seek(0)
        self._lock.truncate()
        self._lock.write(f"pid {os.getpid()}")
        self._lock.flush()
        return self

    def __exit__(self, *exc) -> None:
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        self._lock.close()

    # --- finished cells -------------------------------------------------------------
    def _part_files(self) -> list[Path]:
        return sorted(self.parts.glob("*.csv"))  # names start with a time stamp: oldest first

    def finished(self) -> pd.DataFrame:
        """Every stored row, newest version of each cell_id, in no particular order.

        A damaged part (``read_part``) is named on stderr and renamed ``*.csv.damaged``, a part
        without checksum ``*.csv.unchecked``, so its cells count as missing and are computed again.
        """
        frames = []
        for f in self._part_files():
            frame, problem = read_part(f, self.columns, self._saved.get(f.name))
            if problem:
                _move_aside(f, problem)
            else:
                frames.append(frame)
        if not frames:
            return pd.DataFrame()
        frame = pd.concat(frames, ignore_index=True)
        return frame.drop_duplicates("cell_id", keep="last")

    def save(self, rows: list[dict]) -> None:
        """Persist the rows of one finished task as a new part."""
        if rows:
            data = _csv_bytes(pd.DataFrame(rows))
            digest = checksum(data)
            name = f"{time.time_ns():020d}-{os.getpid()}-{rows[0]['cell_id'][:8]}.{digest}.csv"
            atomic_write(self.parts / name, data)
            self._saved[name] = digest

    def compact(self) -> pd.DataFrame:
        """Fold all parts into one (keeping rows of cells no longer in the study); return
        every stored row, as ``finished`` does."""
        frame = self.finished()
        files = self._part_files()  # after finished(): it renames damaged parts away
        if len(files) > 1:
            self.save(frame.to_dict("records"))
            for f in files:
                f.unlink()
        return frame

    # --- what the runner asks of every store (runner.run_kind) -------------------------
    def done(self) -> set[str]:
        """The ids of the stored cells (damaged parts moved aside, as ``finished`` does)."""
        frame = self.finished()
        return set(frame["cell_id"]) if len(frame) else set()

    def save_result(self, rows: list[dict]) -> list[str]:
        """Persist what one task returned (``tasks.evaluate``'s rows); return the ids of its cells."""
        self.save(rows)
        return [row["cell_id"] for row in rows]

    def assemble(self, ids: list[str]) -> dict[str, pd.DataFrame]:
        """Compact the parts and return the study's table, {"results": the cells ``ids``' rows in that order};
        ``provenance`` gets their wall seconds (``timings``)."""
        finished = self.compact()
        self.provenance = {"cell_seconds": timings(finished, ids)}
        return {"results": results_table(finished, ids, self.columns)}

    def codes(self) -> list[str]:
        """The fingerprints (``runner.code_fingerprint``) of the code that computed the parts;
        ``["unrecorded"]`` for parts written before the store kept them."""
        path = self.parts / "code.json"
        if path.exists():
            return json.loads(path.read_text())["code"]
        return ["unrecorded"] if self._part_files() else []

    def record_code(self, code: str, only: bool = False) -> None:
        """Add ``code`` to the fingerprints of the parts' code (``only``: every cell is being recomputed)."""
        codes = [] if only else [c for c in self.codes() if c != code]
        atomic_write(self.parts / "code.json", json.dumps({"code": [*codes, code]}).encode())

    # --- study files ----------------------------------------------------------------
    def write_table(self, table: pd.DataFrame) -> list[Path]:
        paths = [self.out / "results.csv"]
        atomic_write(paths[0], _csv_bytes(table))
        try:
            import pyarrow  # noqa: F401  (optional extra)
        except ImportError:
            return paths
        paths.append(self.out / "results.parquet")
        atomic_write(paths[1], parquet_bytes(table))
        return paths

    def read_yaml(self, name: str) -> dict:
        """``out/<name>`` as a mapping, empty if absent or unreadable."""
        try:
            data = yaml.safe_load((self.out / name).read_text())
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            return {}
        return data if isinstance(data, dict) else {}

    def read_json(self, name: str) -> dict:
        try:
            data = json.loads((self.out / name).read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def remove_all(self) -> None:
        """Remove what a run wrote into a folder it created (the run could not start)."""
        for f in [*self.parts.glob("*"), *(self.out / n for n in ("study.yaml", ".lock"))]:
            f.unlink(missing_ok=True)
        for d in (self.parts, self.out):
            with contextlib.suppress(OSError):
                d.rmdir()

    def write_yaml(self, name: str, data: dict) -> None:
        atomic_write(self.out / name, yaml.safe_dump(data, sort_keys=False).encode())

    def write_json(self, name: str, data: dict) -> None:
        atomic_write(self.out / name, (json.dumps(data, indent=2) + "\n").encode())


def results_table(finished: pd.DataFrame, ids: list[str], columns: dict[str, tuple]) -> pd.DataFrame:
    """The current study's rows (cells ``ids``), in grid order, with the columns its rows have in a fixed
    order (the first cell's row, then each later cell's new columns), without wall-clock columns: the
    table is the same bytes for a config and seed, whatever n_jobs, chunking or resumption (rows
    of cells no longer in the study stay in parts/; columns no cell produces are dropped)."""
    from ..designs import DESIGNS
    from .tasks import WALL_CLOCK

    index = pd.Series(range(len(ids)), index=ids)
    table = finished[finished["cell_id"].isin(index.index)].copy()
    table = table.iloc[index[table["cell_id"]].argsort()].reset_index(drop=True)
    # Parts are concatenated in the order they finished, so their union's column order varies: fix it.
    order = dict.fromkeys(c for i in ids for c in columns[i] if c not in WALL_CLOCK)
    table = table[[c for c in order if c in table.columns]]
    integers = {"reps", "seed", "n_valid", *(c for d in DESIGNS.values() for c in d.int_columns)}
    for col in integers:
        if col in table:
            table[col] = table[col].astype("Int64")
    return table


def timings(finished: pd.DataFrame, cell_ids) -> dict:
    """Wall seconds of the table's cells (each when it was last computed, from the parts), in
    total and per method: they differ on every run, so they are kept in provenance.json, not in the table."""
    rows = finished[finished["cell_id"].isin(set(cell_ids))]
    if "seconds" not in rows or rows.empty:
        return {"total": 0.0, "per_method": {}}
    per_method = rows.groupby("method", sort=False)["seconds"].sum()
    return {"total": round(float(rows["seconds"].sum()), 3),
            "per_method": {str(m): round(float(s), 3) for m, s in per_method.items()}}


# --- a study kind's parts (study/kinds.py) ----------------------------------------------
# A study kind's cell has rows in one or more tables, each row a mapping whose keys are its own
# (a calibration study's bin rows and ECE rows differ), so its parts are JSON lines, not CSV: one
# line ``[cell_id, table, row]`` per row and a last line ``[cell_id, null, null]`` per cell (a cell
# may have no rows), floats written with repr (read back bit for bit; NaN as NaN). The table is
# then the same ``pd.DataFrame(rows)`` as the cells computed in one process: the same columns, in
# the same order, the same bytes. Names and checksums as a CSV part's, with the suffix .jsonl.

def _json_default(value):
    """numpy scalars as Python numbers (a kind's rows may hold them); anything else is an error."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"a study kind's row value must be a number, text or null, got {type(value).__name__}")


def kind_part_bytes(cells: list[tuple[str, dict]]) -> bytes:
    """The JSON lines of ``cells``: (cell_id, {table: rows}) each."""
    import json

    lines = []
    for cell_id, tables in cells:
        for table, rows in tables.items():
            lines += [json.dumps([cell_id, table, row], default=_json_default) for row in rows]
        lines.append(json.dumps([cell_id, None, None]))
    return ("\n".join(lines) + "\n").encode()


def read_kind_part(path: Path, tables: tuple[str, ...], ours: str | None = None) -> tuple[dict | None, str | None]:
    """A kind's part as {cell_id: {table: rows}}, or None and why it is damaged: cut short, not JSON
    lines of [cell_id, table, row], a table the kind does not write, a cell without its closing line,
    then other bytes than its name's checksum (``ours``: what this process wrote, not re-checked)."""
    import json

    stem = path.name.removesuffix(".jsonl").split(".")
    if len(stem) != 2:
        return None, UNCHECKED
    data = path.read_bytes()
    if ours is None or checksum(data) != ours:
        if not data.strip():
            return None, "empty"
        if not data.endswith(b"\n"):
            return None, "truncated: no final newline"
        if checksum(data) != stem[1]:
            return None, "not the bytes its name's checksum says: changed after it was written"
    cells: dict[str, dict] = {}
    closed: set[str] = set()
    try:
        for number, line in enumerate(data.decode().splitlines(), 1):
            cell_id, table, row = json.loads(line)
            if not isinstance(cell_id, str) or cell_id in closed:
                raise ValueError(f"line {number}: a cell id, once per cell")
            if table is None and row is None:
                closed.add(cell_id)
                cells.setdefault(cell_id, {})
            elif table in tables and isinstance(row, dict):
                cells.setdefault(cell_id, {}).setdefault(table, []).append(row)
            else:
                raise ValueError(f"line {number}: not [cell_id, one of {', '.join(tables)}, row]")
    except (ValueError, TypeError, UnicodeDecodeError) as err:
        return None, f"not a study kind's rows: {err}"
    if set(cells) - closed:
        return None, "a cell without its closing line"
    return cells, None


class KindStore(Store):
    """The store of a study kind's folder: the lock, atomic writes and study files of ``Store``, with
    the parts as JSON lines (above)."""

    def __init__(self, out: Path, tables: tuple[str, ...]):
        super().__init__(out)
        self.tables = tables

    def _kind_parts(self) -> list[Path]:
        return sorted(self.parts.glob("*.jsonl"))  # oldest first

    def finished_cells(self) -> dict[str, dict]:
        """Every stored cell's rows per table, the newest part's where a cell was computed twice.
        A damaged part is named on stderr and moved aside (``*.jsonl.damaged``), as a CSV part is."""
        cells: dict[str, dict] = {}
        for f in self._kind_parts():
            found, problem = read_kind_part(f, self.tables, self._saved.get(f.name))
            if problem:
                _move_aside(f, problem)
            else:
                cells.update(found)
        return cells

    def done(self) -> set[str]:
        return set(self.finished_cells())

    def save_result(self, cells: list[tuple[str, dict]]) -> list[str]:
        """Persist what one task returned (``kinds.run_task``'s cells); return their ids."""
        self.save_cells(cells)
        return [cid for cid, _ in cells]

    def assemble(self, ids: list[str]) -> dict[str, pd.DataFrame]:
        """Compact the parts and return the kind's tables: each the rows of the cells ``ids``, in that order."""
        stored = self.compact_cells(ids)
        return {t: pd.DataFrame([row for i in ids for row in stored[i].get(t, [])]) for t in self.tables}

    def save_cells(self, cells: list[tuple[str, dict]]) -> None:
        """Persist the cells of one finished task as a new part."""
        if cells:
            data = kind_part_bytes(cells)
            digest = checksum(data)
            name = f"{time.time_ns():020d}-{os.getpid()}-{cells[0][0][:8]}.{digest}.jsonl"
            atomic_write(self.parts / name, data)
            self._saved[name] = digest

    def compact_cells(self, order: list[str]) -> dict[str, dict]:
        """Fold all parts into one (the cells of ``order`` first, in that order, then the others);
        return every stored cell, as ``finished_cells`` does."""
        cells = self.finished_cells()
        files = self._kind_parts()
        if len(files) > 1:
            ids = [*(c for c in order if c in cells), *(c for c in cells if c not in set(order))]
            self.save_cells([(c, cells[c]) for c in ids])
            for f in files:
                f.unlink()
        return cells
