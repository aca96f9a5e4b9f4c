"""splitter="hist" (``engine/hist.py`` and ``engine/bins.py``: binning; the engine's loop grows).

The basis: when every column has at most max_bins distinct values each bin holds one value, and
the hist tree must be the exact tree node by node (features, thresholds, category sets,
surrogates, counts, values). The exact tree comes from the reference builder (``_builder``'s
Python loop, itself checked against tests/naive.py, scikit-learn and rpart). With coarser bins the
engine must equal the reference hist builder, which is the exact reference builder run on the
bins (one stand-in value per bin). Binning itself is checked by brute force.

Regression targets in the equality tests are integers, and weights are integers: every sum is
then exact in float64 whatever the order it is taken in (histograms add per bin and subtract the
sibling, the reference adds row by row), so the trees must agree bit for bit.
"""

import dataclasses

import numpy as np
import pytest
from compare import close

from rootwise import CARTClassifier, CARTRegressor, reference
from rootwise._config import CATEGORICAL, CONTINUOUS, THRESHOLD
from rootwise._policy import Policy
from rootwise.engine import bins as kernels
from rootwise.engine import hist as _hist
from rootwise.engine.dispatch import build_tree
from rootwise.tree import NODE_FIELDS, SURROGATE_FIELDS


def assert_same_tree(tree, ref):
    """Node by node; thresholds bit for bit, statistics to 1e-12 (impurities are computed from the
    same sums but, for regression, with a pairwise sum of deviations)."""
    for name in NODE_FIELDS:
        assert close(getattr(tree, name), getattr(ref, name)), name
    np.testing.assert_array_equal(tree.threshold, ref.threshold)
    assert close(tree.value, ref.value)
    np.testing.assert_array_equal(tree.pool, ref.pool)
    for name in SURROGATE_FIELDS:
        assert close(tree.surrogates[name], ref.surrogates[name]), "surrogate " + name
    np.testing.assert_array_equal(tree.surrogates["threshold"], ref.surrogates["threshold"])


def _policy(criterion, **kw):
    return Policy(criterion=criterion, selection="gain", categorical_split="subset",
                  numeric_as_category=False, missing="surrogate", splitter="hist", **kw)


