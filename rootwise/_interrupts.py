"""SIGINT and SIGTERM during rootwise's work: raised where Python can unwind, never inside numba's
boxing of a kernel's result.

Python runs a signal handler in the main thread between two bytecodes of whatever Python code
is running. Around a kernel call that includes the Python code numba's compiled wrapper calls
while it converts the result (``numba.core.serialize._numba_unpickle`` fetching a NamedTuple's
class, the class's generated ``__new__``); the wrapper does not check for an error there, so a
KeyboardInterrupt raised in it crashed the process (a call through a NULL pointer) or left
``SystemError: ... returned a result with an exception set``.

``deferred()`` wraps a fit, prediction or save of the main thread (and a whole command of the
CLI). Its handler runs the handler it replaced (the default raises KeyboardInterrupt) at once
when every frame between the interrupted one and the block's own may raise: rootwise's code, the
standard library, pandas, numpy, numba while it compiles. When one of them is numba's run-time
Python code, or code generated at run time (``co_filename`` like ``<string>``), the handler only
notes the signal and asks for itself again 20 ms later (a timer thread), by then most likely
back in rootwise's code between two kernels. A long kernel holds the main thread: the engine
returns to Python every fraction of a second (``engine.loop.grow``), where ``check()`` also
stops the threads of cross-validation. SIGTERM with its default action (ending the process)
raises KeyboardInterrupt too, so that files being written are removed (``export.atomic``). An
interrupt that C code swallowed (numpy does, inside pandas) is raised again when the block ends.
"""

from __future__ import annotations

import _thread
import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import numba

P = ParamSpec("P")  # the parameters and result of a method that ``deferring`` wraps
R = TypeVar("R")

SIGNALS = (signal.SIGINT, signal.SIGTERM)
# a deferred signal is delivered again after this many seconds
RETRY = 0.02

_NUMBA = os.path.dirname(os.path.abspath(numba.__file__)) + os.sep


class _State:
    """The one guard of the process (signal handlers belong to the main thread)."""

    def __init__(self):
        self.depth = 0  # nested guarded calls (a fit that predicts)
        self.previous: dict[int, object] = {}  # the handlers to run and to restore
        self.pending: int | None = None  # a signal not yet delivered
        self.raised: BaseException | None = None  # what the replaced handler raised
        self.closing = False  # the block is ending: note signals, deliver none
        self.timer: threading.Timer | None = None
        self.retry_due = False  # the handler runs again for a noted signal
        self.top = None  # the frame the block runs in: the signal's frames are looked at up to it
        self.lock = threading.RLock()  # a second signal may arrive inside the handler


_state = _State()


