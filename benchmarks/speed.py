"""Fit and predict speed of rootwise CART against scikit-learn (and LightGBM), in one process.

    python benchmarks/speed.py              # --quick: a few minutes on 2 cores
    python benchmarks/speed.py --full       # issue 6's grid: 10k/100k/1M rows x 20/100 features
    python benchmarks/speed.py --rows 100000 --features 20 --depths none --tasks clf --reps 5

For every (task, rows, features, max_depth) the libraries are fitted on the same data in one process,
alternating their order from one repetition to the next (rootwise, sklearn, LightGBM, then the
reverse), and the median time (wall clock, or CPU with --clock cpu) is printed with the ratio
sklearn_time / rootwise_time (above 1: rootwise is faster). The trees are then compared node by
node from the root (``compare_trees``): every split must use the same feature and threshold, or
send the same rows left, or be a tie (the same impurity decrease, which scikit-learn breaks at
random), or be a finer cut (a larger decrease, between two values that scikit-learn's splitter
treats as equal: x[i+1] <= x[i] + 1e-7 in float32); anything else prints DIFFERENT.
Predictions are compared on the training rows and on fresh rows.

Fitting is single-threaded for every library (numba.set_num_threads(1), n_jobs=1 where the
estimator has it, threadpoolctl limits for OpenMP/BLAS, LightGBM num_threads=1). Prediction is
timed single-threaded and, for rootwise, again with every core.

A fit whose time, extrapolated from the smaller sizes already run, would exceed --timeout is not
started, and a rootwise fit still running after --timeout seconds is interrupted (the current engine
returns to Python per node, where the alarm is delivered); both print "skipped (too slow: ...)".
When one fit takes more than --long seconds the remaining repetitions of that cell are dropped
(the n column says how many ran).

The machine may be shared: the load average is printed at the start and the end, a wall-clock
time whose CPU/wall ratio is below 0.9 is flagged "busy", and ``--clock cpu`` reports this
process's CPU time instead (single-threaded runs only; the all-cores prediction stays on the wall
clock).
"""

from __future__ import annotations

import os

# numba reads its thread count once, at import: allow every core, then narrow it per phase.
os.environ.setdefault("NUMBA_NUM_THREADS", str(os.cpu_count() or 1))

import argparse  # noqa: E402
import ast  # noqa: E402
import gc  # noqa: E402
import math  # noqa: E402
import signal  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from functools import partial  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
from machine import load, machine_lines, print_table_head  # noqa: E402

LEAF = 0  # rootwise's node kind of a leaf (rootwise._config.LEAF), kept here to read trees only
LGBM_MAX_LEAVES = 131072  # LightGBM's upper bound on num_leaves
BUSY = 0.9  # a single-threaded wall-clock time is flagged when its CPU/wall falls below this
CLOCK = "wall"  # set from --clock
ROOTWISE_PARAMS: dict = {}  # set from --params: extra CART options for every rootwise fit


class TooSlow(Exception):
    pass


# --------------------------------------------------------------------------- timing helpers


@dataclass
class Budget:
    """Per-fit time cap, and what each library has needed so far (for extrapolation)."""

    timeout: float
    seen: dict = field(default_factory=dict)  # (lib, task, depth) -> list of (rows, features, s)

    def estimate(self, key, rows: int, features: int) -> float | None:
        """Seconds a fit of this size should take, from the largest smaller run of the same kind:
        t * (n / n0) * (log n / log n0) * (f / f0). None when nothing comparable has run."""
        runs = [r for r in self.seen.get(key, []) if r[0] <= rows and r[1] <= features]
        if not runs:
            return None
        n0, f0, t0 = max(runs, key=lambda r: (r[0] * r[1], r[2]))
        return t0 * (rows / n0) * (math.log(rows) / math.log(max(n0, 2))) * (features / f0)

    def record(self, key, rows: int, features: int, seconds: float) -> None:
        self.seen.setdefault(key, []).append((rows, features, seconds))


def _alarm(signum, frame):
    raise TooSlow


def timed(fn, timeout: float | None = None):
    """(wall seconds, CPU seconds of this process, result) of fn(); TooSlow when it runs past
    ``timeout`` (delivered at the next Python bytecode: a long call into compiled code is noticed
    only when it returns)."""
    gc.collect()
    if timeout:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
    if timeout and seconds > timeout:
        raise TooSlow
    return seconds, cpu, out


def fit(factory, X, y):
    return factory().fit(X, y)


def key(task: str, depth, lib: str) -> tuple:
    """What the budget extrapolates over: one library, task and depth limit."""
    return (lib, task, depth)


def set_threads(n: int) -> None:
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


