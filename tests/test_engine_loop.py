"""The engine (``engine.loop``, through ``engine.dispatch``) grows exactly the reference builder's
trees, bit for bit: every node array, value, pool entry and surrogate, on a random corpus with
ties, missing cells, many categories (more than a byte holds too), zero and fractional weights,
every stopping rule, best-first growth, median leaves and pre-pruning, for every algorithm.

The reference (``rootwise.reference``) is itself checked against brute force (``tests/naive.py``)
and against J48, rpart and scikit-learn (the parity tests)."""

import dataclasses

import numpy as np
import pytest

from rootwise import reference
from rootwise._config import CATEGORICAL, CONTINUOUS
from rootwise._policy import Policy
from rootwise.engine.dispatch import build_tree_with_report
from rootwise.tree import NODE_FIELDS, SURROGATE_FIELDS


def assert_identical(tree, ref, exact_floats=True):
    """Same tree: structure and thresholds exactly; floats exactly, or (histograms with
    non-integer sums) within 1e-12."""
    for name in NODE_FIELDS:
        a, b = getattr(tree, name), getattr(ref, name)
        assert a.shape == b.shape, (name, a.shape, b.shape)
        if a.dtype.kind == "f" and not exact_floats and name != "threshold":
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=name)
        else:
            assert np.array_equal(a, b, equal_nan=True), name
    if exact_floats:
        assert np.array_equal(tree.value, ref.value), "value"
    else:
        np.testing.assert_allclose(tree.value, ref.value, rtol=1e-12, atol=1e-12)
    assert np.array_equal(tree.pool, ref.pool), "pool"
    assert tree.pool.dtype == ref.pool.dtype, "pool"  # int8, or int32 past 128 branches
    for name in SURROGATE_FIELDS:
        a, b = tree.surrogates[name], ref.surrogates[name]
        assert a.shape == b.shape, ("surrogates", name)
        if a.dtype.kind == "f" and not exact_floats and name != "threshold":
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=name)
        else:
            assert np.array_equal(a, b, equal_nan=True), ("surrogates", name)


def table(rng, *, missing=True, wide=False, regression=False, n_max=300):
    """Columns of rounded normals (ties), categorical columns (a few, or more than 255
    categories), missing cells; a target that depends on them; weights of some kind."""
    n = int(rng.integers(2, n_max))
    n_cont, n_cat = int(rng.integers(0, 4)), int(rng.integers(0, 4))
    if n_cont + n_cat == 0:
        n_cont = 1
    cols, kinds, n_categories = [], [], []
    for _ in range(n_cont):
        cols.append(rng.normal(size=n).round(int(rng.integers(0, 3))))
        kinds.append(CONTINUOUS)
        n_categories.append(0)
    for c in range(n_cat):
        k = int(rng.integers(300, 400)) if wide and c == 0 else int(rng.integers(1, 9))
        cols.append(rng.integers(0, k, n).astype(float))
        kinds.append(CATEGORICAL)
        n_categories.append(k)
    X = np.stack(cols, axis=1)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    signal = np.nan_to_num(X).sum(axis=1) % 7 + rng.normal(size=n)
    if regression:
        y, n_classes = signal.round(1) * 3.0, 0
    else:
        n_classes = int(rng.integers(2, 4))
        edges = np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1])
        y = np.digitize(signal, edges).astype(np.int64)
    kind = rng.integers(0, 4)
    if kind == 0:
        w = np.ones(n)
    elif kind == 1:
        w = rng.integers(0, 4, n).astype(float)  # zeros among them
    elif kind == 2:
        w = rng.integers(1, 5, n) * 0.25
    else:
        w = rng.random(n) + 0.05
    w[0] = max(w[0], 1.0)
    return X, y, w, np.array(kinds, dtype=np.int64), np.array(n_categories, dtype=np.int64), n_classes


STOPPING = [{}, {"max_depth": 2}, {"min_samples_split": 9.0}, {"epsilon": 0.05},
            {"min_impurity_decrease": 0.01}, {"impurity_threshold": 0.3},
            {"min_samples_leaf": 3.0}, {"min_samples_leaf": 0.5}]


def cart(criterion="gini", **kw):
    return Policy(criterion=criterion, selection="gain", categorical_split="subset",
                  numeric_as_category=False, missing="surrogate", **kw)


def c45(**kw):
    base = {"min_samples_leaf": 2.0, "min_samples_split": 4.0}
    return Policy(criterion="entropy", selection="gain_ratio", categorical_split="multiway",
                  numeric_as_category=False, missing="fractional", min_leaf_rule="two_branches",
                  **{**base, **kw})


