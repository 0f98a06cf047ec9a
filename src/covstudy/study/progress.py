"""What a running study tells its user: a progress bar on a terminal, a heartbeat line elsewhere.

Both advance by the estimated cost of the finished cells (``Design.cost``: the outcomes
whose intervals they compute), not by their number: a study's cells differ in cost by orders
of magnitude (n = 10 against n = 1000), and tasks are split by cost, so counting cells or
tasks would sit near 0% for most of a run with a meaningless time left. On a terminal tqdm
draws the bar (percent of the work; the cells done before it). Without one (a batch job, a pipe,
a notebook log) a line ``<study>: 120 of 1485 cells, 31% of the work, 35 s elapsed, ~1 min
left`` is printed every ``HEARTBEAT`` seconds, so a long run shows it is alive.
"""

from __future__ import annotations

import sys
import threading
import time

from tqdm.auto import tqdm

from .cost import duration

HEARTBEAT = 10.0  # seconds between heartbeat lines when stderr is not a terminal


class Progress:
    """``with Progress(name, cells, cost, show) as p: p.update(cells, cost)``: ``cells`` to
    compute of total estimated ``cost``; ``show=None``: a bar on a terminal and heartbeat lines
    otherwise, ``True`` a bar, ``False`` nothing."""

    def __init__(self, name: str, cells: int, cost: float, show: bool | None = None, stream=None):
        self.name, self.cells, self.cost = name, cells, float(cost)
        self.cells_done, self.cost_done = 0, 0.0
        self.stream = stream or sys.stderr
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = tqdm(total=self.cost, desc=f"{name} (0/{cells} cells)", file=self.stream,
                        disable=not (tty if show is None else show), bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}")
        self._beat = show is None and not tty and cells > 0
        self._stop = threading.Event()
        self._start = time.monotonic()

    def __enter__(self):
        if self._beat:
            threading.Thread(target=self._heartbeat, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self.bar.close()

    @property
    def fraction(self) -> float:
        """The share of the estimated work done."""
        return self.cost_done / self.cost if self.cost > 0 else self.cells_done / max(1, self.cells)

    def update(self, cells: int, cost: float) -> None:
        """``cells`` more cells finished, of estimated ``cost``."""
        self.cells_done += cells
        self.cost_done += cost
        self.bar.set_description_str(f"{self.name} ({self.cells_done}/{self.cells} cells)", refresh=False)
        self.bar.update(cost)

    def line(self) -> str:
        elapsed = time.monotonic() - self._start
        share = self.fraction
        left = f", ~{duration(elapsed * (1 - share) / share)} left" if share > 0 else ""
        return (f"{self.name}: {self.cells_done} of {self.cells} cells, {100 * share:.0f}% of the work, "
                f"{duration(elapsed)} elapsed{left}")

    def _heartbeat(self) -> None:
        while not self._stop.wait(HEARTBEAT):
            print(self.line(), file=self.stream, flush=True)