# --------------------------------------------------------------------------- estimators


def rootwise_estimator(task: str, depth, **extra):
    from rootwise import CARTClassifier, CARTRegressor

    cls = CARTClassifier if task == "clf" else CARTRegressor
    est = cls(pruning=None, max_depth=depth)
    params = est.get_params()
    extra = {**ROOTWISE_PARAMS, **extra}
    if "n_jobs" in params:
        extra.setdefault("n_jobs", 1)
    unknown = [k for k in extra if k not in params]
    if unknown:
        return None  # this build of rootwise does not have the option (e.g. splitter="hist")
    return est.set_params(**extra)


def sklearn_estimator(task: str, depth):
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    cls = DecisionTreeClassifier if task == "clf" else DecisionTreeRegressor
    return cls(max_depth=depth, random_state=0)


def lightgbm_estimator(task: str, depth, n_leaves: int):
    """One tree of a LightGBM model that is as close to a plain decision tree as its options allow:
    a single boosting round with learning rate 1, no regularisation, leaves of one row allowed."""
    import lightgbm

    cls = lightgbm.LGBMClassifier if task == "clf" else lightgbm.LGBMRegressor
    return cls(n_estimators=1, learning_rate=1.0, num_leaves=max(2, min(n_leaves, LGBM_MAX_LEAVES)),
               max_depth=-1 if depth is None else depth, min_child_samples=1, min_child_weight=0.0,
               min_split_gain=0.0, reg_alpha=0.0, reg_lambda=0.0, subsample=1.0,
               colsample_bytree=1.0, num_threads=1, deterministic=True, force_row_wise=True,
               verbose=-1)


def have_lightgbm() -> bool:
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------- tree comparison


def _rw_decrease(t, node: int) -> float:
    kids = range(int(t.first_child[node]), int(t.first_child[node]) + int(t.n_children[node]))
    return t.weighted_n_node_samples[node] * t.impurity[node] - sum(
        t.weighted_n_node_samples[c] * t.impurity[c] for c in kids)


def _too_close_for_sklearn(values: np.ndarray, threshold: float) -> bool:
    """Whether scikit-learn treats the node's values just below and above ``threshold`` as equal:
    its splitter only cuts where x[i+1] > x[i] + FEATURE_THRESHOLD, a float32 1e-7 added in
    float32 (sklearn/tree/_partitioner.pxd), so a gap of one float32 step near 1 (1.19e-7) is
    also skipped. A 10^6-row float32 column has many such neighbours."""
    below, above = values[values <= threshold], values[values > threshold]
    if len(below) == 0 or len(above) == 0:
        return False
    return bool(np.float32(above.min()) <= np.float32(below.max()) + np.float32(1e-7))


def _sk_decrease(s, node: int) -> float:
    left, right = s.children_left[node], s.children_right[node]
    w = s.weighted_n_node_samples
    return w[node] * s.impurity[node] - w[left] * s.impurity[left] - w[right] * s.impurity[right]


@dataclass
class Agreement:
    matched: int = 0  # node pairs with the same test (or both leaves) over the same rows
    equivalent: int = 0  # different tests that split the node's rows the same way: walk goes on
    ties: int = 0  # different partitions with the same impurity decrease: subtrees not compared
    largest_tie: int = 0  # rows at the largest such node
    # rootwise's cut is better and lies between two values within scikit-learn's
    # FEATURE_THRESHOLD, which scikit-learn treats as equal: subtrees not compared
    finer: int = 0
    different: int = 0
    first_difference: str = ""
    rw_nodes: int = 0
    sk_nodes: int = 0
    rw_leaves: int = 0
    sk_leaves: int = 0
    rw_depth: int = 0
    sk_depth: int = 0
    predictions: str = ""

    @property
    def verdict(self) -> str:
        if self.different:
            return f"DIFFERENT ({self.different} node(s); first: {self.first_difference})"
        parts = []
        if self.ties:
            parts.append(f"{self.ties} tie(s) at nodes of <= {self.largest_tie} rows")
        if self.finer:
            parts.append(f"{self.finer} finer cut(s) (rootwise's, between values within "
                         "scikit-learn's FEATURE_THRESHOLD, which it treats as equal)")
        if parts:
            return (f"same up to {' and '.join(parts)} "
                    f"({self.matched + self.equivalent} of {self.sk_nodes} nodes compared)")
        if self.rw_nodes == self.sk_nodes == self.matched + self.equivalent:
            if self.equivalent:
                return f"same partitions ({self.equivalent} split(s) on an equivalent feature)"
            return "identical"
        return f"DIFFERENT (node counts {self.rw_nodes} vs {self.sk_nodes})"


