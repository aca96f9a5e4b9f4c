"""Compile every kernel ahead of first use, into numba's on-disk cache (``rootwise compile``).

rootwise's kernels are numba functions cached on disk (``_jit``): the first fit in a fresh
environment compiles them, later processes load the machine code. ``compile_kernels`` pays the
compilation once, ahead of time, for container images and CI: it runs the public API on small
generated tables through every path that calls a kernel from Python with its own argument types
(each algorithm, pruning strategy, splitter and missing-value rule; prediction on float64 and
float32 matrices in C and Fortran order, serial and on two threads).

numba compiles one kernel at a time in a process, so ``rootwise compile`` runs the groups of fits
in one process per core, heaviest first, each taking the next group when it is done; a kernel one
process has cached already is loaded by the others, not compiled again.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import TYPE_CHECKING

import numpy as np
from numba.core import caching, event

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

PARALLEL_ROWS = 8192  # estimators._PARALLEL_ROWS: predictions this large run on threads

try:
    import fcntl
except ImportError:  # not POSIX: no lock between processes, so one process compiles everything
    fcntl = None


class CompileCounter(event.Listener):
    """The rootwise kernels numba compiles while it listens ("numba:compile" events; numba's own
    implementations are left out)."""

    def __init__(self):
        super().__init__()
        self.kernels = set()
        self.lock = threading.Lock()

    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        if function.__module__.startswith("rootwise."):
            with self.lock:
                self.kernels.add(f"{function.__module__}.{function.__qualname__}")

    def on_end(self, ev):
        pass


def compile_kernels(progress: Callable[[str], object] | None = None,
                    processes: int | None = 1) -> dict[str, Any]:
    """Fill numba's on-disk cache with every rootwise kernel; returns {"compiled": kernels
    compiled now (0 when the cache was already full), "seconds": wall time, "processes": how many
    compiled at once, "cache": the cache directories}. ``processes``: at most this many at once
    (None: one per core; ``rootwise compile``'s default). Several processes are started as
    ``multiprocessing`` does (spawn): a script that calls this must guard its own work with
    ``if __name__ == "__main__":``. ``progress(message)``, if given, is told each group of fits as
    it starts (one process) or ends (several)."""
    from ._jit import cache_dirs

    if processes is not None and processes < 1:
        raise ValueError(f"processes must be a positive number of processes, got {processes!r}")
    names = [message for message, _ in _steps()]
    dirs = cache_dirs()
    wanted = (os.cpu_count() or 1) if processes is None else processes
    lock = _lock_file(dirs[0]) if min(wanted, len(names)) > 1 else None
    start = time.perf_counter()
    if lock is None:
        workers = 1
        kernels = set()
        for index, message in enumerate(names):
            if progress is not None:
                progress(message)
            kernels |= _run_step(index)
    else:
        workers = min(wanted, len(names))
        kernels = _run_in_processes(names, workers, lock, progress)
    return {"compiled": len(kernels), "seconds": time.perf_counter() - start,
            "processes": workers, "cache": [str(d) for d in dirs]}


def _lock_file(folder) -> str | None:
    """The file whose lock the compiling processes take to write the cache: one per cache, so
    that two ``rootwise compile`` runs into it at once take turns too. None when there can be no
    such lock (not POSIX, or the folder is not writable): then one process compiles."""
    if fcntl is None:
        return None
    path = os.path.join(folder, "rootwise-compile.lock")
    try:
        os.makedirs(folder, exist_ok=True)
        open(path, "a").close()
    except OSError:
        return None
    return path


def _run_in_processes(names: list[str], workers: int, lock: str, progress) -> set:
    """Each group of fits in one of ``workers`` new processes; the kernels compiled by all."""
    kernels = set()
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"),
                             initializer=_locked_cache_writes, initargs=(lock,)) as pool:
        started = time.perf_counter()
        runs = {pool.submit(_run_step, index): message for index, message in enumerate(names)}
        for done in as_completed(runs):
            kernels |= done.result()
            if progress is not None:
                progress(f"{runs[done]}: done after {time.perf_counter() - started:.0f} s")
    return kernels


def _locked_cache_writes(lock: str) -> None:
    """Make numba's cache writes in this process exclusive among the processes sharing ``lock``.
    numba saves a kernel's machine code by reading the kernel's index, picking the first free
    data file name, and writing the index and then the data: two processes saving two signatures
    of one kernel at once would both pick the same data file, and the index would then name the
    other signature's code. (``Cache.save_overload``, as in numba 0.68.)"""
    save = caching.Cache.save_overload

    def save_overload(self, sig, data):
        with open(lock, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                return save(self, sig, data)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    caching.Cache.save_overload = save_overload


def _run_step(index: int) -> set:
    """Run group ``index`` of ``_steps``; the kernels it compiled. The compile notice stays quiet:
    the caller reports the steps itself."""
    from ._compile_notice import quiet

    counter = CompileCounter()
    with event.install_listener("numba:compile", counter), quiet():
        _steps()[index][1]()
    return counter.kernels


def _table(n: int, seed: int = 0):
    """n rows: 3 continuous columns, a 4-level and a 300-level categorical column (more categories
    than a byte code holds), 5 % missing cells; class labels and a regression target."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, 5))
    X[:, :3] = np.round(rng.normal(size=(n, 3)), 2)
    X[:, 3] = rng.integers(0, 4, n)
    X[:, 4] = rng.integers(0, 300, n)
    y = (X[:, 0] + (X[:, 3] > 1) + 0.3 * rng.normal(size=n) > 0.5).astype(np.int64)
    y[rng.random(n) < 0.3] = 2  # three classes
    target = X[:, 0] + X[:, 3] + rng.normal(size=n)
    X_missing = X.copy()
    X_missing[rng.random(X.shape) < 0.05] = np.nan
    return X, X_missing, y, target


def _predictions(model, X) -> None:
    """Every prediction entry on X as float64 and float32, C and Fortran order (a model of
    continuous columns routes such a matrix as it is; others encode it first)."""
    for dtype in (np.float64, np.float32):
        for order in ("C", "F"):
            Xo = np.asarray(X, dtype=dtype, order=order)
            model.predict(Xo)
            model.apply(Xo)
            if hasattr(model, "predict_proba"):
                model.predict_proba(Xo)
    model.decision_path(X)


def _continuous(model, X, y) -> None:
    """A model of ``X``'s continuous columns alone, fitted and predicted."""
    _predictions(model.fit(X[:, :3], y), X[:, :3])


def _steps():
    """(message, callable) for each group of fits."""
    from .estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier

    X, Xm, y, target = _table(300)
    levels = np.clip(np.round(X[:, :3]), -1, 1)  # ID3: numbers as categories
    categorical = [3, 4]
    weights = np.random.default_rng(1).uniform(0.5, 2.0, len(y))

    def id3():
        for pruning in (None, "reduced-error", "pre"):
            model = ID3Classifier(pruning=pruning, random_state=0).fit(levels, y)
            _predictions(model, levels)

    def c45():
        for options in ({}, {"release8": True}, {"pruning": "reduced-error"}, {"pruning": "pre"},
                        {"pruning": None}, {"subtree_raising": False}):
            model = C45Classifier(categorical_features=categorical, random_state=0, **options)
            model.fit(Xm, y, sample_weight=weights)
            _predictions(model, Xm)
        # the growth loop is compiled per kind of columns too (``engine.paths``): numbers alone,
        # categories alone, both
        for release8 in (False, True):
            _continuous(C45Classifier(release8=release8), Xm, y)
        codes = Xm[:, categorical]
        _predictions(C45Classifier(categorical_features=[0, 1], release8=True).fit(codes, y), codes)

    def wide():
        # a multiway test of more than 128 branches keeps an int32 category pool (``tree.
        # narrowest_pool``; every other tree an int8 one): the prunings and walks that read it
        # are compiled for that dtype too
        codes, labels = X[:, [4]], (X[:, 4] % 3).astype(np.int64)
        for model in (C45Classifier(categorical_features=[0], random_state=0),
                      ID3Classifier(pruning="reduced-error", random_state=0)):
            _predictions(model.fit(codes, labels), codes)

    def cart():
        for options in ({}, {"ccp_alpha": 0.0}, {"splitter": "hist"}, {"max_leaf_nodes": 8},
                        {"pruning": "reduced-error"}, {"pruning": "pre"},
                        {"criterion": "entropy", "pruning": None}):
            model = CARTClassifier(categorical_features=categorical, random_state=0, **options)
            model.fit(Xm, y, sample_weight=weights)
            _predictions(model, Xm)
        model.cost_complexity_pruning_path(Xm, y)
        for options in ({}, {"splitter": "hist"}):
            _continuous(CARTClassifier(random_state=0, **options), Xm, y)
        # a loss matrix (three classes) and monotonic constraints (two classes, a number column)
        lossy = CARTClassifier(categorical_features=categorical, random_state=0,
                               loss=[[0, 1, 2], [1, 0, 1], [3, 1, 0]]).fit(Xm, y)
        _predictions(lossy, Xm)
        _predictions(CARTClassifier(categorical_features=categorical, random_state=0,
                                    monotonic_cst=[1, 0, 0, 0, 0]).fit(Xm, y == 1), Xm)

    def regression():
        for options in ({}, {"splitter": "hist"}, {"leaf_value": "median", "pruning": None},
                        {"pruning": "reduced-error"}, {"pruning": "pre"}):
            model = CARTRegressor(categorical_features=categorical, random_state=0, **options)
            model.fit(Xm, target)
            _predictions(model, Xm)
        for options in ({}, {"splitter": "hist"}):
            _continuous(CARTRegressor(random_state=0, **options), Xm, target)
        for options in ({"criterion": "poisson"}, {"criterion": "absolute_error"},
                        {"monotonic_cst": [1, 0, 0, 0, 0]}):
            model = CARTRegressor(categorical_features=categorical, random_state=0, **options)
            _predictions(model.fit(Xm, np.abs(target)), Xm)

    def threads():
        from .engine import subtrees

        big = np.tile(X, (PARALLEL_ROWS // len(X) + 1, 1))
        # one tree's subtrees grown side by side (``engine.subtrees``), here on a small table
        least, subtrees.MIN_ROWS = subtrees.MIN_ROWS, 0
        try:
            models = (CARTClassifier(pruning=None, n_jobs=2).fit(X, y),
                      CARTRegressor(pruning=None, n_jobs=2).fit(X, target),
                      # categorical features: the column-wise walk on threads
                      CARTClassifier(pruning=None, n_jobs=2,
                                     categorical_features=categorical).fit(Xm, y),
                      CARTRegressor(pruning=None, n_jobs=2,
                                    categorical_features=categorical).fit(Xm, target),
                      # every column binned: no presorted one
                      CARTClassifier(pruning=None, n_jobs=2, splitter="hist").fit(X, y),
                      CARTRegressor(pruning=None, n_jobs=2, splitter="hist").fit(X, target))
        finally:
            subtrees.MIN_ROWS = least
        for model in models:
            _predictions(model, big)

    def on_dask():
        # a fit on a Dask collection (the dask extra; without it no fit calls these kernels): the
        # workers' share of each level (rootwise.dask.kernels), the client's split choice on the
        # summed histograms, alpha by CV with folds as a column, and lazy predictions. Workers are
        # threads of this process, so their kernels land in the same cache.
        try:
            import dask.dataframe as dd
            import distributed
            import pandas as pd
        except ImportError:
            return
        frame = pd.DataFrame({"a": Xm[:, 0], "b": Xm[:, 1], "k": X[:, 3],
                              "c": np.array(list("pqrs"), dtype=object)[X[:, 3].astype(int)]})
        frame.loc[np.isnan(Xm[:, 2]), "c"] = None
        parts = dict(npartitions=3, sort=False)
        dX = dd.from_pandas(frame, **parts)
        dy, dt = dd.from_pandas(pd.Series(y), **parts), dd.from_pandas(pd.Series(target), **parts)
        dw = dd.from_pandas(pd.Series(np.round(weights)), **parts)
        folds = dd.from_pandas(pd.Series(np.arange(len(y)) % 5), **parts)
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster, distributed.Client(cluster):
            hist = dict(splitter="hist", max_bins=16, max_depth=4)
            model = CARTClassifier(pruning=None, **hist).fit(dX, dy, sample_weight=dw)
            for method in ("predict", "predict_proba", "apply"):
                getattr(model, method)(dX).compute()
            CARTClassifier(ccp_alpha="cv-1se", **hist).fit(dX, dy, sample_weight=dw, folds=folds)
            model = CARTRegressor(pruning=None, **hist).fit(dX, dt, sample_weight=dw)
            model.predict(dX).compute()
            CARTRegressor(ccp_alpha=0.5, **hist).fit(dX, dt)

    # heaviest first: with a process per core, the light groups fill in at the end
    return [("CART classifier", cart), ("C4.5", c45), ("CART regressor", regression),
            ("ID3", id3), ("fits on a Dask cluster", on_dask),
            ("fits and predictions on two threads", threads),
            ("multiway tests of 300 branches", wide)]
