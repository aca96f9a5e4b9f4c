"""The one line on stderr while numba compiles rootwise's kernels for their first use.

A fresh environment compiles the kernels on the first fit (a minute or more, once; later
processes load them from numba's on-disk cache in a fraction of a second). The line says why
the command is slow this once and how to pay it ahead (``rootwise compile``). It is printed when
numba starts compiling a rootwise kernel ("numba:compile" events), so a warm cache prints
nothing and no guess about the cache's state is needed.
"""

from __future__ import annotations

import sys
import threading

from numba.core import event

NOTICE = ("rootwise: compiling the numba kernels for their first use (once, about a minute or "
          "two; `rootwise compile` does it ahead of time)")


class FirstCompileNotice(event.Listener):
    """Writes ``NOTICE`` to ``stream`` when the first rootwise kernel starts compiling."""

    def __init__(self, stream=None):
        super().__init__()
        self.stream = stream if stream is not None else sys.stderr
        self.said = False
        self._lock = threading.Lock()  # CV folds may compile on several threads at once

    def on_start(self, ev):
        if self.said or not ev.data["dispatcher"].py_func.__module__.startswith("rootwise."):
            return
        with self._lock:
            if self.said:
                return
            self.said = True
            # from the start of a line: a progress line (``progress``) may be on screen
            self.stream.write("\r" + NOTICE + "\n")
            self.stream.flush()

    def on_end(self, ev):
        pass


def notice_while(run, args) -> int:
    """``run(args)`` with the notice armed (not with --quiet)."""
    if getattr(args, "quiet", False):
        return run(args)
    with event.install_listener("numba:compile", FirstCompileNotice()):
        return run(args)