def compare_trees(rw, sk, X_train, X_test, regression: bool) -> Agreement:
    """Walk both trees from the root with the training rows of each node pair.

    Same feature and threshold: the pair matches. Different tests that split the node's rows the
    same way (a row extreme in two columns, say; possibly with the sides swapped): equivalent, and
    the walk goes on into the children.
    Different partitions with the same impurity decrease (within 1e-9, relative): a tie, which
    scikit-learn breaks at random and rootwise by the lowest column; the subtrees are not compared.
    Anything else is a difference. Then the predictions are compared on the training rows and on
    fresh rows (which a tie may send to different leaves)."""
    t, s = rw.tree_, sk.tree_
    ag = Agreement(rw_nodes=t.node_count, sk_nodes=s.node_count, rw_leaves=t.n_leaves,
                   sk_leaves=int(sk.get_n_leaves()), rw_depth=t.max_depth, sk_depth=int(sk.get_depth()))
    X32 = X_train.astype(np.float32)  # what scikit-learn's tree compares
    stack = [(0, 0, np.arange(X_train.shape[0]))]
    while stack:
        a, b, rows = stack.pop()
        a_leaf, b_leaf = int(t.kind[a]) == LEAF, int(s.children_left[b]) == -1
        if a_leaf and b_leaf:
            ag.matched += 1
            continue
        depth = int(t.depth[a])
        if a_leaf != b_leaf:
            ag.different += 1
            if not ag.first_difference:
                ag.first_difference = (f"depth {depth}, {len(rows)} rows: rootwise "
                                       f"{'leaf' if a_leaf else 'split'}, sklearn "
                                       f"{'leaf' if b_leaf else 'split'}")
            continue
        fa, fb = int(t.feature[a]), int(s.feature[b])
        ta, tb = float(t.threshold[a]), float(s.threshold[b])
        left_a = X_train[rows, fa] <= ta
        first = int(t.first_child[a])
        sk_left, sk_right = int(s.children_left[b]), int(s.children_right[b])
        if fa == fb and ta == tb:
            ag.matched += 1
        else:
            left_b = X32[rows, fb] <= tb
            if np.array_equal(left_a, left_b):
                ag.equivalent += 1
            elif np.array_equal(left_a, ~left_b):  # the same partition, children swapped
                ag.equivalent += 1
                sk_left, sk_right = sk_right, sk_left
            else:
                sk_left = -1
        if sk_left >= 0:
            stack.append((first + 1, sk_right, rows[~left_a]))
            stack.append((first, sk_left, rows[left_a]))
            continue
        da, db = _rw_decrease(t, a), _sk_decrease(s, b)
        if abs(da - db) <= 1e-9 * max(1.0, abs(da), abs(db)):
            ag.ties += 1
            ag.largest_tie = max(ag.largest_tie, len(rows))
        elif da > db and _too_close_for_sklearn(X32[rows, fa], ta):
            ag.finer += 1
        else:
            ag.different += 1
            if not ag.first_difference:
                ag.first_difference = (f"depth {depth}, {len(rows)} rows: x{fa} <= {ta:.9g} "
                                       f"(decrease {da:.9g}) vs x{fb} <= {tb:.9g} ({db:.9g})")
    parts = []
    for name, X in (("train", X_train), ("fresh", X_test)):
        p_rw, p_sk = rw.predict(X), sk.predict(X)
        if regression:
            agree = np.abs(p_rw - p_sk) <= 1e-9 * np.maximum(1.0, np.abs(p_sk))
        else:
            agree = p_rw == p_sk
        parts.append(f"{name} {np.mean(agree):.2%}")
    ag.predictions = ", ".join(parts)
    return ag


# --------------------------------------------------------------------------- one benchmark cell


@dataclass
class Cell:
    """Times of one configuration (medians are reported), reasons for skips, notes.

    ``clock``: "wall" (elapsed time) or "cpu" (this process's CPU time: for a single-threaded run
    on a machine shared with other work it is the steadier measure)."""

    label: str
    clock: str = "wall"
    times: dict = field(default_factory=dict)  # lib -> list of wall seconds
    cpu: dict = field(default_factory=dict)  # lib -> list of CPU seconds
    skipped: dict = field(default_factory=dict)  # lib -> reason
    notes: list = field(default_factory=list)

    def median(self, lib: str, clock: str | None = None) -> float | None:
        ts = (self.cpu if (clock or self.clock) == "cpu" else self.times).get(lib)
        return statistics.median(ts) if ts else None

    def busy(self, lib: str) -> float | None:
        """Median CPU / wall of a single-threaded run: well below 1 when other processes took
        the core."""
        if not self.times.get(lib):
            return None
        return statistics.median(c / w for c, w in zip(self.cpu[lib], self.times[lib], strict=True))


