"""monotonic_cst on CART: scikit-learn's trees on numeric data, monotone predictions with
categorical columns, missing cells and pruning, scikit-learn's refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import parity
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from rootwise import CARTClassifier, CARTRegressor

# --------------------------------------------------------------------------- scikit-learn's trees


def _case(seed, classification):
    """A float32-exact table of 2-4 columns whose target moves against some of them, random
    constraints (at least one), and a depth limit or none."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(60, 160)), int(rng.integers(2, 5))
    X = parity.features(rng, n, p)
    score = np.sin(2 * X[:, 0]) + X @ rng.normal(size=p) + 0.3 * rng.normal(size=n)
    y = (score > np.median(score)).astype(np.int64) if classification else score
    cst = rng.integers(-1, 2, size=p)
    cst[int(rng.integers(0, p))] = 1 if rng.random() < 0.5 else -1
    params = [{}, {"max_depth": 2}, {"max_depth": 4}, {"min_samples_leaf": 3},
              {"max_leaf_nodes": 6}][seed % 5]
    return X, y, cst.tolist(), params


@pytest.mark.parametrize("classification", [True, False], ids=["classifier", "regressor"])
def test_the_tree_of_scikit_learn_on_numeric_data(classification):
    sk_cls = DecisionTreeClassifier if classification else DecisionTreeRegressor
    rw_cls = CARTClassifier if classification else CARTRegressor
    compared, changed = 0, 0
    for seed in range(30):
        X, y, cst, params = _case(seed, classification)
        sk = parity.sklearn_agrees(sk_cls, X, y, monotonic_cst=cst, **params)
        if sk is None:  # scikit-learn's seeds grow different trees: a tie
            continue
        rw = rw_cls(pruning=None, monotonic_cst=cst, **params).fit(X, y)
        free = rw_cls(pruning=None, **params).fit(X, y)
        changed += parity.rootwise_shape(free.tree_) != parity.rootwise_shape(rw.tree_)
        assert parity.rootwise_shape(rw.tree_) == parity.sklearn_shape(sk.tree_), f"case {seed}"
        Z = parity.new_points(seed, X.shape[1])
        for A in (X, Z):
            if classification:
                np.testing.assert_allclose(rw.predict_proba(A), sk.predict_proba(A), atol=1e-12)
            else:
                np.testing.assert_allclose(rw.predict(A), sk.predict(A), atol=1e-12)
        compared += 1
    assert compared >= 20, compared
    assert changed >= 10, changed  # the constraints mattered in most cases


# --------------------------------------------------------------------------- monotone on a grid


def _table(n=360, seed=0):
    """Two constrained columns the target moves against in parts of their range (up: rises on
    the whole, with a sine; down: falls, with a cosine), a categorical column, a free column
    tied to ``up``, and missing cells in every column."""
    rng = np.random.default_rng(seed)
    up = rng.uniform(0, 10, n)
    down = rng.uniform(0, 10, n)
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    near = up + rng.normal(0, 0.5, n)
    score = (up + 4 * np.sin(2 * up) - down + 3 * np.cos(3 * down)
             + pd.Series(colour).map({"red": 3, "green": 0, "blue": -2, "grey": 1}).to_numpy()
             + rng.normal(0, 1, n))
    X = pd.DataFrame({"up": up, "colour": colour, "near": near, "down": down})
    for col in X.columns:
        X.loc[rng.random(n) < 0.1, col] = np.nan if col != "colour" else None
    return X, score


CST = {"up": 1, "down": -1}
GRID = np.linspace(-1, 11, 61)


def _wrong_way(model, X, rows, column, sign, classification):
    """How many of ``rows`` see the prediction move against ``sign`` as ``column`` runs over
    GRID, the other cells kept (missing ones included); one prediction of every row's grid."""
    Z = X.iloc[np.repeat(rows, len(GRID))].reset_index(drop=True)
    Z[column] = np.tile(GRID, len(rows))
    pred = model.predict_proba(Z)[:, 1] if classification else model.predict(Z)
    steps = sign * np.diff(pred.reshape(len(rows), len(GRID)), axis=1)
    return int(np.count_nonzero((steps < -1e-12).any(axis=1)))


def _rows(X):
    """Real rows to vary: 30, a third of them with a missing cell in another column."""
    has_missing = np.flatnonzero(X.isna().any(axis=1).to_numpy())
    complete = np.flatnonzero(~X.isna().any(axis=1).to_numpy())
    return np.concatenate([has_missing[:10], complete[:20]])


