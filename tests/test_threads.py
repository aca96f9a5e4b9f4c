"""n_jobs changes the speed, never the result; the direct path for numeric arrays encodes exactly
as the general one does; Python threads sharing a model, or fitting at once, get the serial
answers."""

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise._threads import resolve
from rootwise.input import encode, tables


def _data(n=25000, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n) * 0.5 > 0).astype(int)
    return X, y


@pytest.mark.parametrize("Est", [CARTClassifier, CARTRegressor])
def test_same_tree_and_predictions_for_any_n_jobs(Est):
    X, y = _data()
    target = y if Est is CARTClassifier else X[:, 0] * 2.0 + y
    one = Est(pruning=None, n_jobs=1).fit(X, target)
    two = Est(pruning=None, n_jobs=2).fit(X, target)
    assert one.tree_ == two.tree_
    X_new = np.random.default_rng(1).normal(size=(30000, X.shape[1]))  # enough for row blocks
    X_new[::7, 2] = np.nan  # surrogates on some rows
    np.testing.assert_array_equal(one.predict(X_new), two.predict(X_new))
    np.testing.assert_array_equal(one.apply(X_new), one.set_params(n_jobs=2).apply(X_new))


def test_n_jobs_is_checked():
    X, y = _data(200)
    with pytest.raises(ValueError, match="n_jobs"):
        CARTClassifier(n_jobs=0).fit(X, y)
    with pytest.raises(ValueError, match="n_jobs"):
        C45Classifier(n_jobs=1.5).fit(X, y)
    assert resolve(1) == 1 and resolve(None) >= 1 and resolve(-1) == resolve(None)


def test_numeric_array_path_encodes_like_the_table_path():
    X, y = _data(300)
    model = CARTClassifier(pruning=None).fit(X, y)
    X_new = np.random.default_rng(2).normal(size=(50, X.shape[1]))
    X_new[3, 1] = np.nan
    direct = encode.encode_numeric_array(X_new, model.schema_)
    general = encode.encode(tables.as_frame(X_new), model.schema_)
    np.testing.assert_array_equal(direct, general)
    # a DataFrame of numpy numeric columns takes it too
    np.testing.assert_array_equal(encode.encode_numeric_array(pd.DataFrame(X_new), model.schema_),
                                  general)
    X_new[5, 4] = np.inf
    with pytest.raises(ValueError, match="column 'x4', row 5"):
        model.predict(X_new)
    with pytest.raises(ValueError, match="column 'x4', row 5"):
        encode.encode_numeric_array(X_new, model.schema_)
    # not taken for non-numeric arrays or nullable columns
    assert encode.encode_numeric_array(X_new.astype(object), model.schema_) is None
    assert encode.encode_numeric_array(pd.DataFrame(X_new).astype("Float64"), model.schema_) is None



# --------------------------------------------------------------------------- many Python threads


def _concurrently(task, n_threads=8):
    """[task(i) for i in range(n_threads)], each on its own thread, all released at once."""
    barrier = threading.Barrier(n_threads)

    def run(i):
        barrier.wait()
        return task(i)

    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(run, range(n_threads)))


def _mixed_table(n, seed):
    """Continuous and categorical columns with missing cells, and a target for each kind of
    tree: every routing path (thresholds, subsets, multiway, surrogates, fractions)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(list("pqrstu"), n),
                      "c": rng.normal(size=n), "d": rng.integers(0, 4, n).astype(str)})
    y = ((X["a"] > 0) ^ X["b"].isin(["p", "q"])).astype(int) + (X["c"] > 1)
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.1, "b"] = None
    return X, y


def _target(estimator, X, y):
    return X["c"] * 2.0 + y if isinstance(estimator, CARTRegressor) else y


ESTIMATORS = {
    "CART, parallel row blocks": lambda: CARTClassifier(pruning=None, n_jobs=2),
    "CART, one thread each": lambda: CARTClassifier(pruning=None, n_jobs=1),
    "CART, cp table": lambda: CARTClassifier(cv=3, random_state=0, n_jobs=2),
    "C4.5 fractional": lambda: C45Classifier(),
    "ID3": lambda: ID3Classifier(max_depth=4),
    "hist": lambda: CARTClassifier(splitter="hist", pruning=None, n_jobs=2),
    "regressor": lambda: CARTRegressor(pruning=None, n_jobs=2),
}


def _fit(make, X, y):
    est = make()
    if isinstance(est, ID3Classifier):  # ID3 takes no missing cells
        X = X.fillna({"a": 0.0, "b": "p"})
    return est.fit(X, _target(est, X, y))


@pytest.mark.parametrize("make", ESTIMATORS.values(), ids=ESTIMATORS.keys())
def test_eight_threads_predicting_on_one_model_get_the_serial_answers(make):
    X, y = _mixed_table(3000, 0)
    model = _fit(make, X, y)
    X_new, _ = _mixed_table(20000, 1)  # above the parallel cut: row blocks on numba's threads
    X_new.loc[::50, "b"] = "never seen"
    if isinstance(model, ID3Classifier):
        X_new = X_new.fillna({"a": 0.0, "b": "p"})
    calls = {"predict": model.predict, "apply": model.apply}
    if hasattr(model, "predict_proba"):
        calls["predict_proba"] = model.predict_proba
    serial = {name: f(X_new) for name, f in calls.items()}

    def task(i):
        return [{name: f(X_new) for name, f in calls.items()} for _ in range(3)]

    for results in _concurrently(task):
        for got in results:
            for name, want in serial.items():
                assert got[name].dtype == want.dtype and np.array_equal(got[name], want), name


def test_fits_in_parallel_threads_grow_the_serial_trees():
    tables = [_mixed_table(1000, seed) for seed in range(2)]
    jobs = [(make, t) for make in ESTIMATORS.values() for t in tables]  # 14 fits, 8 at a time
    serial = [_fit(make, *t) for make, t in jobs]

    def task(i):
        return [_fit(*jobs[j][:1], *jobs[j][1]) for j in range(i, len(jobs), 8)]

    for i, fitted in enumerate(_concurrently(task)):
        for j, model in zip(range(i, len(jobs), 8), fitted, strict=True):
            assert model.tree_ == serial[j].tree_, j
            table = getattr(serial[j], "cp_table_", None)
            if table is not None:
                assert np.array_equal(model.cp_table_.cv_error, table.cv_error)


WORKQUEUE_SCRIPT = """
import threading
from concurrent.futures import ThreadPoolExecutor
import numpy as np
from rootwise import CARTClassifier

rng = np.random.default_rng(0)
X = rng.normal(size=(20000, 4))
X[::7, 1] = np.nan
y = (X[:, 0] + np.nan_to_num(X[:, 1]) > 0).astype(int)
model = CARTClassifier(pruning=None, n_jobs=2).fit(X, y)
serial = model.predict_proba(X)
barrier = threading.Barrier(8)

def task(i):
    barrier.wait()
    if i % 4 == 3:  # fits too, whose split search is parallel
        return CARTClassifier(pruning=None, n_jobs=2).fit(X, y).tree_ == model.tree_
    return all(np.array_equal(model.predict_proba(X), serial) for _ in range(3))

with ThreadPoolExecutor(8) as pool:
    assert all(pool.map(task, range(8)))
import numba
print(numba.threading_layer())
"""


def test_threads_are_safe_under_numbas_workqueue_layer():
    """numba's fallback layer (no OpenMP, no TBB) terminates the process when two Python threads
    launch parallel kernels at once; rootwise then runs them one thread at a time."""
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    done = subprocess.run([sys.executable, "-c", WORKQUEUE_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["workqueue"]
