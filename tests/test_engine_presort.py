"""The root's words kept from a table's shared presort (``engine.presort``) are the words a fit
on those rows sorts for itself, and a tree grown on rows of a table read in place (``train``,
with a shared presort given or made for the fit) is, array for array and bit for bit, the tree
of those rows copied into a table of their own: ties, -0.0 next to 0.0, missing cells, zero weights,
categorical columns (a byte code, and more categories than a byte holds), weights, classes and
regression."""

import numpy as np
import pytest

from rootwise import CARTClassifier, CARTRegressor
from rootwise._config import CATEGORICAL, CONTINUOUS
from rootwise.engine.dispatch import build_tree_with_report, shared_presort
from rootwise.engine.presort import kept_words, presort_table
from rootwise.engine.segments import ROW_MASK, presort_column
from rootwise.tree.tree import NODE_FIELDS


def _table(seed, n=700):
    """4 continuous columns with many ties (two decimals, a constant, -0.0 among 0.0), a
    6-category and a 300-category column, ~8 % missing cells; 3 classes, a target, weights with
    zeros."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, 6))
    X[:, 0] = np.round(rng.normal(size=n), 1)
    X[:, 1] = np.where(rng.random(n) < 0.5, 0.0, -0.0)
    X[rng.random(n) < 0.3, 1] = 1.0
    X[:, 2] = rng.integers(0, 7, n).astype(float)
    X[:, 3] = np.round(rng.normal(size=n), 2)
    X[:, 4] = rng.integers(0, 6, n)
    X[:, 5] = rng.integers(0, 300, n)
    X[rng.random(X.shape) < 0.08] = np.nan
    X[:, 2][rng.random(n) < 0.5] = 3.0  # a heavy tie
    y = ((np.nan_to_num(X[:, 0]) + (X[:, 4] > 2) + 0.5 * rng.normal(size=n)) > 0.5).astype(np.int64)
    y[rng.random(n) < 0.25] = 2
    target = np.nan_to_num(X[:, 3]) + (X[:, 4] == 1) + rng.normal(size=n)
    w = rng.integers(0, 4, n).astype(float)  # a quarter of the rows weigh 0
    kinds = np.array([CONTINUOUS] * 4 + [CATEGORICAL] * 2, dtype=np.int64)
    n_categories = np.array([0, 0, 0, 0, 6, 300], dtype=np.int64)
    return X, y, target, w, kinds, n_categories


def _subsets(n, rng):
    """Training rows of a 5-fold split, a half, and every row but the first and the last."""
    fold = rng.permutation(n) % 5
    yield np.flatnonzero(fold != 0)
    yield np.flatnonzero(fold != 3)
    yield np.sort(rng.choice(n, n // 2, replace=False))
    yield np.arange(1, n - 1)


def _own_words(X, w, y, columns):
    """The words of a table's rows, each column sorted by itself (a fit's own root words)."""
    words = np.empty((len(columns), len(y)), dtype=np.int64)
    for s, j in enumerate(columns):
        presort_column(X[:, j], w, y, words[s], False)
    return words


@pytest.mark.parametrize("seed", range(4))
def test_kept_words_are_the_words_the_rows_sort_themselves(seed):
    X, y, _, w, _, _ = _table(seed)
    columns = np.arange(4, dtype=np.int64)
    table = presort_table(X, w, columns)
    for rows in _subsets(len(y), np.random.default_rng(seed)):
        kept = kept_words(table, y, rows, len(y))
        # the rows as a table of their own sort to the same words, with their own row ids
        own = _own_words(X[rows], w[rows], y[rows], columns)
        ids = rows[own & ROW_MASK]
        assert np.array_equal(kept, (own & ~np.int64(ROW_MASK)) | ids)


def _same_tree(a, b):
    """Every array of the two trees equal, floats bit for bit."""
    for name in NODE_FIELDS:
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    assert a.value.tobytes() == b.value.tobytes()
    assert a.pool.tobytes() == b.pool.tobytes()
    for name, column in a.surrogates.items():
        assert column.tobytes() == b.surrogates[name].tobytes(), name


MODELS = {
    "gini": (CARTClassifier(max_surrogates=5), 3),
    "entropy": (CARTClassifier(criterion="entropy"), 3),
    "regression": (CARTRegressor(), 0),
    # hist bins the rows read in place from them alone (max_bins below the distinct values:
    # equal-count bins, learnt from a strided sample of the rows)
    "hist": (CARTClassifier(splitter="hist", max_bins=16), 3),
    "hist-regression": (CARTRegressor(splitter="hist", max_bins=16), 0),
}


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_a_tree_on_rows_read_in_place_is_the_tree_of_those_rows(model, unit, seed):
    estimator, n_classes = MODELS[model]
    X, y, target, w, kinds, n_categories = _table(seed)
    if unit:
        w = (w > 0).astype(float)  # 0/1 weights: the integer-count scans
    targets = target if n_classes == 0 else y
    policy = estimator._policy()
    presort = shared_presort(X, w, kinds, policy)
    for rows in _subsets(len(y), np.random.default_rng(seed)):
        for floor in (0.0, 2.0):  # cp's floor on a node's cost, in weight units
            own, _ = build_tree_with_report(X[rows], targets[rows], w[rows], kinds, n_categories,
                                            n_classes, policy, cost_floor=floor)
            for shared in (None, presort):
                tree, _ = build_tree_with_report(X, targets, w, kinds, n_categories, n_classes,
                                                 policy, cost_floor=floor, train=rows,
                                                 presort=shared)
                _same_tree(tree, own)


def test_rows_not_in_ascending_order_are_copied():
    """A fold from a user's splitter may list its rows in any order (or twice): the fit is then
    that of the rows copied in the order given."""
    X, y, _, w, kinds, n_categories = _table(0)
    policy = CARTClassifier()._policy()
    rows = np.random.default_rng(0).permutation(len(y))[:400]
    rows = np.concatenate([rows, rows[:50]])
    own, _ = build_tree_with_report(X[rows], y[rows], w[rows], kinds, n_categories, 3, policy)
    tree, _ = build_tree_with_report(X, y, w, kinds, n_categories, 3, policy, train=rows,
                                     presort=shared_presort(X, w, kinds, policy))
    _same_tree(tree, own)


def test_a_presort_of_another_table_is_refused():
    X, y, _, w, kinds, n_categories = _table(0)
    policy = CARTClassifier()._policy()
    other = shared_presort(X[:100], w[:100], kinds, policy)
    with pytest.raises(ValueError, match="presort holds"):
        build_tree_with_report(X, y, w, kinds, n_categories, 3, policy,
                               train=np.arange(50, 300), presort=other)


def test_a_mask_of_rows_is_read_as_the_rows_it_marks():
    X, y, _, w, kinds, n_categories = _table(1)
    policy = CARTClassifier()._policy()
    mask = np.random.default_rng(1).random(len(y)) < 0.7
    own, _ = build_tree_with_report(X[mask], y[mask], w[mask], kinds, n_categories, 3, policy)
    tree, _ = build_tree_with_report(X, y, w, kinds, n_categories, 3, policy, train=mask)
    _same_tree(tree, own)


@pytest.mark.parametrize("model", ["hist", "hist-regression"])
def test_hist_bins_rows_read_in_place_from_a_sample_of_them(monkeypatch, model):
    """A strided sample for the quantiles (every step-th of the fold's own rows, as a copy of
    them would be sampled) and the rebinning of a column the sample missed: the fold's tree is
    the tree of its rows copied."""
    import rootwise.engine.hist as hist

    monkeypatch.setattr(hist, "SAMPLE_ROWS", 61)
    estimator, n_classes = MODELS[model]
    X, y, target, w, kinds, n_categories = _table(3)
    targets = target if n_classes == 0 else y
    policy = estimator._policy()
    for rows in _subsets(len(y), np.random.default_rng(3)):
        own, _ = build_tree_with_report(X[rows], targets[rows], w[rows], kinds, n_categories,
                                        n_classes, policy)
        tree, _ = build_tree_with_report(X, targets, w, kinds, n_categories, n_classes, policy,
                                         train=rows)
        _same_tree(tree, own)
