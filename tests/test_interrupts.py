"""SIGINT and SIGTERM during a fit, prune, predict or save end with KeyboardInterrupt (the CLI:
status 130 / 143 and one line), never a crash, and leave every file as it was.

The danger is Python code that numba's compiled wrapper runs while it boxes a kernel's result
(``numba.core.serialize._numba_unpickle``): a KeyboardInterrupt raised there crashed the process.
So the child process below stops itself (SIGSTOP) at a chosen moment, the test sends the signal
and SIGCONT, and the signal arrives exactly there: inside that boxing code (a stand-in for
``_numba_unpickle`` compiled under numba's file name, as the real one is, that stops and then
calls it) or at the entry of one of the engine's kernels. The moments are counted in a first run
that is not interrupted, and the signals spread over all of them: the test does not depend on
timing.
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

# Installed in the child before rootwise: counts the moments and stops at STOP_AT.
CHILD = textwrap.dedent('''
    import atexit, os, signal, sys
    # a shell starts background jobs with SIGINT ignored: act as at a terminal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    STOP_AT = int(os.environ.get("STOP_AT", "0"))
    moments = []

    def moment(kind):
        moments.append(kind)
        if len(moments) == STOP_AT:
            os.kill(os.getpid(), signal.SIGSTOP)  # the test signals, then continues it here

    @atexit.register
    def _report():
        with open(os.environ["MOMENTS"], "w") as f:
            f.write(" ".join(moments))

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

    import rootwise.engine.loop as loop
    import rootwise.prune.error_based as error_based

    def entry(module, name):
        kernel = getattr(module, name)

        def call(*args):
            moment(name)
            return kernel(*args)

        setattr(module, name, call)

    for module, name in ((loop, "root_segments"), (loop, "_root"), (loop, "_grow_from"),
                         (error_based, "prune_tree")):
        entry(module, name)
''')

API = textwrap.dedent('''
    import sys
    import pandas as pd
    import rootwise

    data, algorithm, out = sys.argv[1:4]
    frame = pd.read_csv(data)
    X, y = frame.drop(columns="y"), frame["y"]
    model = {"c4.5": rootwise.C45Classifier, "cart": rootwise.CARTClassifier}[algorithm]()
    try:
        model.fit(X, y)
        model.predict(X)
        rootwise.save(model, out)
    except KeyboardInterrupt as e:
        print("KeyboardInterrupt", *e.args)
        sys.exit(7)
''')

OLD = "the model saved before\n"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """20,000 rows, 6 numeric columns (5 % missing) and a categorical one, noisy labels: C4.5's
    and CART's fits grow deep trees and prune them (CART choosing its alpha by 10-fold
    cross-validation on two threads)."""
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
    (folder / "child.py").write_text(CHILD, encoding="utf-8")
    (folder / "api.py").write_text(API, encoding="utf-8")
    return folder


def command(folder, mode, algorithm, out):
    """The child's command line: the CLI's ``fit ... --out`` or the API script, behind CHILD."""
    def run(path):  # under its own file name, as a script runs
        return f"exec(compile(open({str(path)!r}).read(), {str(path)!r}, 'exec'))"

    if mode == "cli":
        script = ("import sys; from rootwise.cli import main; "
                  f"sys.exit(main(['fit', {str(folder / 'data.csv')!r}, '--target', 'y', "
                  f"'--algorithm', {algorithm!r}, '--out', {str(out)!r}, '--quiet']))")
    else:
        script = (f"import sys; sys.argv = ['api.py', {str(folder / 'data.csv')!r}, "
                  f"{algorithm!r}, {str(out)!r}]; " + run(folder / "api.py"))
    return [sys.executable, "-c", run(folder / "child.py") + "; " + script]


def stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


def leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def moments(folder, mode, algorithm) -> list[str]:
    """The moments of a whole run, uninterrupted (its model file is whole)."""
    out = folder / f"whole-{mode}-{algorithm}.json"
    env = {**os.environ, "STOP_AT": "0", "MOMENTS": str(folder / "moments.txt")}
    done = subprocess.run(command(folder, mode, algorithm, out), env=env, capture_output=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(out.read_text(encoding="utf-8"))["format"] == "rootwise-model"
    return (folder / "moments.txt").read_text(encoding="utf-8").split()


def spread(kinds: list[str], count: int) -> list[int]:
    """``count`` moments (1-based) spread over the run: the boxing moments and the kernel
    entries evenly, each of the first and the last included."""
    boxes = [i + 1 for i, k in enumerate(kinds) if k == "box"]
    entries = [i + 1 for i, k in enumerate(kinds) if k != "box"]
    chosen = set()
    for group, share in ((boxes, count - count // 3), (entries, count // 3)):
        if group:
            picks = np.linspace(0, len(group) - 1, min(share, len(group))).round().astype(int)
            chosen.update(group[p] for p in picks)
    return sorted(chosen)


def interrupt_at(folder, mode, algorithm, stop_at, sig):
    """Run the child until moment ``stop_at``, send ``sig`` while it is stopped, continue it;
    returns (status, stderr, stdout, seconds from SIGCONT to its end, the output file)."""
    out = folder / f"m-{mode}-{algorithm}-{stop_at}.json"
    out.write_text(OLD, encoding="utf-8")
    env = {**os.environ, "STOP_AT": str(stop_at), "MOMENTS": str(folder / f"m-{stop_at}.txt")}
    child = subprocess.Popen(command(folder, mode, algorithm, out), env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while not stopped(child.pid):
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the child never reached its moment"
            time.sleep(0.005)
        child.send_signal(sig)
        start = time.monotonic()
        child.send_signal(signal.SIGCONT)
        stdout, stderr = child.communicate(timeout=120)
        seconds = time.monotonic() - start
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, stderr.decode(), stdout.decode(), seconds, out


# seconds from the signal to the end of the process: the interrupt itself takes a fraction of a
# second; the rest is a loaded machine ending a process
PROMPT = 20.0


@pytest.mark.parametrize("algorithm", ["c4.5", "cart"])
def test_the_cli_ends_cleanly_on_a_signal_at_any_moment(table, algorithm):
    kinds = moments(table, "cli", algorithm)
    assert kinds.count("box") >= 10 and "_grow_from" in kinds
    offsets = spread(kinds, 12)
    assert len(offsets) >= 10
    for k, stop_at in enumerate(offsets):
        sig = (signal.SIGINT, signal.SIGTERM)[k % 2]
        status, err, _, seconds, out = interrupt_at(table, "cli", algorithm, stop_at, sig)
        where = f"{sig.name} at moment {stop_at} ({kinds[stop_at - 1]}) of {len(kinds)}"
        assert status == (130 if sig == signal.SIGINT else 143), f"{where}: {status}\n{err}"
        assert err.strip() == ("rootwise: interrupted" if sig == signal.SIGINT
                               else "rootwise: terminated"), where
        assert seconds < PROMPT, where
        assert out.read_text(encoding="utf-8") == OLD, where
        assert leftovers(table) == [], where


@pytest.mark.parametrize("algorithm", ["c4.5", "cart"])
def test_the_api_raises_keyboard_interrupt_on_a_signal_at_any_moment(table, algorithm):
    kinds = moments(table, "api", algorithm)
    offsets = spread(kinds, 6)
    for k, stop_at in enumerate(offsets):
        sig = (signal.SIGINT, signal.SIGTERM)[k % 2]
        status, err, printed, seconds, out = interrupt_at(table, "api", algorithm, stop_at, sig)
        where = f"{sig.name} at moment {stop_at} ({kinds[stop_at - 1]}) of {len(kinds)}"
        assert status == 7, f"{where}: {status}\n{err}"
        assert printed.split()[0] == "KeyboardInterrupt", where
        assert seconds < PROMPT, where
        assert out.read_text(encoding="utf-8") == OLD, where
        assert leftovers(table) == [], where


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
