"""SIGINT and SIGTERM during a fit, prune, predict or save end with KeyboardInterrupt (the CLI:
status 130 / 143 and one line), never a crash, and leave every file as it was.

The danger is Python code that numba's compiled wrapper runs while it boxes a kernel's result
(``numba.core.serialize._numba_unpickle``): a KeyboardInterrupt raised there crashed the process.
So a child process stops itself (SIGSTOP) at a chosen moment, the test sends the signal and
SIGCONT, and the signal arrives exactly there: inside that boxing code (a stand-in for
``_numba_unpickle`` compiled under numba's file name, as the real one is, that stops and then
calls it) or at the entry of one of the engine's kernels. The moments are counted in a first run
that is not interrupted, and the signals spread over all of them: the test does not depend on
timing. One child runs the command (or the API calls) again after each interrupt, so that a
dozen interrupts cost one start of Python; the last one ends the process with its status.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise import _interrupts

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"),
                                reason="reads process states in /proc")

# The child: counts the moments, stops at the one asked for, runs again after each interrupt.
CHILD = textwrap.dedent('''
    import contextlib, io, json, os, signal, sys
    # a shell starts background jobs with SIGINT ignored: act as at a terminal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    mode, data, algorithm, folder = sys.argv[1:5]
    moments, stop_at = [], [0]

    def moment(kind):
        moments.append(kind)
        if len(moments) == stop_at[0]:
            os.kill(os.getpid(), signal.SIGSTOP)  # the test signals, then continues it here

    import numba.core.serialize as serialize
    unpickle = serialize._numba_unpickle
    # numba's wrapper finds this function by name when it first boxes an object; compiled under
    # numba's file name, it is where the real one runs: inside the wrapper
    stand_in = {"moment": moment, "unpickle": unpickle}
    exec(compile("def _numba_unpickle(address, data, hashed):\\n"
                 "    moment('box')\\n"
                 "    return unpickle(address, data, hashed)\\n", serialize.__file__, "exec"),
         stand_in)
    serialize._numba_unpickle = stand_in["_numba_unpickle"]

    import pandas as pd
    import rootwise
    import rootwise.engine.loop as loop
    import rootwise.prune.error_based as error_based
    from rootwise.cli import main

    def entry(module, name):
        kernel = getattr(module, name)

        def call(*args):
            moment(name)
            return kernel(*args)

        setattr(module, name, call)

    for module, name in ((loop, "root_segments"), (loop, "_root"), (loop, "_grow_from"),
                         (error_based, "prune_tree")):
        entry(module, name)

    def run(out):
        """(status, stderr): the CLI's fit --out, or the API's fit, predict and save."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            if mode == "cli":
                status = main(["fit", data, "--target", "y", "--algorithm", algorithm,
                               "--out", out, "--quiet"])
            else:
                frame = pd.read_csv(data)
                X, y = frame.drop(columns="y"), frame["y"]
                make = {"c4.5": rootwise.C45Classifier, "cart": rootwise.CARTClassifier}
                try:
                    model = make[algorithm]().fit(X, y)
                    model.predict(X)
                    rootwise.save(model, out)
                    status = 0
                except KeyboardInterrupt as e:
                    print("KeyboardInterrupt", *e.args, file=sys.stderr)
                    status = 7
        return status, err.getvalue()

    def report(line):
        with open(os.path.join(folder, "results.txt"), "a") as f:
            f.write(json.dumps(line) + "\\n")

    run(os.path.join(folder, "warm.json"))  # kernels loaded, lazy imports done
    moments.clear()
    report(run(os.path.join(folder, "whole.json")) + (moments,))
    os.kill(os.getpid(), signal.SIGSTOP)  # the test chooses the moments
    with open(os.path.join(folder, "targets.txt")) as f:
        targets = [int(t) for t in f.read().split()]
    report(["targets read"])
    for i, target in enumerate(targets):
        moments.clear()
        stop_at[0] = target
        status, err = run(os.path.join(folder, f"out-{target}.json"))
        report([target, status, err])
        if i == len(targets) - 1:
            sys.exit(status)  # the last interrupt ends the process, with the command's status