def check() -> None:
    """A safe point of the work: in the main thread, deliver a signal noted in numba's code, or
    raise again an interrupt that C code swallowed (the work went on after it); in another
    thread, raise KeyboardInterrupt while the main thread's work is being interrupted (the folds
    of cross-validation stop instead of growing to the end)."""
    if _state.depth == 0:
        return
    if threading.current_thread() is threading.main_thread():
        if _state.closing:
            return
        if _state.raised is not None:
            raise _state.raised
        if _state.pending is not None:
            _deliver(sys._getframe(1))
    elif _state.raised is not None:
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred():
    """Run the block with SIGINT and SIGTERM delivered at safe points only (main thread; in any
    other thread it does nothing, inside another such block only that block counts). A signal
    whose handler is ignored (SIG_IGN) or was set outside Python is left alone. The replaced
    handlers are put back when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _state.depth > 0:
        _state.depth += 1
        try:
            yield
        finally:
            _state.depth -= 1
        return
    previous = {}
    for signum in SIGNALS:
        handler = signal.getsignal(signum)
        if handler is not None and handler != signal.SIG_IGN:
            previous[signum] = handler
    _state.previous, _state.pending, _state.raised, _state.closing = previous, None, None, False
    _state.retry_due = False
    _state.top = sys._getframe(2)  # past contextlib's __enter__: the frame of the ``with``
    _state.depth = 1
    try:
        for signum in previous:
            signal.signal(signum, _on_signal)
        yield
    except BaseException as error:
        raised = _close()
        if raised is not None and error is not raised and isinstance(error, Exception):
            # C code turned the interrupt into another error (a SystemError): the interrupt wins
            raise raised from error
        raise
    raised = _close()
    if raised is not None:  # C code swallowed the interrupt: the work still stops
        raise raised


def _close() -> BaseException | None:
    """Put the replaced handlers back; returns what one of them raised during the block, and
    runs the one of a signal still pending (noted during the block's last kernel)."""
    with _state.lock:
        _state.closing = True
        if _state.timer is not None:
            _state.timer.cancel()
            _state.timer = None
    _flush()  # a retry already asked for reaches this module's handler, not the restored one
    for signum, handler in _state.previous.items():
        signal.signal(signum, handler)
    raised = _state.raised
    try:
        if _state.pending is not None and raised is None:
            _deliver(sys._getframe())
    finally:
        _state.previous, _state.pending, _state.raised, _state.depth = {}, None, None, 0
        _state.closing, _state.top = False, None
    return raised


def _flush() -> None:
    """Nothing: calling a Python function lets the interpreter run the handlers of signals that
    arrived (it checks for them on entering a function)."""


def _on_signal(signum, frame) -> None:
    """The handler while a block runs: deliver the signal where raising is safe, else note it."""
    if _state.retry_due:  # asked for by ``_retry``: stale once the signal has been delivered
        _state.retry_due = False
        if _state.pending is None:
            return
    if _state.pending is None:
        _state.pending = signum
    if _state.closing or _state.raised is not None:
        return
    if _may_raise(frame):
        _deliver(frame)
        return
    with _state.lock:
        if _state.timer is None:
            # never raise here: an error inside this handler would reach numba's wrapper too
            try:
                _state.timer = threading.Timer(RETRY, _retry)
                _state.timer.daemon = True
                _state.timer.start()
            except BaseException:  # no thread to be had: the next ``check`` delivers it
                _state.timer = None


def _retry() -> None:
    """Run the handler again (timer thread): the main thread is probably past numba's code."""
    with _state.lock:
        _state.timer = None
        if _state.closing or _state.pending is None or _state.depth == 0:
            return
        _state.retry_due = True
        _thread.interrupt_main(_state.pending)


def _deliver(frame) -> None:
    """Run the replaced handler of the pending signal; keep what it raises (the block raises it
    again if C code swallows it, and ``check`` stops the block's other threads)."""
    signum, _state.pending = _state.pending, None
    handler = _state.previous.get(signum, signal.SIG_DFL)
    if handler == signal.SIG_DFL:  # SIGTERM's default ends the process: unwind instead
        error = KeyboardInterrupt(signal.Signals(signum).name)
    else:
        try:
            handler(signum, frame)
            return  # the program's own handler chose to go on
        except BaseException as raised:
            error = raised
    _state.raised = error
    raise error


def _may_raise(frame) -> bool:
    """Whether an exception raised in ``frame`` unwinds ordinary Python code: not when numba's
    run-time code, or code generated at run time (a NamedTuple's ``__new__``), runs between it
    and the block's own frame, unless numba is compiling (plain Python)."""
    f = frame
    run_time = False
    while f is not None and f is not _state.top:
        name = f.f_code.co_filename
        if name.startswith(_NUMBA):
            if f.f_code.co_name == "_compile_for_args":
                return True  # everything inside is the compiler (no kernel runs while it works)
            run_time = True
        elif name.startswith("<") and not name.startswith("<frozen "):
            run_time = True
        f = f.f_back
    return not run_time


def deferring(method: Callable[P, R]) -> Callable[P, R]:
    """``method`` run inside ``deferred()`` (a fit, a prediction, a save)."""

    @functools.wraps(method)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        with deferred():
            return method(*args, **kwargs)

    return guarded
