"""Compile every kernel ahead of first use, into numba's on-disk cache (``rootwise compile``).

rootwise's kernels are numba functions cached on disk (``_jit``): the first fit in a fresh
environment compiles them, later processes load the machine code. ``compile_kernels`` pays the
compilation once, ahead of time, for container images and CI: it runs the public API on small
generated tables through every path that calls a kernel from Python with its own argument types
(each algorithm, pruning strategy, splitter and missing-value rule; prediction on float64 and
float32 matrices in C and Fortran order, serial and on two threads).
"""

from __future__ import annotations

import threading
import time

import numpy as np
from numba.core import event

PARALLEL_ROWS = 8192  # estimators._PARALLEL_ROWS: predictions this large run on threads


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


def compile_kernels(progress=None) -> dict:
    """Fill numba's on-disk cache with every rootwise kernel; returns {"compiled": kernels
    compiled now (0 when the cache was already full), "seconds": wall time, "cache": the cache
    directories}. ``progress(message)``, if given, is told each step."""
    from ._jit import cache_dirs

    counter = CompileCounter()
    start = time.perf_counter()
    with event.install_listener("numba:compile", counter):
        for message, step in _steps():
            if progress is not None:
                progress(message)
            step()
    return {"compiled": len(counter.kernels), "seconds": time.perf_counter() - start,
            "cache": [str(d) for d in cache_dirs()]}


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
        _continuous(C45Classifier(), Xm, y)

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

    def regression():
        for options in ({}, {"splitter": "hist"}, {"leaf_value": "median", "pruning": None},
                        {"pruning": "reduced-error"}, {"pruning": "pre"}):
            model = CARTRegressor(categorical_features=categorical, random_state=0, **options)
            model.fit(Xm, target)
            _predictions(model, Xm)
        for options in ({}, {"splitter": "hist"}):
            _continuous(CARTRegressor(random_state=0, **options), Xm, target)

    def threads():
        big = np.tile(X, (PARALLEL_ROWS // len(X) + 1, 1))
        for model in (CARTClassifier(pruning=None, n_jobs=2).fit(X, y),
                      CARTRegressor(pruning=None, n_jobs=2).fit(X, target),
                      # categorical features: the column-wise walk on threads
                      CARTClassifier(pruning=None, n_jobs=2,
                                     categorical_features=categorical).fit(Xm, y)):
            _predictions(model, big)

    return [("ID3", id3), ("C4.5", c45), ("multiway tests of 300 branches", wide),
            ("CART classifier", cart),
            ("CART regressor", regression), ("predictions on two threads", threads)]
