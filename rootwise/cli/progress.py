"""What the commands say on stderr besides errors: the progress line of long work (fits,
cross-validation, large predictions) and one-line notes (which algorithm was chosen and why,
the seed a fit draws with). Both fit 80 columns, or the terminal's width when narrower."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time

from rootwise._layout import abbreviate, width, wrap

COLUMNS = 80  # the width of lines on stderr


def stderr_width(stream=None) -> int:
    """Columns a line on ``stream`` (stderr) may take: 80, or the terminal's width when it is a
    terminal narrower than that."""
    stream = stream if stream is not None else sys.stderr
    if not _is_terminal(stream):
        return COLUMNS
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        columns = shutil.get_terminal_size((COLUMNS, 24)).columns
    return max(min(columns, COLUMNS), 20)


def note(args, text: str, *, stream=None) -> None:
    """``rootwise: text`` on stderr (not with --quiet), wrapped to ``stderr_width`` with the
    lines after the first indented."""
    if getattr(args, "quiet", False):
        return
    stream = stream if stream is not None else sys.stderr
    stream.write("\n".join(wrap(text, stderr_width(stream), "rootwise: ", "  ")) + "\n")
    stream.flush()


class Progress:
    """A line on stderr saying what long work is under way and for how long, redrawn in place
    (``\\r``) about once a second, and erased when the work ends. Shown only when stderr is a
    terminal, not with --quiet, and only once the work has taken ``delay`` seconds, so that
    quick commands print nothing. Numba kernels hold the interpreter lock, so the clock may
    pause during one long kernel; it catches up when the kernel returns."""

    def __init__(self, args, message: str, *, stream=None, delay: float = 0.5, every: float = 1.0):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not getattr(args, "quiet", False) and _is_terminal(self.stream)
        self.message = message
        self.delay = delay
        self.every = every
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._shown = 0  # width of the line on screen
        self._thread = None

    def __enter__(self):
        if self.enabled:
            self._start = time.monotonic()
            self._thread = threading.Thread(target=self._run, name="rootwise-progress", daemon=True)
            self._thread.start()
        return self

    def update(self, message: str) -> None:
        """Say what is being done now (the next redraw shows it)."""
        self.message = message

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while True:
            tail = f" ({time.monotonic() - self._start:.0f} s)"
            # one column short of the width: a line that fills the last column makes some
            # terminals wrap, and \r would then redraw only the second row
            room = stderr_width(self.stream) - 1 - len(tail)
            self._draw(abbreviate(f"rootwise: {self.message}", room) + tail)
            if self._stop.wait(self.every):
                return

    def _draw(self, line: str) -> None:
        with self._lock:
            pad = max(self._shown - width(line), 0)
            self.stream.write("\r" + line + " " * pad)
            self.stream.flush()
            self._shown = width(line)

    def __exit__(self, *exc):
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            with self._lock:
                if self._shown:
                    self.stream.write("\r" + " " * self._shown + "\r")
                    self.stream.flush()
                    self._shown = 0
        return False


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