def _case(seed, max_bins=255):
    """Random data with tied values, a categorical column, missing cells and integer weights."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(5, 300)), int(rng.integers(1, 6))
    X = rng.normal(size=(n, d)).round(int(rng.integers(0, 3)))
    kinds = np.full(d, CONTINUOUS, dtype=np.int64)
    n_cat = np.zeros(d, dtype=np.int64)
    if seed % 3 == 0 and d > 1:
        kinds[1], n_cat[1] = CATEGORICAL, 5
        X[:, 1] = rng.integers(0, 5, size=n)
    if seed % 2 == 0:
        X[rng.random((n, d)) < 0.1] = np.nan
    criterion = ("gini", "entropy", "squared_error")[seed % 3]
    x0 = np.nan_to_num(X[:, 0])
    if criterion == "squared_error":
        y, n_classes = np.round(x0 * 2 + rng.normal(size=n)), 0  # integer targets: exact sums
    else:
        y = ((x0 + rng.normal(size=n) > 0).astype(np.int64) + (np.nan_to_num(X[:, -1]) > 0.8))
        n_classes = 3
    w = rng.integers(1, 4, size=n).astype(float) if seed % 4 == 1 else np.ones(n)
    policy = _policy(criterion, max_depth=(None, 3)[seed % 2],
                     min_samples_leaf=float(rng.integers(1, 3)),
                     min_samples_split=float(rng.integers(2, 5)),
                     min_impurity_decrease=(0.0, 0.01)[seed % 5 == 0],
                     max_surrogates=int(rng.integers(0, 6)), max_bins=max_bins)
    return X, y, w, kinds, n_cat, n_classes, policy


@pytest.mark.parametrize("seed", range(36))
def test_exact_bins_grow_the_exact_tree(seed):
    X, y, w, kinds, n_cat, n_classes, policy = _case(seed)
    exact = dataclasses.replace(policy, splitter="exact")
    ref = reference.build_tree(X, y, w, kinds, n_cat, n_classes, exact)
    assert_same_tree(build_tree(X, y, w, kinds, n_cat, n_classes, policy), ref)
    # the reference hist builder too (the exact builder on the bins' stand-ins)
    assert_same_tree(reference.build_tree(X, y, w, kinds, n_cat, n_classes, policy), ref)


@pytest.mark.parametrize("seed", range(30))
def test_coarse_bins_grow_the_reference_hist_tree(seed):
    X, y, w, kinds, n_cat, n_classes, policy = _case(seed + 100, max_bins=2 + seed % 9)
    ref = reference.build_tree(X, y, w, kinds, n_cat, n_classes, policy)
    tree = build_tree(X, y, w, kinds, n_cat, n_classes, policy)
    assert_same_tree(tree, ref)
    # every threshold is the midpoint of two training values of its column (brute force)
    for node in np.flatnonzero(tree.kind == THRESHOLD):
        col = np.unique(X[~np.isnan(X[:, tree.feature[node]]), tree.feature[node]])
        t = tree.threshold[node]
        a, b = np.meshgrid(col, col, indexing="ij")
        assert np.any((a < b) & (a / 2 + b / 2 == t)), (node, t)


def _binary_unit_case(seed):
    """Two classes, unit weights, hundreds of rows: the paths only unit weights take (the prefix
    sum scan, Gini's two-class proxy, surrogate statistics from one child) with many bins per
    node. Ties (rounded values), missing cells and a categorical column on some seeds."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(300, 900)), int(rng.integers(2, 6))
    X = rng.normal(size=(n, d)).round(1)
    kinds = np.full(d, CONTINUOUS, dtype=np.int64)
    n_cat = np.zeros(d, dtype=np.int64)
    if seed % 3 == 0:
        kinds[1], n_cat[1] = CATEGORICAL, 6
        X[:, 1] = rng.integers(0, 6, size=n)
    if seed % 2 == 1:
        X[rng.random((n, d)) < 0.05] = np.nan
    x0 = np.nan_to_num(X[:, 0])
    y = (x0 + 0.8 * np.nan_to_num(X[:, -1]) + rng.normal(size=n) > 0.2).astype(np.int64)
    policy = _policy(("gini", "entropy")[seed % 4 // 2], max_depth=None,
                     min_samples_leaf=float(1 + seed % 2), max_surrogates=5)
    return X, y, np.ones(n), kinds, n_cat, 2, policy


@pytest.mark.parametrize("seed", range(8))
def test_binary_unit_weights_grow_the_exact_tree(seed):
    X, y, w, kinds, n_cat, n_classes, policy = _binary_unit_case(seed)
    exact = dataclasses.replace(policy, splitter="exact")
    ref = reference.build_tree(X, y, w, kinds, n_cat, n_classes, exact)
    tree = build_tree(X, y, w, kinds, n_cat, n_classes, policy)
    assert tree.surrogates["feature"].shape[0] > 0
    assert_same_tree(tree, ref)


@pytest.mark.parametrize("seed", range(4))
def test_binary_unit_weights_coarse_bins(seed):
    X, y, w, kinds, n_cat, n_classes, policy = _binary_unit_case(seed + 50)
    policy = dataclasses.replace(policy, max_bins=7 + seed)
    assert_same_tree(build_tree(X, y, w, kinds, n_cat, n_classes, policy),
                     reference.build_tree(X, y, w, kinds, n_cat, n_classes, policy))


def test_coarse_bins_differ_from_exact_but_stayclose():
    """Not a copy of the exact splitter in disguise: with 4 bins a 200-value column has only 3 cut
    points, yet the fit is still a sensible tree."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0.1).astype(int)
    hist = CARTClassifier(pruning=None, splitter="hist", max_bins=4, max_depth=2).fit(X, y)
    exact = CARTClassifier(pruning=None, max_depth=2).fit(X, y)
    assert hist.tree_ != exact.tree_
    cuts = {float(t) for f, t in zip(hist.tree_.feature, hist.tree_.threshold, strict=True)
            if f == 0}
    assert cuts and len(cuts) <= 3
    assert hist.score(X, y) > 0.8 and exact.score(X, y) > 0.8


# ----------------------------------------------------------------------------- binning


def test_binning_few_distinct_values_is_one_bin_per_value():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 40, size=(500, 3)).astype(float) / 4
    X[::7, 1] = np.nan
    b = _hist.make_bins(X, np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64), 255)
    for j in range(3):
        values = np.unique(X[~np.isnan(X[:, j]), j])
        assert b.n_bins[j] == len(values)
        known = ~np.isnan(X[:, j])
        np.testing.assert_array_equal(b.codes[known, j], np.searchsorted(values, X[known, j]))
        assert np.all(b.codes[~known, j] == len(values))  # missing: a bin of its own
        np.testing.assert_array_equal(b.bin_min[j, :len(values)], values)
        np.testing.assert_array_equal(b.bin_max[j, :len(values)], values)


@pytest.mark.parametrize("max_bins", [2, 7, 255])
def test_binning_many_values_is_about_equal_count(max_bins):
    rng = np.random.default_rng(2)
    col = np.concatenate([rng.normal(size=3000).round(2), np.full(400, 0.5)])  # one heavy value
    X = col[:, None]
    b = _hist.make_bins(X, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), max_bins)
    k = int(b.n_bins[0])
    codes = b.codes[:, 0].astype(int)
    assert 2 <= k <= max_bins and set(codes) == set(range(k))
    # bins are value ranges: brute-force min / max per bin, and no value on two sides of an edge
    for v in range(k):
        assert b.bin_min[0, v] == col[codes == v].min() and b.bin_max[0, v] == col[codes == v].max()
        if v + 1 < k:
            assert col[codes == v].max() < col[codes == v + 1].min()
    # equal counts up to one run of equal values: no bin holds more than n / max_bins + a run
    counts = np.bincount(codes)
    assert counts.max() <= len(col) / max_bins + 400 + 1


def test_binning_from_a_sample_still_exact(monkeypatch):
    """Quantiles come from a strided sample; a column with few distinct values, one of which the
    sample misses, is binned again from every row, so its bins stay exact."""
    monkeypatch.setattr(_hist, "SAMPLE_ROWS", 10)
    col = np.zeros(100)
    col[::2] = 1.0
    col[37] = 7.0  # row 37 is not in the sample of every 10th row
    X = np.column_stack([col, np.arange(100.0)])
    b = _hist.make_bins(X, np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64), 255)
    assert b.n_bins[0] == 3 and b.codes[37, 0] == 2
    np.testing.assert_array_equal(b.codes[:, 1], np.arange(100))  # the sample saw 10 of 100
    # more values than bins: quantiles of the sample 0, 10, ..., 90. By hand: a bin closes once
    # the sample rows seen reach (b + 1) * 10 / 4, i.e. after 3, 5 and 8 values: edges 20, 40,
    # 70, and the last bin takes the rest; then all 100 rows fall in (-inf, 20], (20, 40], ...
    b = _hist.make_bins(X[:, 1:], np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 4)
    assert b.n_bins[0] == 4
    np.testing.assert_array_equal(b.upper[0, :4], [20, 40, 70, 90])
    np.testing.assert_array_equal(np.bincount(b.codes[:, 0]), [21, 20, 30, 29])


def test_bin_of_is_a_binary_search():
    upper = np.full(kernels.SEARCH_SIZE, np.inf)
    upper[:5] = [1.0, 2.0, 3.0, 4.0, 5.0]
    for x, want in [(-9.0, 0), (1.0, 0), (1.5, 1), (4.0, 3), (4.5, 4), (99.0, 4)]:
        assert kernels.bin_of(upper, 5, x) == want


# ----------------------------------------------------------------------------- estimators


def _discrete(n=300, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 30, size=(n, 4)).astype(float)
    X[rng.random((n, 4)) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.integers(0, 10, size=n) > 20).astype(int)
    return X, y


@pytest.mark.parametrize("params", [
    dict(pruning=None),
    dict(pruning="cost-complexity", ccp_alpha="cv-1se", random_state=0),
    dict(pruning="reduced-error", random_state=0),
    dict(pruning="pre", random_state=0),
    dict(pruning=None, max_leaf_nodes=7),
])
def test_estimators_hist_equals_exact_with_exact_bins(params):
    """Every pruning option works with hist (pre-pruning and max_leaf_nodes through the reference
    hist builder); with one bin per value the fitted trees are the exact ones."""
    X, y = _discrete()
    for Est, target in ((CARTClassifier, y), (CARTRegressor, y * 3.0 + 1)):
        hist = Est(splitter="hist", **params).fit(X, target)
        exact = Est(**params).fit(X, target)
        assert hist.tree_ == exact.tree_, (Est.__name__, params)
        np.testing.assert_array_equal(hist.predict(X), exact.predict(X))


def test_categorical_columns_and_median_leaves():
    rng = np.random.default_rng(4)
    cat = rng.choice(list("abcdef"), size=200)
    num = rng.normal(size=200)
    y = np.where(np.isin(cat, ["a", "c"]), 5.0, 0.0) + (num > 0)
    X = np.empty((200, 2), dtype=object)
    X[:, 0], X[:, 1] = cat, num
    for leaf_value in ("mean", "median"):
        hist = CARTRegressor(splitter="hist", max_bins=16, pruning=None,
                             leaf_value=leaf_value).fit(X, y)
        assert hist.tree_.kind[0] == 3  # SUBSET: the categorical column first, {a, c} apart
        codes = [hist.schema_.categories[0].index(c) for c in "abcdef"]
        side = hist.tree_.branch_of_category(0)[codes]
        assert side[0] == side[2] and len(set(side[[1, 3, 4, 5]])) == 1 and side[0] != side[1]
        assert np.abs(hist.predict(X) - y).max() < 1.01


def test_zero_weights():
    X, y = _discrete(120)
    w = np.ones(len(y))
    w[::5] = 0.0
    hist = CARTClassifier(splitter="hist", pruning=None).fit(X, y, sample_weight=w)
    exact = CARTClassifier(pruning=None).fit(X, y, sample_weight=w)
    assert hist.tree_ == exact.tree_


def test_more_categories_than_a_byte_holds():
    """A categorical column of 300 categories is searched from its codes in X (WIDE); with one bin
    per value of the continuous column, the hist tree is the exact one."""
    rng = np.random.default_rng(8)
    codes = rng.permutation(np.arange(600) % 300)  # every category twice
    X = np.empty((600, 2), dtype=object)
    X[:, 0] = [f"c{i}" for i in codes]
    X[:, 1] = rng.integers(0, 40, 600) * 0.5
    y = ((codes < 150) ^ (X[:, 1] > 15).astype(bool)).astype(int)
    hist = CARTClassifier(splitter="hist", pruning=None).fit(X, y)
    exact = CARTClassifier(pruning=None).fit(X, y)
    assert len(hist.schema_.categories[0]) == 300
    assert hist.tree_ == exact.tree_
    assert 3 in hist.tree_.kind  # a subset test on the 300 categories


@pytest.mark.parametrize("bad", [dict(splitter="fast"), dict(splitter=None), dict(max_bins=1),
                                 dict(max_bins=256), dict(max_bins=2.0), dict(max_bins=True)])
def test_parameters_are_checked(bad):
    X, y = _discrete(20)
    name = next(iter(bad))
    # scikit-learn's wording (a set's order varies between processes)
    expected = (r"a str among \{('exact', 'hist'|'hist', 'exact')\}" if name == "splitter"
                else r"an int in the range \[2, 255\]")
    for Est in (CARTClassifier, CARTRegressor):
        with pytest.raises(ValueError, match=f"The '{name}' parameter of {Est.__name__} must be "
                                             f"{expected}. Got .* instead"):
            Est(**bad).fit(X, y)


@pytest.mark.parametrize("Est", [CARTClassifier, CARTRegressor])
def test_same_tree_for_any_n_jobs(Est):
    """Histograms, scans and surrogate statistics run per feature on the threads for large
    nodes; the sums do not depend on the thread count."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30000, 6))
    X[rng.random(X.shape) < 0.02] = np.nan  # surrogates from rows, not from the children
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=30000) > 0).astype(int)
    target = y if Est is CARTClassifier else np.round(np.nan_to_num(X[:, 0]) * 3) + y
    one = Est(splitter="hist", pruning=None, max_depth=8, n_jobs=1).fit(X, target)
    two = Est(splitter="hist", pruning=None, max_depth=8, n_jobs=2).fit(X, target)
    assert one.tree_ == two.tree_
