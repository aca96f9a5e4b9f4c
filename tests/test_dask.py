"""rootwise.dask: a CART fit on a Dask collection grows the local hist fit's tree.

The peer is the local fit on the concatenated table with the distributed fit's bin edges
(``fit(bin_edges=...)``). Weights and regression targets are integers: every sum is then exact in
float64 in any order, so partitions added in any grouping give the local sums bit for bit (see
``rootwise/dask/kernels.py``). One LocalCluster (processes on loopback) serves the module; the
cluster is scaled to 1, 2 and 4 workers, with uneven partitions.
"""

import os
import signal
import threading
import time

import dask  # the test extra installs dask and distributed: nothing is skipped
import dask.array as da
import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
import pytest
from test_engine_hist import assert_same_tree

from rootwise import CARTClassifier, CARTRegressor


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    try:
        cluster.close(timeout=120)  # a loaded machine stops four worker processes slowly
    except KeyError:
        # distributed's own race at shutdown, after the workers and the scheduler have stopped:
        # its status watcher hears of a removed worker (the killed one's) no longer in its table
        pass


def _scale(client, n):
    client.cluster.scale(n)
    client.wait_for_workers(n, timeout=60)
    while len(client.scheduler_info()["workers"]) > n:  # scaling down retires workers
        client.cluster.scale(n)
        time.sleep(0.2)


def _table(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n).round(2), "c": rng.choice(list("pqrst"), n),
                      "b": rng.exponential(size=n).round(1), "k": rng.integers(0, 7, n) * 1.0})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.05, "c"] = None
    signal_ = X["a"].fillna(0) + (X["c"] == "q") + 0.3 * X["k"] + rng.normal(size=n)
    y = pd.Series(np.digitize(signal_, [0.0, 1.5]))  # three classes
    w = pd.Series(rng.integers(0, 4, n).astype(float))
    return X, y, w


def _uneven(frame, sizes):
    """A dask collection cut at the given partition sizes."""
    cuts = np.cumsum([0] + list(sizes))
    pieces = [frame.iloc[cuts[i]:cuts[i + 1]] for i in range(len(sizes))]
    return dd.from_delayed([dask.delayed(p) for p in pieces], meta=frame.iloc[:0],
                           verify_meta=False)


@pytest.mark.parametrize("workers, sizes", [(1, [1200]), (2, [100, 900, 37, 163]),
                                            (4, [300, 5, 600, 100, 195])])
def test_classifier_same_tree_as_local(client, workers, sizes):
    _scale(client, workers)
    X, y, w = _table(sum(sizes), workers)
    params = dict(splitter="hist", max_bins=12, max_depth=6, pruning=None)
    est = CARTClassifier(**params).fit(_uneven(X, sizes), _uneven(y, sizes),
                                       sample_weight=_uneven(w, sizes))
    local = CARTClassifier(**params).fit(X, y, sample_weight=w, bin_edges=est.bin_edges_)
    assert est.tree_.node_count > 15 and est.tree_.surrogates["feature"].size > 0
    assert_same_tree(est.tree_, local.tree_)
    np.testing.assert_array_equal(est.tree_.impurity, local.tree_.impurity)
    np.testing.assert_array_equal(est.tree_.value, local.tree_.value)
    np.testing.assert_array_equal(est.classes_, local.classes_)
    # column k has 7 distinct values (<= max_bins): its edges are exact, as the local ones are
    np.testing.assert_array_equal(est.bin_edges_[3], np.arange(7.0))


def test_regressor_same_tree_and_pruned_alpha(client):
    _scale(client, 2)
    sizes = [400, 1000, 250]
    X, y, w = _table(sum(sizes), 7)
    y = y * 10 + (X["k"] > 3) * 3 + np.arange(len(y)) % 5  # integer targets: exact sums
    nodes = []
    for params in (dict(pruning=None), dict(ccp_alpha=0.5), dict(pruning=None, cp=0.02)):
        # (min_samples_leaf counts rows, which the distributed fit refuses with weights)
        params.update(splitter="hist", max_bins=20, max_depth=5)
        est = CARTRegressor(**params).fit(_uneven(X, sizes), _uneven(y, sizes),
                                          sample_weight=_uneven(w, sizes))
        local = CARTRegressor(**params).fit(X, y, sample_weight=w, bin_edges=est.bin_edges_)
        assert_same_tree(est.tree_, local.tree_)
        np.testing.assert_array_equal(est.tree_.value, local.tree_.value)
        nodes.append(est.tree_.node_count)
    assert nodes[2] < nodes[0]  # cp's floor stopped nodes of the unpruned tree, as locally


