"""What a running study tells its user: a progress bar on a terminal, a heartbeat line elsewhere.

On a terminal tqdm draws a bar in cells. Without one (a batch job, a pipe, a notebook log)
a line ``<study>: 120 of 1485 cells (8%), 35 s elapsed, ~6 min left`` is printed every
``HEARTBEAT`` seconds, so a long run shows it is alive.
"""

from __future__ import annotations

import sys
import threading
import time

from tqdm.auto import tqdm

HEARTBEAT = 10.0  # seconds between heartbeat lines when stderr is not a terminal


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """``with Progress(name, total, show) as p: p.update(cells)``; ``show=None``: a bar on a
    terminal and heartbeat lines otherwise, ``True`` a bar, ``False`` nothing."""

    def __init__(self, name: str, total: int, show: bool | None = None, stream=None):
        self.name, self.total, self.done = name, total, 0
        self.stream = stream or sys.stderr
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = tqdm(total=total, unit="cell", desc=name, file=self.stream,
                        disable=not (tty if show is None else show))
        self._beat = show is None and not tty and total > 0
        self._stop = threading.Event()
        self._start = time.monotonic()

    def __enter__(self):
        if self._beat:
            threading.Thread(target=self._heartbeat, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self.bar.close()

    def update(self, cells: int) -> None:
        self.done += cells
        self.bar.update(cells)

    def line(self) -> str:
        elapsed = time.monotonic() - self._start
        left = f", ~{_duration(elapsed * (self.total - self.done) / self.done)} left" if self.done else ""
        return (f"{self.name}: {self.done} of {self.total} cells ({100 * self.done / self.total:.0f}%), "
                f"{_duration(elapsed)} elapsed{left}")

    def _heartbeat(self) -> None:
        while not self._stop.wait(HEARTBEAT):
            print(self.line(), file=self.stream, flush=True)
