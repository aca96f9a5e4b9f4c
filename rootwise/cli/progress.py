"""The progress line of long work (fits, cross-validation, large predictions) on stderr."""

from __future__ import annotations

import sys
import threading
import time


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
            self._draw(f"rootwise: {self.message} ({time.monotonic() - self._start:.0f} s)")
            if self._stop.wait(self.every):
                return

    def _draw(self, line: str) -> None:
        with self._lock:
            pad = max(self._shown - len(line), 0)
            self.stream.write("\r" + line + " " * pad)
            self.stream.flush()
            self._shown = len(line)

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