def run_alternating(cell: Cell, fits: dict, reps: int, budget: Budget, key_of, rows: int,
                    features: int, long: float) -> dict:
    """Run every fit ``reps`` times, order reversed on odd repetitions; returns lib -> last result."""
    results = {}
    libs = list(fits)
    for lib in libs:
        est = budget.estimate(key_of(lib), rows, features)
        if est is not None and est > budget.timeout:
            cell.skipped[lib] = f"skipped (too slow: est. {est:.0f} s > {budget.timeout:.0f} s)"
    for rep in range(reps):
        order = libs if rep % 2 == 0 else libs[::-1]
        ran_long = False
        for lib in order:
            if lib in cell.skipped:
                continue
            try:
                seconds, cpu, out = timed(fits[lib], budget.timeout)
            except TooSlow:
                cell.skipped[lib] = f"skipped (too slow: > {budget.timeout:.0f} s)"
                continue
            except Exception as e:  # report and go on: one broken build should not hide the rest
                cell.skipped[lib] = f"FAILED: {type(e).__name__}: {str(e)[:80]}"
                continue
            cell.times.setdefault(lib, []).append(seconds)
            cell.cpu.setdefault(lib, []).append(cpu)
            results[lib] = out
            ran_long |= seconds > long
        if ran_long:
            break
    for lib in libs:
        if cell.times.get(lib):
            budget.record(key_of(lib), rows, features, cell.median(lib, "wall"))
    return results


def fmt_time(cell: Cell, lib: str, clock: str | None = None, single_threaded: bool = True) -> str:
    m = cell.median(lib, clock)
    if m is None:
        return cell.skipped.get(lib, "n/a")
    busy = cell.busy(lib)
    flag = ""
    if single_threaded and (clock or cell.clock) == "wall" and busy < BUSY:
        flag = f", busy: cpu/wall {busy:.2f}"
    return f"{m:.3f} s (n={len(cell.times[lib])}{flag})"


def fmt_ratio(cell: Cell, num: str, den: str, clock: str | None = None) -> str:
    a, b = cell.median(num, clock), cell.median(den, clock)
    if a is None or b is None:
        return "-"
    return f"{a / b:.2f}x"


# --------------------------------------------------------------------------- the benchmark


def make_data(task: str, rows: int, features: int, seed: int, n_classes: int = 3):
    if task == "clf":
        return data.classification(rows, features, n_classes=n_classes, seed=seed)
    return data.regression(rows, features, seed=seed)


def exact_cart(args, budget: Budget, out: list) -> None:
    """Exact CART vs scikit-learn: fit, then predict on ``--predict-rows`` fresh rows."""
    print("\n## Exact CART (pruning=None) vs scikit-learn DecisionTree*, single-threaded fit")
    print(f"ratio = sklearn_time / rootwise_time (above 1: rootwise faster), {CLOCK} clock\n")
    head = ("| task | rows | features | max_depth | rootwise fit | sklearn fit | ratio | leaves rw/sk "
            "| depth rw/sk | tree | predictions |")
    print_table_head(head)
    pred_rows = []
    for task in args.tasks:
        for features in args.features:
            for rows in args.rows:
                X, y = make_data(task, rows, features, seed=0)
                X_test = make_data(task, min(rows, 100_000), features, seed=1)[0]
                for depth in args.depths:
                    cell = Cell(clock=CLOCK, label=f"{task} {rows}x{features} depth={depth}")
                    fits = {"rootwise": partial(fit, partial(rootwise_estimator, task, depth), X, y),
                            "sklearn": partial(fit, partial(sklearn_estimator, task, depth), X, y)}
                    models = run_alternating(cell, fits, args.reps, budget, partial(key, task, depth),
                                             rows, features, args.long)
                    tree, preds, shape = "-", "-", ("-", "-")
                    if "rootwise" in models and "sklearn" in models:
                        ag = compare_trees(models["rootwise"], models["sklearn"], X, X_test, task == "reg")
                        tree, preds = ag.verdict, ag.predictions
                        shape = (f"{ag.rw_leaves}/{ag.sk_leaves}", f"{ag.rw_depth}/{ag.sk_depth}")
                        tree += n_jobs_check(task, depth, X, y, models["rootwise"])
                    elif "sklearn" in models:
                        sk = models["sklearn"]
                        shape = (f"-/{sk.get_n_leaves()}", f"-/{sk.get_depth()}")
                    line = (f"| {task} | {rows:,} | {features} | {depth} | {fmt_time(cell, 'rootwise')} | "
                            f"{fmt_time(cell, 'sklearn')} | {fmt_ratio(cell, 'sklearn', 'rootwise')} | "
                            f"{shape[0]} | {shape[1]} | {tree} | {preds} |")
                    print(line, flush=True)
                    out.append(line)
                    if rows == max(args.rows) and models:
                        pred_rows.append((task, rows, features, depth, models))
                del X, y, X_test
                gc.collect()
    predict_speed(args, pred_rows, out)


