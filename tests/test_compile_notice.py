"""The compile notice: a line on stderr when kernels compile for more than a second, one when the
compile is over, nothing for a process that compiles nothing.

The listener's logic is driven with numba-like events and a scheduler the test fires by hand (no
clock); one child process then compiles a real kernel into an empty cache, with the notice's
delays set to 0, and a second child with the same cache must print nothing.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

import rootwise
from rootwise import _compile_notice as notice
from rootwise._shipped import _why_not

HERE = os.path.dirname(os.path.dirname(os.path.abspath(rootwise.__file__)))


def _event(module: str = "rootwise.engine.arrays"):
    function = SimpleNamespace(__module__=module)
    return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=function)})


class Clock:
    """A scheduler that keeps what it is asked to run, to be fired by the test."""

    def __init__(self):
        self.pending = []

    def __call__(self, seconds, function, token):
        self.pending.append((seconds, function, token))

    def fire(self, seconds):
        """Run (and forget) everything scheduled ``seconds`` after its cause."""
        due = [p for p in self.pending if p[0] == seconds]
        self.pending = [p for p in self.pending if p[0] != seconds]
        for _, function, token in due:
            function(token)


@pytest.fixture
def listener():
    stream, clock = io.StringIO(), Clock()
    return notice.CompileNotice(stream=stream, schedule=clock), stream, clock


def _lines(stream) -> list[str]:
    return [line.lstrip("\r") for line in stream.getvalue().split("\n") if line]


def test_a_long_compile_says_when_it_starts_and_when_it_ends(listener):
    n, stream, clock = listener
    n.enabled = True
    n.on_start(_event())  # the outermost compile ...
    n.on_start(_event())  # ... compiles a kernel it calls
    n.on_end(_event())
    clock.fire(notice.AFTER)  # a second later it still runs: say so
    assert _lines(stream) == [notice.start_line(None)]
    n.on_end(_event())
    n.on_start(_event())  # the next kernel the fit calls, before the run settled
    clock.fire(notice.SETTLE)  # the end timer of the first one is stale: nothing
    assert len(_lines(stream)) == 1
    n.on_end(_event())
    clock.fire(notice.SETTLE)
    lines = _lines(stream)
    assert len(lines) == 2 and lines[1].startswith("rootwise: compiled 3 kernels in ")


def test_a_short_compile_says_nothing(listener):
    n, stream, clock = listener
    n.enabled = True
    n.on_start(_event())
    n.on_end(_event())
    clock.fire(notice.SETTLE)  # over before the first second
    clock.fire(notice.AFTER)
    assert stream.getvalue() == ""
    n.on_start(_event())  # a later long run is a run of its own, said in full
    clock.fire(notice.AFTER)
    n.on_end(_event())
    clock.fire(notice.SETTLE)
    assert len(_lines(stream)) == 2 and "compiled 1 kernels" in _lines(stream)[1]


def test_other_code_compiling_is_not_ours_to_announce(listener):
    n, stream, clock = listener
    n.enabled = True
    n.on_start(_event("__main__"))
    n.on_end(_event("numba.np.arrayobj"))
    assert clock.pending == [] and stream.getvalue() == ""


def test_quiet_silences_it(listener):
    n, stream, clock = listener
    n.enabled = False  # ROOTWISE_COMPILE_NOTICE=0, or inside quiet()
    n.on_start(_event())
    clock.fire(notice.AFTER)
    n.on_end(_event())
    clock.fire(notice.SETTLE)
    assert stream.getvalue() == ""
    with notice.quiet():
        assert notice.NOTICE.enabled is False
    assert notice.NOTICE.enabled is (os.environ.get("ROOTWISE_COMPILE_NOTICE", "1") != "0")


def test_every_start_line_fits_80_columns():
    here = {"numba": "0.68.1", "python": "3.11", "triple": "x86_64-unknown-linux-gnu",
            "fingerprint": "a" * 64}
    reasons = [None, _why_not(None, here)]
    for field, value in (("numba", "0.610.10"), ("python", "3.13"), ("triple", "aarch64"),
                         ("fingerprint", "b" * 64)):
        reasons.append(_why_not({**here, field: value}, here))
    assert _why_not(dict(here), here) is None
    for reason in reasons:
        assert len(notice.start_line(reason)) <= 80, notice.start_line(reason)
    assert len(notice.END.format(kernels=1234, seconds=1234.0)) <= 80


CHILD = r"""
import numpy as np
import rootwise
from rootwise import _compile_notice
from rootwise.engine.arrays import total
_compile_notice.AFTER = 0.0  # any compile counts as long here: no clock in the test
_compile_notice.SETTLE = 0.0
total(np.arange(5.0))
import threading
for thread in threading.enumerate():  # the end line comes from a timer thread: let it finish
    if thread is not threading.main_thread():
        thread.join(60)
print(_compile_notice.start_line(_compile_notice.NOTICE.reason))
"""


def test_a_process_that_compiles_prints_two_lines_and_a_warm_one_none(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONIOENCODING": "utf-8",
           "PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("ROOTWISE_COMPILE_NOTICE", None)
    env["ROOTWISE_PRECOMPILED"] = "0"  # a tree that `make wheel` filled compiles all the same

    def child():
        return subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                              env=env, timeout=600, cwd=tmp_path)

    cold = child()
    assert cold.returncode == 0, cold.stderr
    lines = [line.lstrip("\r") for line in cold.stderr.split("\n") if line]
    assert lines[0] == cold.stdout.strip()  # the start line, said first
    assert "ROOTWISE_PRECOMPILED=0" in lines[0]
    assert len(lines) == 2 and lines[1].startswith("rootwise: compiled ")
    warm = child()
    assert warm.returncode == 0 and warm.stderr == ""


def test_a_program_that_ends_right_after_compiling_still_gets_the_end_line(listener):
    n, stream, clock = listener
    n.enabled = True
    n.on_start(_event())
    clock.fire(notice.AFTER)
    n.on_end(_event())
    n.at_exit()  # before the settle timer fired
    lines = _lines(stream)
    assert len(lines) == 2 and lines[1].startswith("rootwise: compiled 1 kernels")
    clock.fire(notice.SETTLE)  # the timer firing after all says nothing more
    assert len(_lines(stream)) == 2


def test_a_run_compiled_while_quiet_does_not_get_an_end_line_later(listener):
    n, stream, clock = listener
    n.enabled = False  # e.g. inside quiet(): `rootwise compile` reports its own steps
    n.on_start(_event())
    clock.fire(notice.AFTER)
    n.on_end(_event())
    n.enabled = True  # quiet() is over before the run settles
    clock.fire(notice.SETTLE)
    n.at_exit()
    assert stream.getvalue() == ""
