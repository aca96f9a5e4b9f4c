"""How one tree's growth would scale on more cores than this machine has: a schedule replayed
from measured pieces.

    .venv/bin/python benchmarks/thread_scaling.py --rows 1000000 --threads 2 4 8 16

For each thread count T, one unpruned ``CARTClassifier`` fit with ``n_jobs=T`` on the hard table
(``data.hard_table``: 4 classes, 15 % missing cells, up to 1,000 categories) is traced: the
subtrees it sets aside (cut for T threads: ``engine/subtrees.py``), each one's CPU time on its own
thread (``time.thread_time``, so that T threads sharing this machine's cores do not inflate it),
and the stages one thread runs alone (the DataFrame's encoding, the root's split, the joining, the
fitted tree's conversion). The columns' presort runs on every thread: its one-thread time is
counted as split evenly over the columns, a column to a thread. The schedule is then replayed on
T workers as ``grow_deferred`` runs it: a subtree is ready when the piece that set it aside has
finished, and a free worker takes the largest ready one. The printed speed-up is the one-thread
fit's time over the replayed time.

What it leaves out: memory bandwidth and the caches the threads share, which on many cores is
what a growth that streams its segments meets first, so read it as an upper bound. On this
machine T=2 is also measured for real (``--reps`` alternating rounds, medians), which shows how
far the replay is from the wall clock.
"""

from __future__ import annotations

import argparse
import heapq
import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

if __name__ == "__main__":
    # n_jobs is capped at numba's pool, which numba sizes from the cores at import: room for the
    # thread counts asked for, on a machine with fewer cores (not when imported: by a test)
    os.environ["NUMBA_NUM_THREADS"] = "64"

from data import hard_table  # noqa: E402

import rootwise as rw  # noqa: E402
from rootwise.engine import loop, subtrees  # noqa: E402


class Trace:
    """Stages and pieces of the fits made while it is installed (patched in, nothing else changed)."""

    def __init__(self):
        self.pieces = []  # (start, end, cpu seconds) of each subtree set aside
        self.stage = {}  # stage -> wall seconds on the calling thread
        self.lock = threading.Lock()

    def install(self):
        trace = self
        submit = ThreadPoolExecutor.submit

        def traced_submit(pool, fn, *args, **kwargs):
            if len(args) < 6:  # a column of the presort (timed as a stage), not a subtree
                return submit(pool, fn, *args, **kwargs)
            start, end = args[0], args[1]

            def timed(*a, **k):
                c = time.thread_time()
                out = fn(*a, **k)
                with trace.lock:
                    trace.pieces.append((start, end, time.thread_time() - c))
                return out
            return submit(pool, timed, *args, **kwargs)

        ThreadPoolExecutor.submit = traced_submit
        for module, name in ((loop, "fit"), (loop, "root_segments"),
                             (subtrees, "root_segments_threaded"), (subtrees, "_joined")):
            self._time(module, name)
        run = loop.Grower.run

        def timed_run(grower, *a):
            if threading.current_thread() is not threading.main_thread():
                return run(grower, *a)
            s = time.perf_counter()
            out = run(grower, *a)
            self.stage["root's split"] = self.stage.get("root's split", 0.0) + time.perf_counter() - s
            return out
        loop.Grower.run = timed_run

    def _time(self, module, name):
        f = getattr(module, name)

        def timed(*a, **k):
            s = time.perf_counter()
            out = f(*a, **k)
            self.stage[name] = self.stage.get(name, 0.0) + time.perf_counter() - s
            return out
        setattr(module, name, timed)

    def clear(self):
        self.pieces.clear()
        self.stage.clear()


def replay(pieces, threads):
    """Time from the first subtree handed out to the last one finished, on ``threads`` workers.
    A piece's parent is the smallest piece whose rows hold its own (a subtree's rows are a range
    of the segment); pieces without one were set aside by the root's growth."""
    order = sorted(range(len(pieces)), key=lambda i: (pieces[i][0], -pieces[i][1]))
    parent = [-1] * len(pieces)
    open_ = []  # enclosing ranges, innermost last
    for i in order:
        s, e, _ = pieces[i]
        while open_ and not (pieces[open_[-1]][0] <= s and e <= pieces[open_[-1]][1]):
            open_.pop()
        parent[i] = open_[-1] if open_ else -1
        open_.append(i)
    children = {}
    for i, p in enumerate(parent):
        children.setdefault(p, []).append(i)
    ready = [(-(pieces[i][1] - pieces[i][0]), i) for i in children.get(-1, [])]
    heapq.heapify(ready)
    running = []  # (finish time, piece)
    free, now = threads, 0.0
    while ready or running:
        while ready and free > 0:
            _, i = heapq.heappop(ready)
            heapq.heappush(running, (now + pieces[i][2], i))
            free -= 1
        now, i = heapq.heappop(running)
        free += 1
        for c in children.get(i, []):
            heapq.heappush(ready, (-(pieces[c][1] - pieces[c][0]), c))
    return now


def fit_time(X, y, n_jobs):
    s = time.perf_counter()
    rw.CARTClassifier(pruning=None, n_jobs=n_jobs).fit(X, y)
    return time.perf_counter() - s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, nargs="+", default=[2, 4, 8, 16])
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    X, y = hard_table(args.rows, n_classes=4, missing_rate=0.15, max_levels=1000)
    trace = Trace()
    trace.install()
    fit_time(X, y, 1), fit_time(X, y, 2)  # kernels loaded, pages touched

    one, two = [], []
    for _ in range(args.reps):  # alternating: the machine's drift falls on both
        trace.clear()
        one.append(fit_time(X, y, 1))
        stages_one = dict(trace.stage)
        two.append(fit_time(X, y, 2))
    t1 = statistics.median(one)
    presort = stages_one.get("root_segments", 0.0)
    n_columns = X.shape[1]
    print(f"{args.rows:,} rows; one thread: {t1:.2f} s (median of {args.reps}), "
          f"of which the presort {presort:.2f} s")
    print(f"measured here, n_jobs=2: {statistics.median(two):.2f} s, "
          f"{t1 / statistics.median(two):.2f}x\n")
    print("| threads | subtrees | one thread alone: outside the growth + presort + root's split"
          " + joining | subtrees replayed | total | speed-up |")
    print("|---|---|---|---|---|---|")
    for T in args.threads:
        trace.clear()
        wall = fit_time(X, y, T)
        st = trace.stage
        presort_t = presort * -(-n_columns // T) / n_columns
        outside = wall - st["fit"]  # encoding the DataFrame, the fitted tree's conversion
        serial = outside + presort_t + st.get("root's split", 0.0) + st["_joined"]
        grown = replay(trace.pieces, T)
        total = serial + grown
        root = st.get("root's split", 0.0)
        print(f"| {T} | {len(trace.pieces)} | {serial:.2f} s = {outside:.2f} + {presort_t:.2f} + "
              f"{root:.2f} + {st['_joined']:.2f} | {grown:.2f} s | {total:.2f} s | "
              f"{t1 / total:.2f}x |")


if __name__ == "__main__":
    main()
