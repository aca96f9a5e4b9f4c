"""Given bin edges (``hist.make_bins(edges=...)``, ``fit(..., bin_edges=...)``): the local fit bins
with the caller's edges instead of learning them, which is what lets a distributed fit and the
local fit share bins (``rootwise.dask``). Bins are checked by brute force; trees against a peer
fit whose edges are learnt (the same edges given back must give the same tree)."""

import numpy as np
import pandas as pd
import pytest
from test_engine_hist import assert_same_tree

from rootwise import CARTClassifier, CARTRegressor
from rootwise.engine import hist as _hist


def _brute_force(col, edges):
    """Bin of each known value: the number of edges below it, capped at the last bin."""
    known = ~np.isnan(col)
    codes = np.minimum(np.searchsorted(edges, col[known], side="left"), len(edges) - 1)
    return known, codes


def test_given_edges_bin_by_brute_force():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 2))
    X[::9, 0] = np.nan
    edges = [np.array([-1.05, -0.3, 0.0, 0.41, 2.5, 9.0]), np.array([0.123])]  # not data values
    b = _hist.make_bins(X, np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64), 255, edges)
    for j in range(2):
        known, codes = _brute_force(X[:, j], edges[j])
        assert b.n_bins[j] == len(edges[j])
        np.testing.assert_array_equal(b.codes[known, j], codes)
        assert np.all(b.codes[~known, j] == len(edges[j]))
        for v in range(len(edges[j])):
            inside = X[known, j][codes == v]
            if inside.size:  # bin 5 of column 0, (2.5, 9.0], may be empty: then (+inf, -inf)
                assert b.bin_min[j, v] == inside.min() and b.bin_max[j, v] == inside.max()
            else:
                assert b.bin_min[j, v] == np.inf and b.bin_max[j, v] == -np.inf


def test_learnt_edges_given_back_bin_the_same():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.normal(size=5000).round(3), rng.integers(0, 9, 5000).astype(float)])
    kinds = np.zeros(2, dtype=np.int64)
    learnt = _hist.make_bins(X, kinds, np.zeros(2, dtype=np.int64), 32)
    edges = [learnt.upper[j, :learnt.n_bins[j]] for j in range(2)]
    given = _hist.make_bins(X, kinds, np.zeros(2, dtype=np.int64), 32, edges)
    np.testing.assert_array_equal(given.codes, learnt.codes)
    np.testing.assert_array_equal(given.bin_min, learnt.bin_min)
    np.testing.assert_array_equal(given.bin_max, learnt.bin_max)


@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
def test_fit_with_the_learnt_edges_grows_the_same_tree(cls):
    rng = np.random.default_rng(5)
    n = 3000
    X = pd.DataFrame({"a": rng.normal(size=n).round(3), "c": rng.choice(list("pqrs"), n),
                      "b": rng.exponential(size=n).round(2)})
    X.loc[::13, "a"] = np.nan
    y = (X["a"].fillna(0) + (X["c"] == "q") + rng.normal(size=n) > 0.5).astype(int)
    if cls is CARTRegressor:
        y = y * 3 + rng.integers(0, 3, n)
    params = dict(splitter="hist", max_bins=20, max_depth=5, pruning=None)
    learnt = cls(**params).fit(X, y)
    Xe = learnt._encode(X)
    kinds = learnt.schema_.kinds_array
    bins = _hist.make_bins(Xe, kinds, learnt.schema_.n_categories, 20)
    edges = {name: bins.upper[j, :bins.n_bins[j]] for j, name in enumerate(X.columns)
             if name != "c"}
    given = cls(**params).fit(X, y, bin_edges=edges)
    assert_same_tree(given.tree_, learnt.tree_)
    # other edges, another tree: the edges are really used
    coarse = cls(**params).fit(X, y, bin_edges={"a": [0.0], "b": [1.0]})
    assert coarse.tree_.node_count < learnt.tree_.node_count
    assert set(np.unique(coarse.tree_.threshold[coarse.tree_.feature == 0])) <= {
        np.nanmax(X["a"][X["a"] <= 0]) / 2 + np.nanmin(X["a"][X["a"] > 0]) / 2}


def test_bad_edges_are_refused_by_name():
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match=r"bin_edges\[1\] must be finite and strictly ascending"):
        CARTClassifier(splitter="hist").fit(X, y, bin_edges=[[1.0], [3.0, 2.0]])
    with pytest.raises(ValueError, match=r"bin_edges\[0\] is None, but column 0 is continuous"):
        CARTClassifier(splitter="hist").fit(X, y, bin_edges=[None, [3.0]])
    with pytest.raises(ValueError, match="bin_edges has 1 entries; X has 2 columns"):
        CARTClassifier(splitter="hist").fit(X, y, bin_edges=[[1.0]])
    with pytest.raises(ValueError, match="needs splitter='hist'"):
        CARTClassifier().fit(X, y, bin_edges=[[1.0], [1.0]])
    with pytest.raises(ValueError, match="neither a column name nor a column index"):
        CARTClassifier(splitter="hist").fit(X, y, bin_edges={"zz": [1.0]})
    with pytest.raises(ValueError, match="expected 1 to max_bins=2"):
        CARTClassifier(splitter="hist", max_bins=2).fit(X, y, bin_edges=[[1.0, 2, 3], [1.0]])
