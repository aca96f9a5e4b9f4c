"""Two lines on stderr when numba compiles rootwise's kernels for more than a second.

A process that finds every kernel it needs precompiled (``_shipped``) or in numba's on-disk cache
compiles nothing and prints nothing. Otherwise the first fit compiles, which takes long enough
that silence would look like a hang: one line says so when a compile has been running for a
second (what, about how long, how to do it ahead of time, and why the precompiled kernels did
not apply when an install has some), and one line when it is over (how many kernels, how long).

It listens to numba's "numba:compile" events for rootwise's own functions, from ``import
rootwise`` on, in the Python API as on the command line. ``ROOTWISE_COMPILE_NOTICE=0`` (or
``quiet()``, the CLI's ``--quiet``) silences it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import time

from numba.core import event

AFTER = 1.0  # seconds a compile runs before the first line is printed
# seconds without a new compile after which it is over: a first fit runs Python between the
# kernels it compiles (longer on a loaded machine), which must not split it into several runs
SETTLE = 2.0
ESTIMATE = "~1 min"  # a first fit's kernels from nothing, on a 2-core machine

START = "rootwise: compiling kernels, {estimate}, once ({why})"
AHEAD = "ahead of time: rootwise compile"
END = "rootwise: compiled {kernels} kernels in {seconds:.0f} s; later runs load them"


def start_line(reason: str | None) -> str:
    """The first line (80 columns at most); ``reason``: why kernels shipped with the install
    were not used, in a few words (None when the install has none)."""
    return START.format(estimate=ESTIMATE, why=reason or AHEAD)


class CompileNotice(event.Listener):
    """Prints ``start_line`` once a run of compiles has lasted ``AFTER`` seconds and ``END`` when
    no compile has followed it for ``SETTLE`` seconds. Compiles nest (a kernel compiles the
    kernels it calls), so a run is over when the outermost one ends."""

    def __init__(self, stream=None, reason: str | None = None, schedule=None):
        super().__init__()
        self.stream = stream
        self.reason = reason
        # schedule(seconds, function, token): run function(token) that much later
        self._schedule = schedule or _timer
        self.enabled = os.environ.get("ROOTWISE_COMPILE_NOTICE", "1") != "0"
        self._lock = threading.Lock()
        self._depth = 0
        self._run = 0  # runs of compiles so far (a start timer belongs to one)
        self._moves = 0  # compiles started so far (an end timer belongs to one)
        self._started = 0.0  # when the current run started; 0 between runs
        self._kernels = 0
        self._said = False

    def on_start(self, ev):
        if not _ours(ev):
            return
        with self._lock:
            self._moves += 1  # an end timer set before this compile is stale now
            if self._depth == 0 and not self._started:  # a new run of compiles
                self._run += 1
                self._started, self._kernels, self._said = time.perf_counter(), 0, False
                self._schedule(AFTER, self._say_start, self._run)
            self._depth += 1

    def on_end(self, ev):
        if not _ours(ev):
            return
        with self._lock:
            self._depth -= 1
            self._kernels += 1
            if self._depth == 0:
                self._schedule(SETTLE, self._say_end, self._moves)

    def _say_start(self, run: int) -> None:
        with self._lock:
            if run != self._run or not self._started or self._said or not self.enabled:
                return  # (quiet: the run is not said, so neither is its end)
            self._said = True
            self._write(start_line(self.reason))

    def _say_end(self, moves: int) -> None:
        with self._lock:
            if moves != self._moves or self._depth or not self._started:
                return  # a compile started since: the run goes on
            if self._said:
                seconds = time.perf_counter() - self._started
                self._write(END.format(kernels=self._kernels, seconds=seconds))
            self._started, self._said = 0.0, False

    def at_exit(self) -> None:
        """A program that ends within SETTLE of its last compile still gets the end line."""
        self._say_end(self._moves)

    def _write(self, line: str) -> None:
        if not self.enabled:
            return
        stream = self.stream if self.stream is not None else sys.stderr
        try:
            # from the start of the line: a progress line may be on the screen
            stream.write("\r" + line + "\n")
            stream.flush()
        except (OSError, ValueError):  # a closed stream: the notice is not worth an error
            pass


def _timer(seconds: float, function, token: int) -> None:
    timer = threading.Timer(seconds, function, args=(token,))
    timer.daemon = True  # never keeps a finished program alive
    timer.start()


def _ours(ev) -> bool:
    module = getattr(ev.data["dispatcher"].py_func, "__module__", "") or ""
    return module.startswith("rootwise.")


NOTICE = CompileNotice()


@contextlib.contextmanager
def quiet():
    """No notice inside the block (the CLI's ``--quiet``)."""
    was = NOTICE.enabled
    NOTICE.enabled = False
    try:
        yield
    finally:
        NOTICE.enabled = was


def install(reason: str | None) -> None:
    """Listen from now on; ``reason``: why shipped kernels were not used (None if none ship)."""
    NOTICE.reason = reason
    event.register("numba:compile", NOTICE)
    atexit.register(NOTICE.at_exit)


def _reason() -> str | None:
    from ._shipped import STATE, SWITCH_VARIABLE

    if STATE.reason and STATE.reason.startswith(SWITCH_VARIABLE):
        return STATE.reason  # the user turned them off: say so even in a source install
    return STATE.reason if STATE.present and not STATE.usable else None


install(_reason())