def test_lazy_predictions(client):
    _scale(client, 2)
    sizes = [300, 200, 500]
    X, y, w = _table(sum(sizes), 3)
    est = CARTClassifier(splitter="hist", max_depth=4, pruning=None).fit(
        _uneven(X, sizes), _uneven(y, sizes))
    dX = _uneven(X, sizes)
    for method in ("predict", "predict_proba", "apply"):
        lazy = getattr(est, method)(dX)
        assert type(lazy).__module__.startswith("dask")  # nothing computed yet
        np.testing.assert_array_equal(np.asarray(lazy.compute()), getattr(est, method)(X))
    A = da.from_array(X[["a", "b", "k"]].to_numpy(), chunks=(250, 3))
    ya = da.from_array(y.to_numpy(), chunks=250)
    est2 = CARTClassifier(splitter="hist", max_depth=4, pruning=None).fit(A, ya)
    local = CARTClassifier(splitter="hist", max_depth=4, pruning=None).fit(
        X[["a", "b", "k"]].to_numpy(), y.to_numpy(), bin_edges=est2.bin_edges_)
    assert_same_tree(est2.tree_, local.tree_)
    out = est2.predict_proba(A)
    assert isinstance(out, da.Array)
    np.testing.assert_array_equal(out.compute(), local.predict_proba(X[["a", "b", "k"]].to_numpy()))


def test_refusals_name_the_parameter(client):
    X, y, _ = _table(50, 1)
    dX, dy = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    with pytest.raises(ValueError, match="needs splitter='hist'"):
        CARTClassifier().fit(dX, dy)
    with pytest.raises(ValueError, match="max_leaf_nodes"):
        CARTClassifier(splitter="hist", max_leaf_nodes=4).fit(dX, dy)
    with pytest.raises(ValueError, match="leaf_value='median'"):
        CARTRegressor(splitter="hist", leaf_value="median").fit(dX, dy)
    for criterion in ("poisson", "absolute_error"):
        with pytest.raises(ValueError, match=f"criterion='{criterion}' is not available on a "
                                             f"Dask collection"):
            CARTRegressor(splitter="hist", criterion=criterion, pruning=None).fit(dX, dy)
    with pytest.raises(ValueError, match="alpha by cross-validation"):
        CARTClassifier(splitter="hist").fit(dX, dy)
    with pytest.raises(ValueError, match="monotonic_cst is not available on a Dask collection"):
        CARTRegressor(splitter="hist", pruning=None, monotonic_cst={"a": 1}).fit(dX, dy)
    with pytest.raises(ValueError, match=r"CARTClassifier: loss \(a loss matrix\) is not available"):
        CARTClassifier(splitter="hist", pruning=None, loss=[[0, 1], [2, 0]]).fit(dX, dy)
    with pytest.raises(TypeError, match="y must be a dask collection"):
        CARTClassifier(splitter="hist", pruning=None).fit(dX, y)
    with pytest.raises(ValueError, match="X has 2 partitions and y has 3"):
        CARTClassifier(splitter="hist", pruning=None).fit(dX, dd.from_pandas(y, npartitions=3))
    hist = dict(splitter="hist", pruning=None)
    with pytest.raises(ValueError, match=r"min_samples_leaf=0.1 \(a fraction of the rows\) is not "
                                         r"available on a Dask collection"):
        CARTClassifier(min_samples_leaf=0.1, **hist).fit(dX, dy)
    with pytest.raises(ValueError, match="min_weight_fraction_leaf is not available on a Dask"):
        CARTClassifier(min_weight_fraction_leaf=0.1, **hist).fit(dX, dy)
    dw = dd.from_pandas(pd.Series(np.linspace(0.5, 2.0, 50)), npartitions=2)
    with pytest.raises(ValueError, match=r"min_samples_split=2 / min_samples_leaf=3 count rows, "
                                         r"and a fit on a Dask collection counts weight"):
        CARTClassifier(min_samples_leaf=3, **hist).fit(dX, dy, sample_weight=dw)