def id3(**kw):
    return Policy(criterion="entropy", selection="gain", categorical_split="multiway",
                  numeric_as_category=True, missing="error", **kw)


def both(X, y, w, kinds, n_cat, n_classes, policy, validation=None):
    tree, steps = build_tree_with_report(X, y, w, kinds, n_cat, n_classes, policy, validation)
    ref, ref_steps = reference.build_tree_with_report(X, y, w, kinds, n_cat, n_classes, policy,
                                                      validation)
    assert [dataclasses.astuple(s) for s in steps] == [dataclasses.astuple(s) for s in ref_steps]
    return tree, ref


@pytest.mark.parametrize("seed", range(60))
def test_cart_classifier(seed):
    rng = np.random.default_rng(seed)
    X, y, w, kinds, n_cat, n_classes = table(rng, wide=seed % 5 == 0)
    extra = STOPPING[seed % len(STOPPING)]
    criterion = ("gini", "entropy")[seed % 2]
    policy = cart(criterion, max_surrogates=int(rng.integers(0, 6)),
                  max_exhaustive=int(rng.integers(1, 13)), **extra)
    assert_identical(*both(X, y, w, kinds, n_cat, n_classes, policy))


@pytest.mark.parametrize("seed", range(40))
def test_cart_regressor(seed):
    rng = np.random.default_rng(1000 + seed)
    X, y, w, kinds, n_cat, _ = table(rng, regression=True, wide=seed % 7 == 0)
    extra = STOPPING[seed % len(STOPPING)]
    if "impurity_threshold" in extra:
        extra = {"impurity_threshold": 1.0}
    policy = cart("squared_error", leaf_value=("mean", "median")[seed % 2], **extra)
    assert_identical(*both(X, y, w, kinds, n_cat, 0, policy))


@pytest.mark.parametrize("seed", range(40))
def test_c45(seed):
    rng = np.random.default_rng(2000 + seed)
    X, y, w, kinds, n_cat, n_classes = table(rng, wide=seed % 5 == 3)
    extra = STOPPING[seed % len(STOPPING)]
    policy = c45(release8=bool(seed % 2), **extra)
    assert_identical(*both(X, y, w, kinds, n_cat, n_classes, policy))


@pytest.mark.parametrize("seed", range(20))
def test_id3(seed):
    rng = np.random.default_rng(3000 + seed)
    X, y, w, kinds, n_cat, n_classes = table(rng, missing=False, wide=seed % 4 == 0)
    # ID3 treats every column as categorical: continuous columns become their sorted values
    for j in np.flatnonzero(kinds == CONTINUOUS):
        values, codes = np.unique(X[:, j], return_inverse=True)
        X[:, j], kinds[j], n_cat[j] = codes, CATEGORICAL, len(values)
    policy = id3(**STOPPING[seed % 4])
    assert_identical(*both(X, y, w, kinds, n_cat, n_classes, policy))


@pytest.mark.parametrize("seed", range(20))
def test_best_first(seed):
    rng = np.random.default_rng(4000 + seed)
    regression = seed % 3 == 0
    X, y, w, kinds, n_cat, n_classes = table(rng, regression=regression)
    policy = cart("squared_error" if regression else "gini",
                  max_leaf_nodes=int(rng.integers(2, 12)))
    assert_identical(*both(X, y, w, kinds, n_cat, n_classes, policy))