def n_jobs_check(task, depth, X, y, reference) -> str:
    """Issue 6 (6): a fit with n_jobs=2 gives the same tree as with n_jobs=1."""
    est = rootwise_estimator(task, depth, n_jobs=2)
    if est is None:
        return ""
    set_threads(os.cpu_count() or 1)
    try:
        other = est.fit(X, y)
    finally:
        set_threads(1)
    same = other.tree_ == reference.tree_
    return "; n_jobs=2: " + ("identical" if same else "NOT IDENTICAL")


def predict_speed(args, pred_rows, out: list) -> None:
    print(f"\n## Prediction, {args.predict_rows:,} rows (trees fitted on the largest size above)")
    print(f"ratio = sklearn_time / rootwise_time ({CLOCK} clock); 'all cores' = numba threads = "
          f"{numba.config.NUMBA_NUM_THREADS} and n_jobs={os.cpu_count()} where rootwise has it, "
          "timed and compared on the wall clock\n")
    head = ("| task | trained on | max_depth | rootwise 1 thread | sklearn | ratio | rootwise all cores "
            "| ratio |")
    print_table_head(head)
    for task, rows, features, depth, models in pred_rows:
        if "rootwise" not in models or "sklearn" not in models:
            continue
        Xp = make_data(task, args.predict_rows, features, seed=2)[0]
        rw, sk = models["rootwise"], models["sklearn"]
        cores = os.cpu_count() or 1

        def many_threads(m=rw, Xp=Xp, cores=cores):
            set_threads(cores)
            if "n_jobs" in m.get_params():
                m.set_params(n_jobs=cores)
            try:
                return m.predict(Xp)
            finally:
                set_threads(1)
                if "n_jobs" in m.get_params():
                    m.set_params(n_jobs=1)

        cell = Cell(clock=CLOCK, label=f"predict {task} {depth}")
        fits = {"rootwise": partial(rw.predict, Xp), "sklearn": partial(sk.predict, Xp),
                "rootwise_all": many_threads}
        run_alternating(cell, fits, args.reps, Budget(args.timeout), lambda lib: lib,
                        args.predict_rows, features, args.long)
        line = (f"| {task} | {rows:,}x{features} | {depth} | {fmt_time(cell, 'rootwise')} | "
                f"{fmt_time(cell, 'sklearn')} | {fmt_ratio(cell, 'sklearn', 'rootwise')} | "
                f"{fmt_time(cell, 'rootwise_all', 'wall', single_threaded=False)} | "
                f"{fmt_ratio(cell, 'sklearn', 'rootwise_all', 'wall')} |")
        print(line, flush=True)
        out.append(line)
        del Xp
        gc.collect()


def _per_call(fn, calls: int) -> float:
    """CPU seconds of one call of fn, from ``calls`` calls in a row (small batches)."""
    gc.collect()
    c0 = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - c0) / calls


def prediction(args, out: list) -> None:
    """Prediction alone, on trees both libraries fit once on the same --predict-train-rows rows:
    predict and predict_proba of --predict-rows fresh rows (ndarray and DataFrame input), one
    thread and every core, then small batches. The two libraries run alternately (--reps times,
    medians); every rootwise result is compared with scikit-learn's on the same rows."""
    import pandas as pd

    cores = os.cpu_count() or 1
    print(f"\n## Prediction of {args.predict_rows:,} rows, trees fitted on "
          f"{args.predict_train_rows:,} rows")
    print(f"ratio = sklearn / rootwise; one thread: {CLOCK} clock, medians of {args.reps}; all cores "
          f"(rootwise n_jobs={cores}; scikit-learn's tree prediction has no n_jobs): wall clock\n")
    head = ("| task | features | max_depth | leaves rw/sk | call | input | rootwise 1 thread | sklearn "
            "| ratio | rootwise all cores | ratio | same output |")
    print_table_head(head)
    small = []
    for task in args.tasks:
        for features in args.features:
            X, y = make_data(task, args.predict_train_rows, features, seed=0)
            Xp = make_data(task, args.predict_rows, features, seed=2)[0]
            frames = {"ndarray": Xp, "DataFrame": pd.DataFrame(Xp)}
            for depth in args.depths:
                rw = rootwise_estimator(task, depth).fit(X, y)
                sk = sklearn_estimator(task, depth).fit(X, y)
                leaves = f"{rw.get_n_leaves()}/{sk.get_n_leaves()}"
                calls = ["predict"] + (["predict_proba"] if task == "clf" else [])
                for call in calls:
                    for kind, Xin in frames.items():
                        line = _prediction_cell(args, task, features, depth, leaves, call, kind,
                                                Xin, rw, sk, cores)
                        print(line, flush=True)
                        out.append(line)
                small.append((task, features, depth, rw, sk, Xp))
            del X, y, frames
            gc.collect()
    _small_batches(args, small, out)