''')

@pytest.fixture(autouse=True)
def python_handlers():
    """Each test starts from Python's own handlers (SIGINT raises KeyboardInterrupt, SIGTERM its
    default action) whatever an earlier test or a library in this process set, and with no
    guarded block left open; what was there is put back after."""
    assert _interrupts._state.depth == 0, "a guarded block of an earlier test never ended"
    before = [signal.getsignal(signum) for signum in _interrupts.SIGNALS]
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    for signum, handler in zip(_interrupts.SIGNALS, before, strict=True):
        if handler is not None:  # None: set outside Python, which cannot be put back from here
            signal.signal(signum, handler)


OLD = "the model saved before\n"
# from the signal to the end of the interrupted call: the interrupt itself takes a fraction of a
# second (numba's boxing code returns, then 20 ms); the rest is a loaded machine
PROMPT = 10.0


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """20,000 rows, 6 numeric columns (5 % missing) and a categorical one, noisy labels: C4.5's
    and CART's fits grow deep trees and prune them (CART choosing its alpha by 10-fold
    cross-validation). The interrupted children read its first 4,000 rows (``part.csv``): the
    moments are kernel calls and boxing, as many on these rows, and each child fits a dozen
    times."""
    folder = tmp_path_factory.mktemp("interrupts")
    rng = np.random.default_rng(7)
    n = 20_000
    X = rng.standard_normal((n, 6)).round(3)
    signal_ = X[:, 0] + np.sin(2 * X[:, 1]) + X[:, 2] * X[:, 3]
    y = np.where(rng.random(n) < 0.15, rng.integers(0, 3, n), np.digitize(signal_, [-0.7, 0.7]))
    X[rng.random(X.shape) < 0.05] = np.nan
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    frame["c"] = rng.choice(list("abcdefgh"), n)
    frame["y"] = y
    frame.to_csv(folder / "data.csv", index=False)
    frame[:4000].to_csv(folder / "part.csv", index=False)
    (folder / "child.py").write_text(CHILD, encoding="utf-8")
    return folder


def stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


def leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def spread(kinds: list[str], count: int) -> list[int]:
    """``count`` moments (1-based) spread over the run: two thirds among the boxing moments,
    a third among the kernel entries, evenly, each group's first and last included."""
    boxes = [i + 1 for i, k in enumerate(kinds) if k == "box"]
    entries = [i + 1 for i, k in enumerate(kinds) if k != "box"]
    chosen = set()
    for group, share in ((boxes, count - count // 3), (entries, count // 3)):
        if group:
            picks = np.linspace(0, len(group) - 1, min(share, len(group))).round().astype(int)
            chosen.update(group[p] for p in picks)
    return sorted(chosen)


class Child:
    """The child process of one mode and algorithm, and its reports (``results.txt``)."""

    def __init__(self, table, mode, algorithm, tmp_path):
        self.folder = tmp_path
        path = table / "child.py"
        boot = f"exec(compile(open({str(path)!r}).read(), {str(path)!r}, 'exec'))"
        # the tree printed goes nowhere (a pipe nobody reads would fill up and block the child);
        # stderr is kept for a crash's report (faulthandler)
        self.stderr = open(tmp_path / "stderr.txt", "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-X", "faulthandler", "-c", boot, mode, str(table / "part.csv"),
             algorithm, str(tmp_path)], stdout=subprocess.DEVNULL, stderr=self.stderr)

    def crash_report(self) -> str:
        self.stderr.flush()
        return (self.folder / "stderr.txt").read_text(encoding="utf-8", errors="replace")

    def results(self) -> list:
        path = self.folder / "results.txt"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def wait_for(self, n_results: int, stop: bool, timeout: float = 300.0) -> None:
        """Until the child has made ``n_results`` reports and then (``stop``) stopped itself."""
        deadline = time.monotonic() + timeout
        while len(self.results()) < n_results or (stop and not stopped(self.process.pid)):
            if self.process.poll() is not None:
                pytest.fail(f"the child ended ({self.process.returncode}): {self.crash_report()}")
            assert time.monotonic() < deadline, "the child never got there"
            time.sleep(0.002)


def interrupted_runs(table, tmp_path, mode, algorithm, count):
    """Interrupt the child at ``count`` moments spread over a run, alternately with SIGINT and
    SIGTERM. Returns the runs, each (signal, moment, kind, status, stderr, seconds from SIGCONT
    to the report, output file), the kinds of all the moments, and the child's exit status."""
    child = Child(table, mode, algorithm, tmp_path)
    runs = []
    try:
        child.wait_for(1, stop=True)
        status, err, kinds = child.results()[0]
        assert status == 0, err
        whole = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
        assert whole["format"] == "rootwise-model"
        targets = spread(kinds, count)
        for target in targets:
            (tmp_path / f"out-{target}.json").write_text(OLD, encoding="utf-8")
        (tmp_path / "targets.txt").write_text(" ".join(map(str, targets)), encoding="utf-8")
        child.process.send_signal(signal.SIGCONT)
        for k, target in enumerate(targets):
            child.wait_for(2 + k, stop=True)
            sig = (signal.SIGINT, signal.SIGTERM)[k % 2]
            child.process.send_signal(sig)
            start = time.monotonic()
            child.process.send_signal(signal.SIGCONT)
            child.wait_for(3 + k, stop=False)
            seconds = time.monotonic() - start
            moment, status, err = child.results()[2 + k]
            assert moment == target
            runs.append((sig, target, kinds[target - 1], status, err, seconds,
                         tmp_path / f"out-{target}.json"))
        child.process.wait(timeout=120)
    finally:
        if child.process.poll() is None:
            child.process.kill()
            child.process.wait()
        child.stderr.close()
    return runs, kinds, child.process.returncode


@pytest.mark.parametrize("algorithm", ["c4.5", "cart"])
def test_the_cli_ends_cleanly_on_a_signal_at_any_moment(table, tmp_path, algorithm):
    runs, kinds, exit_status = interrupted_runs(table, tmp_path, "cli", algorithm, 12)
    assert len(runs) >= 10 and kinds.count("box") >= 10 and "_grow_from" in kinds
    for sig, moment, kind, status, err, seconds, out in runs:
        where = f"{sig.name} at moment {moment} ({kind}) of {len(kinds)}"
        assert status == (130 if sig == signal.SIGINT else 143), f"{where}: {status}\n{err}"
        assert err.strip() == ("rootwise: interrupted" if sig == signal.SIGINT
                               else "rootwise: terminated"), where
        assert seconds < PROMPT, where
        assert out.read_text(encoding="utf-8") == OLD, where
    assert leftovers(tmp_path) == []
    # the last interrupt ended the process with the command's status
    assert exit_status == runs[-1][3]


@pytest.mark.parametrize("algorithm", ["c4.5", "cart"])
def test_the_api_raises_keyboard_interrupt_on_a_signal_at_any_moment(table, tmp_path, algorithm):
    runs, kinds, exit_status = interrupted_runs(table, tmp_path, "api", algorithm, 6)
    assert len(runs) >= 5
    for sig, moment, kind, status, err, seconds, out in runs:
        where = f"{sig.name} at moment {moment} ({kind}) of {len(kinds)}"
        assert status == 7, f"{where}: {status}\n{err}"
        # SIGTERM with its default action (ending the process) raises it too
        assert err.strip() == ("KeyboardInterrupt" if sig == signal.SIGINT
                               else "KeyboardInterrupt SIGTERM"), where
        assert seconds < PROMPT, where
        assert out.read_text(encoding="utf-8") == OLD, where
    assert leftovers(tmp_path) == []
    assert exit_status == 7


# --------------------------------------------------------------------------- the guard itself


def test_the_handlers_are_put_back():
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with _interrupts.deferred():
        assert signal.getsignal(signal.SIGINT) is _interrupts._on_signal
        assert signal.getsignal(signal.SIGTERM) is _interrupts._on_signal
        with _interrupts.deferred():  # nested: the outer block's handler stays
            assert signal.getsignal(signal.SIGINT) is _interrupts._on_signal
        assert signal.getsignal(signal.SIGINT) is _interrupts._on_signal
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_an_ignored_signal_stays_ignored():
    before = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        with _interrupts.deferred():
            assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
            signal.raise_signal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, before)


def test_nothing_changes_in_another_thread():
    seen = []

    def work():
        with _interrupts.deferred():
            seen.append(signal.getsignal(signal.SIGINT))
            _interrupts.check()  # no interrupt: nothing raised

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == [signal.default_int_handler]


def test_a_signal_in_rootwise_code_raises_at_once():
    with pytest.raises(KeyboardInterrupt):
        with _interrupts.deferred():
            signal.raise_signal(signal.SIGINT)
            for _ in range(10**6):  # the handler runs long before this loop ends
                pass
            pytest.fail("the interrupt was not raised")


def test_sigterm_with_its_default_action_raises_keyboard_interrupt():
    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            with _interrupts.deferred():
                signal.raise_signal(signal.SIGTERM)
                sum(range(10))
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_handler_that_goes_on_lets_the_work_go_on():
    """The program's own handler runs (once per signal); when it returns, so does the work."""
    calls = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        with _interrupts.deferred():
            signal.raise_signal(signal.SIGINT)
            total = sum(range(10))
        assert total == 45 and calls == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, before)


def test_an_interrupt_that_c_code_swallowed_is_raised_when_the_block_ends():
    def swallow():
        try:
            signal.raise_signal(signal.SIGINT)
            sum(range(10))
        except KeyboardInterrupt:
            pass  # what C code that clears errors does

    with pytest.raises(KeyboardInterrupt):
        with _interrupts.deferred():
            swallow()


def test_an_interrupt_that_c_code_swallowed_is_raised_again_at_the_next_check():
    """The work went on after the interrupt: the engine's next safe point raises it again,
    instead of the whole fit running to its end."""
    with pytest.raises(KeyboardInterrupt):
        with _interrupts.deferred():
            try:
                signal.raise_signal(signal.SIGINT)
                sum(range(10))
            except KeyboardInterrupt:
                pass
            _interrupts.check()
            pytest.fail("the swallowed interrupt was not raised again")


def test_an_interrupt_turned_into_another_error_is_raised_instead():
    with pytest.raises(KeyboardInterrupt) as caught:
        with _interrupts.deferred():
            try:
                signal.raise_signal(signal.SIGINT)
                sum(range(10))
            except KeyboardInterrupt:
                raise SystemError("returned a result with an exception set") from None
    assert isinstance(caught.value.__cause__, SystemError)


def test_a_signal_inside_numbas_boxing_code_waits_for_rootwise_code():
    """Noted in numba's run-time code (a frame compiled under numba's file name), the signal is
    raised once rootwise's code runs again, not there."""
    import numba.core.serialize as serialize

    namespace = {"signal": signal, "sum": sum}
    exec(compile("def box():\n    signal.raise_signal(signal.SIGINT)\n"
                 "    for _ in range(1000):\n        sum(range(3))\n    return 'boxed'\n",
                 serialize.__file__, "exec"), namespace)
    results = []
    with pytest.raises(KeyboardInterrupt):
        with _interrupts.deferred():
            results.append(namespace["box"]())  # no exception inside: it returns
            while True:  # rootwise's code: the retry (20 ms on) raises here
                time.sleep(0.001)
    assert results == ["boxed"]


def test_a_thread_of_the_work_stops_at_its_next_check():
    """While the main thread's work is interrupted, its threads (cross-validation's folds) stop at
    their next safe point instead of growing to the end."""
    stopped_early = threading.Event()

    def fold(started):
        started.set()
        try:
            for _ in range(1000):
                _interrupts.check()
                time.sleep(0.01)
        except KeyboardInterrupt:
            stopped_early.set()

    with pytest.raises(KeyboardInterrupt):
        with _interrupts.deferred():
            started = threading.Event()
            t = threading.Thread(target=fold, args=(started,))
            t.start()
            started.wait()
            try:
                signal.raise_signal(signal.SIGINT)
                sum(range(10))
            finally:
                t.join(5)
    assert stopped_early.is_set()


def test_a_fit_keeps_its_tree_and_the_handlers(table):
    frame = pd.read_csv(table / "data.csv", nrows=2000)
    X, y = frame.drop(columns="y"), frame["y"]
    before = signal.getsignal(signal.SIGINT)
    model = rootwise.C45Classifier().fit(X, y)
    assert signal.getsignal(signal.SIGINT) is before
    assert model.tree_.node_count > 1


@pytest.mark.parametrize("make", [rootwise.C45Classifier, rootwise.CARTClassifier],
                         ids=["c4.5", "cart"])
def test_growth_returns_to_python_often_and_grows_the_same_tree(table, monkeypatch, make):
    """``_grow_from`` hands back to Python (where a signal is acted on) every WORK_PER_CALL cells
    searched; where it stops and resumes changes nothing in the tree."""
    from rootwise.engine import loop

    frame = pd.read_csv(table / "data.csv")
    X, y = frame.drop(columns="y"), frame["y"]
    kernel = loop._grow_from
    calls = []

    def counted(*args):
        calls.append(1)
        return kernel(*args)

    monkeypatch.setattr(loop, "_grow_from", counted)
    # one thread: on several, each subtree is a call of its own (``engine.subtrees``)
    whole = make(pruning=None, n_jobs=1).fit(X, y)
    once = len(calls)
    calls.clear()
    monkeypatch.setattr(loop, "WORK_PER_CALL", 1 << 16)  # 8,192 rows of 8 columns a call
    pieces = make(pruning=None, n_jobs=1).fit(X, y)
    # the root's search alone is 20,000 rows: at most one call per 8,192 rows searched
    assert len(calls) >= once + 20
    assert pieces.tree_ == whole.tree_  # every field of every node, the pool, the surrogates
    assert whole.tree_.node_count > 500