@pytest.mark.parametrize("seed", range(30))
def test_pre_pruning(seed):
    rng = np.random.default_rng(5000 + seed)
    algorithm = ("cart", "c45", "id3", "regressor")[seed % 4]
    X, y, w, kinds, n_cat, n_classes = table(rng, regression=algorithm == "regressor",
                                             missing=algorithm != "id3")
    if algorithm == "id3":
        for j in np.flatnonzero(kinds == CONTINUOUS):
            values, codes = np.unique(X[:, j], return_inverse=True)
            X[:, j], kinds[j], n_cat[j] = codes, CATEGORICAL, len(values)
    m = max(1, len(y) // 3)
    val = (X[:m].copy(), y[:m].copy(), rng.integers(1, 3, m).astype(float))
    if algorithm != "id3":
        val[0][rng.random(val[0].shape) < 0.1] = np.nan
    policy = {"cart": cart(prune_on_tie=bool(seed % 2)), "c45": c45(release8=seed % 8 == 1),
              "id3": id3(), "regressor": cart("squared_error")}[algorithm]
    assert_identical(*both(X[m:], y[m:], w[m:], kinds, n_cat, n_classes, policy, val))


@pytest.mark.parametrize("seed", range(12))
def test_hist_pre_pruning(seed):
    """Pre-pruning with histogram bins: validation rows go by their real values, as ``predict``
    sends them, in the engine and in the reference (whose bin stand-ins sent a validation row
    of a bin absent at the node to the other side of a cut: found by growing policies at
    random). Against predict itself: the root's step scores the tree of depth 1."""
    rng = np.random.default_rng(12000 + seed)
    regression = seed % 3 == 2
    X, y, w, kinds, n_cat, n_classes = table(rng, regression=regression)
    m = len(y) // 3
    val = (X[:m].copy(), y[:m].copy(), np.ones(m))
    criterion = "squared_error" if regression else ("gini", "entropy")[seed % 2]
    bins = int(rng.integers(2, 20))
    policy = cart(criterion, splitter="hist", max_bins=bins)
    tree, ref = both(X[m:], y[m:], w[m:], kinds, n_cat, n_classes, policy, val)
    # sums of non-integer weights are the same up to rounding (``test_hist``)
    integer = np.all(w == np.round(w)) and (not regression or np.all(y == np.round(y)))
    assert_identical(tree, ref, exact_floats=bool(integer))
    if not regression:
        stump, steps = build_tree_with_report(X[m:], y[m:], w[m:], kinds, n_cat, n_classes,
                                              cart(criterion, splitter="hist", max_bins=bins,
                                                   max_depth=1), val)
        if stump.node_count > 1:
            right = np.argmax(stump.value[stump.apply(val[0])], axis=1) == val[1]
            assert steps[0].score_as_subtree == pytest.approx(right.mean(), abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_hist(seed):
    """Histogram bins: the engine against the exact reference on the bins. Sums of non-integer
    weights or targets are the same up to rounding; with integer ones, bit for bit."""
    rng = np.random.default_rng(6000 + seed)
    regression = seed % 3 == 0
    X, y, w, kinds, n_cat, n_classes = table(rng, regression=regression, wide=seed % 6 == 0)
    policy = cart("squared_error" if regression else "gini", splitter="hist",
                  max_bins=int(rng.integers(2, 20)), max_leaf_nodes=(None, 8)[seed % 2],
                  **STOPPING[seed % 4])
    integer = np.all(w == np.round(w)) and (not regression or np.all(y == np.round(y)))
    tree, ref = both(X, y, w, kinds, n_cat, n_classes, policy)
    assert_identical(tree, ref, exact_floats=bool(integer))


@pytest.mark.parametrize("seed", range(6))
def test_class_histograms_of_large_nodes(seed):
    """CART classification with weights 0 or 1, grown depth-first: nodes of hundreds of rows keep
    class histograms (``histograms``: the smaller child counted, the larger subtracted, surrogate
    entries read from them), exact or hist splitter, with pre-pruning on some seeds. The trees
    are the reference's bit for bit, and the histograms are in use."""
    from rootwise.engine.hist import make_bins
    from rootwise.engine.histograms import new_histograms

    rng = np.random.default_rng(8000 + seed)
    n = 1500
    X = np.stack([rng.normal(size=n).round(1), rng.normal(size=n).round(2),
                  rng.integers(0, 6, n).astype(float), rng.integers(0, 40, n).astype(float)],
                 axis=1)
    kinds = np.array([CONTINUOUS, CONTINUOUS, CATEGORICAL, CATEGORICAL], dtype=np.int64)
    n_cat = np.array([0, 0, 6, 40], dtype=np.int64)
    n_classes = 2 + seed % 2
    y = ((X[:, 0] > 0) + (X[:, 2] % 3 == 0) + (X[:, 3] % 5 < 2) * (seed % 2)
         + (rng.random(n) < 0.2)) % n_classes
    X[rng.random(X.shape) < 0.08] = np.nan
    splitter = "hist" if seed < 4 else "exact"
    w = (rng.random(n) < 0.95).astype(float)  # rows of weight 0 too
    policy = cart(("gini", "entropy")[seed % 4 // 2], splitter=splitter, max_bins=32,
                  max_surrogates=(5, 0, 2)[seed % 3], min_samples_leaf=float(1 + seed % 2))
    val = None
    if seed == 3:
        val = (X[:300], y[:300].astype(np.int64), np.ones(300))
    tree, ref = both(X[300:] if val else X, (y[300:] if val else y).astype(np.int64),
                     w[300:] if val else w, kinds, n_cat, n_classes, policy, val)
    assert_identical(tree, ref)
    binned = np.arange(4, dtype=np.int64) if splitter == "hist" else np.array([2, 3])
    n_values = make_bins(X, kinds, n_cat, 32).n_bins
    assert new_histograms(n, binned, n_values, n_classes, True).min_rows < 300
    assert tree.n_node_samples.max() >= 1000


def test_c45_pre_pruning_whose_validation_copies_outgrow_their_room():
    """C4.5 sends a validation row without the tested value down every branch, so the
    validation segments can grow past their first room (twice the validation rows) mid-fit; the
    node waiting for room must be grown as if it had not waited (its rows untouched)."""
    grown = 0
    for seed in range(8):
        rng = np.random.default_rng(7000 + seed)
        n, m = 240, 120
        X = np.stack([rng.integers(0, 8, n + m).astype(float),
                      rng.integers(0, 5, n + m).astype(float),
                      rng.normal(size=n + m).round(1)], axis=1)
        y = ((X[:, 0] % 3 + X[:, 1] % 2 + (X[:, 2] > 0) + rng.integers(0, 2, n + m)) % 3)
        X[n:][rng.random((m, 3)) < 0.6] = np.nan  # most validation cells missing: 8-fold copies
        X[:n][rng.random((n, 3)) < 0.05] = np.nan
        kinds = np.array([CATEGORICAL, CATEGORICAL, CONTINUOUS], dtype=np.int64)
        n_cat = np.array([8, 5, 0], dtype=np.int64)
        val = (X[n:], y[n:].astype(np.int64), np.ones(m))
        policy = c45(release8=bool(seed % 2), prune_on_tie=False)
        tree, ref = both(X[:n], y[:n].astype(np.int64), rng.integers(1, 3, n).astype(float),
                         kinds, n_cat, 3, policy, val)
        assert_identical(tree, ref)
        grown += tree.node_count > 9  # the root's 8 branches and more: room had to grow
    assert grown >= 4


@pytest.mark.parametrize("seed", range(12))
def test_hist_rows_of_weight_zero_go_by_their_values(seed):
    """With few bins, a row of weight 0 often holds a bin that no row of weight holds at its node,
    between the two around the cut: it goes by its value, as ``predict`` sends it (its bin, or
    the reference's bin stand-in, can fall on the other side). Without missing cells or
    categories (whose rows without a branch take detours that can end differently on ties),
    every node's row count is the count of training rows that predict's walk passes through."""
    rng = np.random.default_rng(9000 + seed)
    n = 300
    X = np.stack([rng.normal(size=n).round(2), rng.normal(size=n).round(2),
                  rng.integers(0, 6, n).astype(float)], axis=1)
    kinds = np.array([CONTINUOUS, CONTINUOUS, CONTINUOUS], dtype=np.int64)
    n_cat = np.array([0, 0, 0], dtype=np.int64)
    y = ((X[:, 0] > 0) + (X[:, 2] % 3 == 0) + (rng.random(n) < 0.2)).astype(np.int64) % 2
    w = (rng.random(n) < 0.7).astype(float)
    policy = cart("gini", splitter="hist", max_bins=int(rng.integers(4, 12)))
    tree, ref = both(X, y, w, kinds, n_cat, 2, policy)
    assert_identical(tree, ref)
    passed = np.asarray(tree.decision_path(X).sum(axis=0)).ravel()
    np.testing.assert_array_equal(passed, tree.n_node_samples)


@pytest.mark.parametrize("seed", range(4))
def test_long_columns_and_many_categories(seed):
    """Nodes of thousands of rows with unit weights, where the Gini threshold scans pass over
    blocks of cuts (``sorted_scan``: two and three classes), and a categorical column of 30
    categories, which three classes search by the heuristic: the reference's tree bit for bit."""
    rng = np.random.default_rng(9000 + seed)
    n = 5000
    X = np.stack([rng.normal(size=n), rng.normal(size=n).round(2), rng.normal(size=n).round(1),
                  rng.integers(0, 30, n).astype(float)], axis=1)
    kinds = np.array([CONTINUOUS, CONTINUOUS, CONTINUOUS, CATEGORICAL], dtype=np.int64)
    n_cat = np.array([0, 0, 0, 30], dtype=np.int64)
    n_classes = 2 + seed % 2
    signal = X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + (X[:, 3] % 7 < 3) + rng.normal(size=n) * 0.7
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    X[rng.random(X.shape) < 0.05] = np.nan
    policy = cart("gini", max_depth=5, max_surrogates=(5, 2)[seed // 2])
    tree, ref = both(X, y.astype(np.int64), np.ones(n), kinds, n_cat, n_classes, policy)
    assert_identical(tree, ref)
    assert tree.n_node_samples[0] == n and tree.node_count > 30