def _prediction_cell(args, task, features, depth, leaves, call, kind, Xin, rw, sk, cores) -> str:
    def all_cores():
        set_threads(cores)
        rw.set_params(n_jobs=cores)
        try:
            return getattr(rw, call)(Xin)
        finally:
            set_threads(1)
            rw.set_params(n_jobs=1)

    cell = Cell(clock=CLOCK, label=f"{call} {task} {depth} {kind}")
    fits = {"rootwise": partial(getattr(rw, call), Xin), "sklearn": partial(getattr(sk, call), Xin),
            "rootwise_all": all_cores}
    for fn in fits.values():  # untimed: compiles (or loads) the kernel of this call and dtype
        fn()
    results = run_alternating(cell, fits, args.reps, Budget(args.timeout), lambda lib: lib,
                              args.predict_rows, features, args.long)
    same = "-"
    if "rootwise" in results and "sklearn" in results:
        a, b = results["rootwise"], results["sklearn"]
        agree = np.mean(np.all(np.isclose(a, b, rtol=1e-12, atol=0.0).reshape(len(a), -1), axis=1)
                        if a.dtype.kind == "f" else a == b)
        same = f"{agree:.2%}"
        if "rootwise_all" in results:
            same += "" if np.array_equal(results["rootwise_all"], a) else "; all cores DIFFER"
    def ms(lib, clock=None):
        m = cell.median(lib, clock)
        return cell.skipped.get(lib, "n/a") if m is None else f"{m * 1e3:.1f} ms"

    return (f"| {task} | {features} | {depth} | {leaves} | {call} | {kind} | {ms('rootwise')} | "
            f"{ms('sklearn')} | {fmt_ratio(cell, 'sklearn', 'rootwise')} | "
            f"{ms('rootwise_all', 'wall')} | {fmt_ratio(cell, 'sklearn', 'rootwise_all', 'wall')} "
            f"| {same} |")


def _small_batches(args, small, out: list) -> None:
    """Per-call CPU time of predict on 1, 100 and 10,000 rows (one thread; many calls each, the
    two libraries alternating, median of --reps rounds): the fixed cost of a call."""
    sizes = {1: 2000, 100: 1000, 10_000: 50}
    print("\nSmall batches: CPU time per predict call, one thread (many calls, median of rounds)\n")
    head = "| task | features | max_depth | rows | rootwise | sklearn | ratio |"
    print_table_head(head)
    for task, features, depth, rw, sk, Xp in small:
        for rows, calls in sizes.items():
            Xb = np.ascontiguousarray(Xp[:rows])
            times = {"rootwise": [], "sklearn": []}
            for rep in range(args.reps):
                order = ("rootwise", "sklearn") if rep % 2 == 0 else ("sklearn", "rootwise")
                for lib in order:
                    model = rw if lib == "rootwise" else sk
                    times[lib].append(_per_call(partial(model.predict, Xb), calls))
            a, b = statistics.median(times["rootwise"]), statistics.median(times["sklearn"])
            line = (f"| {task} | {features} | {depth} | {rows:,} | {a * 1e6:.1f} us | "
                    f"{b * 1e6:.1f} us | {b / a:.2f}x |")
            print(line, flush=True)
            out.append(line)