def test_worker_killed_mid_fit_never_gives_a_wrong_tree(client):
    """A worker process is killed (SIGKILL) while the tree grows: the fit either completes
    (Dask recomputes the lost partitions from their lineage) with the local tree, or raises."""
    _scale(client, 2)
    sizes = [2000] * 6
    X, y, w = _table(sum(sizes), 11)
    params = dict(splitter="hist", max_bins=32, max_depth=8, pruning=None)
    est = CARTClassifier(**params)
    log, outcome = [], {}

    def run():
        try:
            from rootwise.dask import fit

            fit(est, _uneven(X, sizes), _uneven(y, sizes), _uneven(w, sizes), log=log)
            outcome["ok"] = True
        except Exception as e:  # noqa: BLE001 - any clear error is an allowed outcome
            outcome["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    while not log and thread.is_alive():  # the first histogram round: partitions are prepared
        thread.join(0.05)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    assert not outcome  # still growing when the worker dies
    os.kill(victim, signal.SIGKILL)
    thread.join(300)
    assert not thread.is_alive()
    assert outcome  # completed or raised
    if "ok" in outcome:
        local = CARTClassifier(**params).fit(X, y, sample_weight=w, bin_edges=est.bin_edges_)
        assert_same_tree(est.tree_, local.tree_)
    else:
        assert isinstance(outcome["error"], Exception) and str(outcome["error"])
    client.wait_for_workers(2, timeout=60)


@pytest.mark.parametrize("rule, cp", [("cv-1se", None), ("cv-min", None), ("cv-1se", 0.005)])
def test_alpha_by_cv_with_folds_as_a_column(client, rule, cp):
    """CART's cost-complexity pruning with alpha by CV: the folds are a column, so each fold
    tree grows on the other folds' rows where they are, and its held-out rows are scored there."""
    _scale(client, 2)
    sizes = [700, 150, 900, 250]
    X, y, w = _table(sum(sizes), 5)
    folds = pd.Series(np.random.default_rng(9).integers(0, 5, sum(sizes)))
    params = dict(splitter="hist", max_bins=16, max_depth=7, ccp_alpha=rule, cp=cp)
    est = CARTClassifier(**params).fit(_uneven(X, sizes), _uneven(y, sizes),
                                       sample_weight=_uneven(w, sizes), folds=_uneven(folds, sizes))
    local = CARTClassifier(**params).fit(X, y, sample_weight=w, bin_edges=est.bin_edges_,
                                         folds=folds)
    a, b = est.cp_table_, local.cp_table_
    assert len(a.alpha) > 3 and 0 < a.chosen < len(a.alpha) - 1  # a real choice was made
    for name in ("alpha", "n_leaves", "train_cost", "cv_error", "cv_std_error"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.chosen == b.chosen
    assert (a.alpha[0] > 0) == (cp is not None)  # with cp the table starts at alpha_0
    assert_same_tree(est.tree_, local.tree_)
    # the fold column is what is used: other folds, another CV error
    other = CARTClassifier(**params).fit(X, y, sample_weight=w, bin_edges=est.bin_edges_,
                                         folds=(folds + 1) % 3)
    assert not np.array_equal(other.cp_table_.cv_error, a.cv_error)


def test_histogram_memory_bound_splits_a_level_into_rounds(client):
    """memory_limit_mb caps the nodes whose histograms a round builds; the tree is the same."""
    from rootwise.dask import fit

    _scale(client, 2)
    sizes = [500, 300, 400]
    X, y, w = _table(sum(sizes), 8)
    params = dict(splitter="hist", max_bins=8, max_depth=5, pruning=None, max_surrogates=0)
    per_node = 4 * (8 + 1) * 3 * 8  # columns x codes (7 categories + missing: 9) x classes x 8 B
    log = []
    est = fit(CARTClassifier(**params), _uneven(X, sizes), _uneven(y, sizes), _uneven(w, sizes),
              memory_limit_mb=3 * per_node / 2**20, log=log)
    rounds = [e for e in log if e[0] == "histogram"]
    assert max(e[2] for e in rounds) == 3 and all(e[3] <= 3 * per_node for e in rounds)
    assert len(rounds) > 5  # levels of more than 3 open nodes took several rounds
    local = CARTClassifier(**params).fit(X, y, sample_weight=w, bin_edges=est.bin_edges_)
    assert_same_tree(est.tree_, local.tree_)
