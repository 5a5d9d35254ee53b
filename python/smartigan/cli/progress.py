"""The progress bar of long fits and paths on a terminal."""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Union, Optional, TextIO

__all__ = ["Progress"]


class Progress:
    """A one-line progress bar on a terminal; silent otherwise.

    Parameters
    ----------
    label : str
        Shown before the bar (the method).
    total : int
        Sweeps expected (``n_iter``); the bar shows extra sweeps as ``beyond``.
    n_init : int
        Number of restarts (run in parallel, shown in the line).
    stream : text stream, optional
        Default ``sys.stderr``.
    mode : {"auto", "always", "never"}
        ``"auto"`` draws only when ``stream`` is a terminal (and ``TERM`` is
        not ``dumb``), and only once the run has taken ``delay`` seconds.
    delay : float
        Seconds before the first draw in ``"auto"`` mode, so quick runs stay
        silent.
    beyond : str
        What sweeps past ``total`` are doing (Smartigan's polishing sweeps,
        the re-converging steps of merge-split refinement).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = Progress("smartigan", total=4, n_init=2, stream=out, mode="always")
    >>> bar.update(2, 12.5)
    >>> bar.close()
    >>> "sweep 2/4" in out.getvalue() and "2 restarts" in out.getvalue()
    True
    >>> quiet = io.StringIO()
    >>> Progress("lloyd", 4, 1, stream=quiet, mode="auto").update(1, 3.0)
    >>> quiet.getvalue()
    ''
    """

    def __init__(self, label: str, total: int, n_init: Union[int, str], stream: Optional[TextIO] = None,
                 mode: str = "auto", delay: float = 0.5, beyond: str = "polishing") -> None:
        self.label = label
        self.beyond = beyond
        self.total = max(int(total), 1)
        self.n_init = n_init
        self.stream = stream if stream is not None else sys.stderr
        if mode == "always":
            self.enabled, self.delay = True, 0.0
        elif mode == "never":
            self.enabled, self.delay = False, 0.0
        else:
            isatty = getattr(self.stream, "isatty", None)
            self.enabled = bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"
            self.delay = delay
        self.start = time.perf_counter()
        self.last_draw = -1.0
        self.drawn = False

    def update(self, sweep: int, objective: float) -> None:
        """Redraw (at most 10 times a second) after ``sweep`` sweeps with the best ``objective``."""
        phase = f"sweep {sweep}/{self.total}" if sweep <= self.total else f"sweep {sweep}, {self.beyond}"
        restarts = (f"{self.n_init} restart{'s' if self.n_init != 1 else ''}" if isinstance(self.n_init, int)
                    else f"restarts by work (n_init={self.n_init!r})")
        self._draw(min(sweep, self.total) / self.total, f"{phase} | {restarts} | best {objective:.6g}")

    def update_units(self, done: int, total: int, status: str) -> None:
        """Redraw (at most 10 times a second) with ``done`` of ``total`` units of work and a ``status``.

        Examples
        --------
        >>> import io
        >>> out = io.StringIO()
        >>> Progress("choose-k", 1, 1, stream=out, mode="always").update_units(3, 12, "k=4, growing")
        >>> "[#####---------------] k=4, growing" in out.getvalue()
        True
        """
        self._draw(min(done, total) / max(total, 1), status)

    def _draw(self, fraction: float, status: str) -> None:
        if not self.enabled:
            return
        now = time.perf_counter() - self.start
        if now < self.delay or (self.drawn and now - self.last_draw < 0.1):
            return
        self.last_draw = now
        self.drawn = True
        width = 20
        filled = int(width * fraction)
        bar = "#" * filled + "-" * (width - filled)
        line = f"{self.label} [{bar}] {status} | {now:.1f}s"
        cols = shutil.get_terminal_size((100, 20)).columns
        self.stream.write("\r" + line[: cols - 1].ljust(cols - 1))
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar (if one was drawn)."""
        if self.drawn:
            cols = shutil.get_terminal_size((100, 20)).columns
            self.stream.write("\r" + " " * (cols - 1) + "\r")
            self.stream.flush()