def histogram_vs_lightgbm(args, budget: Budget, out: list) -> None:
    """splitter="hist" vs a single LightGBM tree with the same number of leaves, binning included."""
    print("\n## Histogram CART (splitter='hist') vs one LightGBM tree, single-threaded, binning "
          "included")
    print("LightGBM: n_estimators=1, learning_rate=1, num_leaves = the rootwise tree's leaf count "
          f"(capped at {LGBM_MAX_LEAVES}), min_child_samples=1; binary classification / L2 regression.")
    print("ratio = lightgbm_time / rootwise_time. Without splitter='hist' in this build, LightGBM "
          "gets the exact tree's leaf count\nand the exact fit is shown for reference.\n")
    head = ("| task | rows | features | max_depth | rootwise hist | rootwise exact | LightGBM | "
            "ratio (hist) | ratio (exact) | leaves rw/lgbm |")
    print_table_head(head)
    for task in args.tasks:
        for rows in args.lgbm_rows:
            X, y = make_data(task, rows, args.lgbm_features, seed=0, n_classes=2)
            for depth in args.depths:
                cell = Cell(clock=CLOCK, label=f"lgbm {task} {rows} {depth}")
                has_hist = rootwise_estimator(task, depth, splitter="hist") is not None
                fits = {"rootwise": partial(fit, partial(rootwise_estimator, task, depth), X, y)}
                if has_hist:
                    fits["rootwise_hist"] = partial(
                        fit, partial(rootwise_estimator, task, depth, splitter="hist"), X, y)
                # the leaf count LightGBM must reach: from one untimed reference fit
                ref_lib = "rootwise_hist" if has_hist else "rootwise"
                leaves = None
                models = run_alternating(cell, fits, args.reps, budget, partial(key, task, depth),
                                         rows, args.lgbm_features, args.long)
                if ref_lib in models:
                    leaves = models[ref_lib].get_n_leaves()
                else:
                    sk = sklearn_estimator(task, depth)
                    est = budget.estimate(("sklearn", task, depth), rows, args.lgbm_features)
                    if est is None or est <= budget.timeout:
                        leaves = sk.fit(X, y).get_n_leaves()
                        cell.notes.append("leaf count from sklearn")
                lgbm_leaves = "-"
                if leaves is not None:
                    lfits = {"lightgbm": partial(fit, partial(lightgbm_estimator, task, depth, leaves), X, y)}
                    lm = run_alternating(cell, lfits, args.reps, budget, partial(key, task, depth),
                                         rows, args.lgbm_features, args.long)
                    if "lightgbm" in lm:
                        lgbm_leaves = str(lm["lightgbm"].booster_.dump_model()["tree_info"][0]["num_leaves"])
                hist = fmt_time(cell, "rootwise_hist") if has_hist else "n/a (no splitter='hist')"
                note = f" ({'; '.join(cell.notes)})" if cell.notes else ""
                line = (f"| {task} | {rows:,} | {args.lgbm_features} | {depth} | {hist} | "
                        f"{fmt_time(cell, 'rootwise')} | {fmt_time(cell, 'lightgbm')} | "
                        f"{fmt_ratio(cell, 'lightgbm', 'rootwise_hist')} | "
                        f"{fmt_ratio(cell, 'lightgbm', 'rootwise')} | "
                        f"{leaves if leaves is not None else '-'}/{lgbm_leaves}{note} |")
                print(line, flush=True)
                out.append(line)
            del X, y
            gc.collect()


def mixed_data(args, budget: Budget, out: list) -> None:
    """Categorical columns and missing cells: rootwise's native handling (subset splits, surrogates)
    against LightGBM's categorical support; scikit-learn's trees take neither."""
    print("\n## Mixed data (categorical columns + missing cells), rootwise CART vs LightGBM, one thread")
    head = "| rows | continuous + categorical | max_depth | rootwise fit | LightGBM fit | leaves rw/lgbm |"
    print_table_head(head)
    for rows in args.mixed_rows:
        X, y = data.mixed(rows, 10, 5, n_classes=2, seed=0)
        for depth in args.depths:
            cell = Cell(clock=CLOCK, label=f"mixed {rows} {depth}")
            fits = {"rootwise": partial(fit, partial(rootwise_estimator, "clf", depth), X, y)}
            models = run_alternating(cell, fits, args.reps, budget, partial(key, "mixed", depth), rows, 15,
                                     args.long)
            leaves, lgbm_leaves = "-", "-"
            if "rootwise" in models and have_lightgbm():
                leaves = models["rootwise"].get_n_leaves()
                lfits = {"lightgbm": partial(fit, partial(lightgbm_estimator, "clf", depth, leaves), X, y)}
                lm = run_alternating(cell, lfits, args.reps, budget, partial(key, "mixed", depth), rows, 15,
                                     args.long)
                if "lightgbm" in lm:
                    lgbm_leaves = str(lm["lightgbm"].booster_.dump_model()["tree_info"][0]["num_leaves"])
            line = (f"| {rows:,} | 10 + 5 | {depth} | {fmt_time(cell, 'rootwise')} | "
                    f"{fmt_time(cell, 'lightgbm')} | {leaves}/{lgbm_leaves} |")
            print(line, flush=True)
            out.append(line)


# --------------------------------------------------------------------------- command line


QUICK = dict(rows=[10_000, 100_000], features=[20], depths=[None, 10], tasks=["clf", "reg"],
             reps=3, predict_rows=200_000, lgbm_rows=[100_000], lgbm_features=20, mixed_rows=[20_000],
             timeout=60.0, long=10.0, predict_train_rows=100_000)