@pytest.mark.parametrize("splitter", ["exact", "hist"])
@pytest.mark.parametrize("classification", [True, False], ids=["classifier", "regressor"])
def test_predictions_monotone_with_categories_and_missing_cells(classification, splitter):
    X, score = _table()
    y = (score > np.median(score)).astype(int) if classification else score
    cls = CARTClassifier if classification else CARTRegressor
    rows = _rows(X)
    # unconstrained, the tree follows the sine and the cosine: the grid test has teeth
    free = cls(pruning=None, splitter=splitter, max_bins=32).fit(X, y)
    for column, sign in CST.items():
        assert _wrong_way(free, X, rows, column, sign, classification) > 0
    for pruning in (None, "cost-complexity"):  # the default pruning, alpha by CV
        model = cls(pruning=pruning, splitter=splitter, max_bins=32, monotonic_cst=CST,
                    cv=5).fit(X, y)
        assert model.get_n_leaves() > 3
        for column, sign in CST.items():
            assert _wrong_way(model, X, rows, column, sign, classification) == 0, (column, pruning)
        # a constrained column stands in for no other test
        sur = model.tree_.surrogates["feature"]
        assert not np.isin(sur, [0, 3]).any()


@pytest.mark.parametrize("classification", [True, False], ids=["classifier", "regressor"])
def test_every_subtree_of_the_pruning_sequence_stays_monotone(classification):
    X, score = _table(n=240, seed=1)
    y = (score > np.median(score)).astype(int) if classification else score
    cls = CARTClassifier if classification else CARTRegressor
    path = cls(monotonic_cst=CST).cost_complexity_pruning_path(X, y)
    alphas = path.ccp_alphas[1:-1]
    rows = _rows(X)
    sizes = set()
    for alpha in alphas[np.linspace(0, len(alphas) - 1, 5).astype(int)]:
        model = cls(monotonic_cst=CST, ccp_alpha=float(alpha)).fit(X, y)
        sizes.add(model.get_n_leaves())
        for column, sign in CST.items():
            assert _wrong_way(model, X, rows, column, sign, classification) == 0, alpha
    assert len(sizes) >= 3  # pruned to several sizes


def test_leaf_values_stay_within_the_constrained_split_mid_point():
    # a step down in the middle of a rising column: the constrained tree cannot follow it
    x = np.arange(20, dtype=float).reshape(-1, 1)
    y = np.array([0.0] * 5 + [4.0] * 5 + [2.0] * 5 + [6.0] * 5)
    model = CARTRegressor(pruning=None, monotonic_cst=[1]).fit(x, y)
    pred = model.predict(x)
    assert np.all(np.diff(pred) >= 0)
    free = CARTRegressor(pruning=None).fit(x, y).predict(x)
    np.testing.assert_array_equal(free, y)  # the peer follows the step down
    # the mean of the rows is kept: the split between 4 and 2 is refused, the two blocks pooled
    assert pred[5] == pred[14] == 3.0


# --------------------------------------------------------------------------- refusals


def test_refusals_in_scikit_learns_words():
    X, score = _table(n=60)
    y = (score > 0).astype(int)
    cases = [
        ([1, 0], "monotonic_cst has shape 2 but the input data X has 4 features."),
        ([1, 0, 2, 0], r"monotonic_cst must be None or an array-like of -1, 0 or 1, but got "
                       r"\[0 1 2\]"),
        ({"up": 1, "height": 1}, r"monotonic_cst contains 1 unexpected feature names: "
                                 r"\['height'\]."),
        ({"up": 3}, r"monotonic_cst\['up'\] must be either -1, 0 or 1. Got 3."),
        ({"colour": 1}, "monotonic_cst constrains column 'colour', which is categorical"),
        ([0, -1, 0, 0], "monotonic_cst constrains column 'colour', which is categorical"),
    ]
    for cst, message in cases:
        with pytest.raises(ValueError, match=message):
            CARTClassifier(monotonic_cst=cst).fit(X, y)
    with pytest.raises(ValueError, match="CARTRegressor was not fitted on data with feature "
                                         "names. Pass monotonic_cst as an integer array"):
        CARTRegressor(monotonic_cst={"x0": 1}).fit(np.arange(8.0).reshape(-1, 1), np.arange(8.0))
    three = np.arange(60) % 3
    with pytest.raises(ValueError, match="Monotonicity constraints are not supported with "
                                         "multiclass classification"):
        CARTClassifier(monotonic_cst=CST).fit(X, three)
    with pytest.raises(ValueError, match="The 'monotonic_cst' parameter of CARTRegressor must be"):
        CARTRegressor(monotonic_cst=1).fit(X[["up"]], score)


def test_all_zero_constraints_grow_the_free_tree():
    X, score = _table(n=120)
    a = CARTRegressor(pruning=None, monotonic_cst=[0, 0, 0, 0]).fit(X, score)
    b = CARTRegressor(pruning=None).fit(X, score)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.tree_.node_count == b.tree_.node_count