FULL = dict(rows=[10_000, 100_000, 1_000_000], features=[20, 100], depths=[None, 10],
            tasks=["clf", "reg"], reps=5, predict_rows=1_000_000, lgbm_rows=[1_000_000],
            lgbm_features=20, mixed_rows=[100_000], timeout=600.0, long=60.0,
            predict_train_rows=200_000)


def _depth(s: str):
    return None if s.lower() in ("none", "full") else int(s)


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the default set (a few minutes)")
    mode.add_argument("--full", action="store_true", help="issue 6's grid (long: sklearn alone "
                      "needs minutes per 1M-row fit)")
    p.add_argument("--rows", type=int, nargs="+")
    p.add_argument("--features", type=int, nargs="+")
    p.add_argument("--depths", type=_depth, nargs="+", help="max_depth values; 'none' = fully grown")
    p.add_argument("--tasks", nargs="+", choices=["clf", "reg"])
    p.add_argument("--reps", type=int, help="repetitions per cell (medians are printed)")
    p.add_argument("--predict-rows", type=int)
    p.add_argument("--lgbm-rows", type=int, nargs="*", help="sizes for the LightGBM section ('' = none)")
    p.add_argument("--lgbm-features", type=int)
    p.add_argument("--mixed-rows", type=int, nargs="*", help="sizes for the mixed-data section")
    p.add_argument("--timeout", type=float, help="seconds one fit may take before it is skipped")
    p.add_argument("--long", type=float, help="after a fit this long, stop repeating the cell")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="what the tables report for single-threaded runs: elapsed time, or this "
                   "process's CPU time (steadier when other work shares the cores)")
    p.add_argument("--params", nargs="+", default=[], metavar="NAME=VALUE",
                   help="extra options for every rootwise estimator, e.g. max_surrogates=0")
    p.add_argument("--predict-train-rows", type=int,
                   help="rows the trees of the 'predict' section are fitted on")
    p.add_argument("--sections", nargs="+", default=["exact", "lightgbm", "mixed"],
                   choices=["exact", "lightgbm", "mixed", "predict"],
                   help="'predict': prediction alone (ndarray and DataFrame input, predict_proba, "
                   "small batches), not run by default")
    args = p.parse_args(argv)
    base = FULL if args.full else QUICK
    for k, v in base.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    return args


def warm_up() -> None:
    """Compile / load every kernel once, outside the timings."""
    X, y = data.classification(300, 5, seed=3)
    Xr, yr = data.regression(300, 5, seed=3)
    for task, XX, yy in (("clf", X, y), ("reg", Xr, yr)):
        for depth in (None, 3):
            rootwise_estimator(task, depth).fit(XX, yy).predict(XX)
            hist = rootwise_estimator(task, depth, splitter="hist")
            if hist is not None:
                hist.fit(XX, yy).predict(XX)
            sklearn_estimator(task, depth).fit(XX, yy).predict(XX)
    Xm, ym = data.mixed(300, 3, 2, seed=3)
    rootwise_estimator("clf", None).fit(Xm, ym).predict(Xm)


def main(argv=None) -> int:
    global CLOCK
    args = parse(argv)
    CLOCK = args.clock
    for item in args.params:
        name, _, value = item.partition("=")
        try:
            ROOTWISE_PARAMS[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            ROOTWISE_PARAMS[name] = value  # a bare string such as splitter=hist
    warnings.filterwarnings("ignore", category=UserWarning)  # LightGBM's "no further splits"
    for line in machine_lines():
        print(line)
    print(f"numba threads: {numba.config.NUMBA_NUM_THREADS} available, fits run on 1; "
          f"reps={args.reps}, timeout={args.timeout:.0f} s per fit, long={args.long:.0f} s, "
          f"clock={CLOCK}; rootwise CART(pruning=None, {ROOTWISE_PARAMS or 'defaults otherwise'})")
    started = time.perf_counter()
    with threadpool_limits(limits=1):
        set_threads(1)
        warm_up()
        budget = Budget(args.timeout)
        out: list[str] = []
        if "exact" in args.sections:
            exact_cart(args, budget, out)
        if "lightgbm" in args.sections and args.lgbm_rows:
            if have_lightgbm():
                histogram_vs_lightgbm(args, budget, out)
            else:
                print("\nLightGBM is not installed (pip install -e '.[bench]'): section skipped")
        if "mixed" in args.sections and args.mixed_rows:
            mixed_data(args, budget, out)
        if "predict" in args.sections:
            prediction(args, out)
    print(f"\ntotal {time.perf_counter() - started:.0f} s; load average at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
