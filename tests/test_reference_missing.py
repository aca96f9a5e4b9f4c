"""CART's surrogate splits (rootwise.reference.missing, rootwise.engine.surrogates; seed 001 §2.4).

The kernels and ``find_surrogates`` against the brute force of tests/naive.py on random data with
ties, missing values and zero weights; hand-built tables for the routing of rows whose primary
value is missing, while fitting and at prediction; no row is ever dropped; rpart's variable
importance. The comparison with R's rpart itself is tests/test_rpart_parity.py.
"""

from __future__ import annotations

import math

import naive
import numpy as np
import pandas as pd
import pytest

from rootwise import CARTClassifier, CARTRegressor
from rootwise._config import (
    CATEGORICAL,
    CONTINUOUS,
    LEAF,
    MIN_SURROGATE_SIDE,
    MISSING_STOP,
    SUBSET,
    THRESHOLD,
)
from rootwise._policy import Policy
from rootwise.engine.surrogates import best_surrogate_subset, best_surrogate_threshold
from rootwise.reference.missing import find_surrogates
from rootwise.reference.splitter import NodeData, Splitter

NAN = np.nan


def random_weights(rng, n):
    """Unit weights (ties everywhere) or halves and doubles with some zeros."""
    if rng.random() < 0.5:
        return np.ones(n)
    return np.where(rng.random(n) < 0.1, 0.0, rng.choice([0.5, 1.0, 2.0], size=n))


# --------------------------------------------------------------------------- kernels


@pytest.mark.parametrize("seed", range(60))
def test_threshold_kernel_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    x = rng.integers(0, int(rng.integers(1, 12)), size=n) / 2.0  # few values: ties
    direction = rng.choice([-1, 0, 1], p=[0.25, 0.4, 0.35], size=n).astype(np.int64)
    w = random_weights(rng, n)
    min_side = int(rng.integers(1, 4))
    order = np.argsort(x, kind="stable")
    t, left, agree = best_surrogate_threshold(x[order], direction[order], w[order], min_side)
    t0, left0, agree0 = naive.naive_surrogate_threshold(x, direction, w, min_side)
    assert math.isnan(t) == math.isnan(t0)
    if not math.isnan(t0):
        assert (t, left) == (t0, left0)
    assert agree == pytest.approx(agree0, rel=1e-12, abs=1e-12)


def test_threshold_kernel_cuts_between_all_values():
    """The cut lies midway between known-primary value 2 and the next value of *any* row (3, a row
    whose primary is missing), not the next primary-known value (6): rpart's rule."""
    x = np.array([0.0, 1.0, 2.0, 3.0, 6.0, 7.0, 8.0])
    direction = np.array([0, 0, 0, -1, 1, 1, 1])
    t, left, agree = best_surrogate_threshold(x, direction, np.ones(7), 2)
    assert (t, left, agree) == (2.5, 0, 6.0)
    # the mirror: low values go to branch 1
    mirror = np.where(direction >= 0, 1 - direction, -1)
    t, left, agree = best_surrogate_threshold(x, mirror, np.ones(7), 2)
    assert (t, left, agree) == (2.5, 1, 6.0)


def test_threshold_kernel_needs_two_rows_each_way_and_must_beat_the_majority():
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    # one row on the minority side: no cut keeps two primary-known rows on each side and agrees
    # better than "all to branch 0" (4 of 5)
    t, _, agree = best_surrogate_threshold(x, np.array([1, 0, 0, 0, 0]), np.ones(5), 2)
    assert math.isnan(t) and agree == 4.0
    t, left, agree = best_surrogate_threshold(x, np.array([1, 0, 0, 0, 0]), np.ones(5), 1)
    assert (t, left, agree) == (0.5, 1, 5.0)


@pytest.mark.parametrize("seed", range(60))
def test_subset_kernel_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 30)), int(rng.integers(1, 7))
    codes = rng.integers(0, max(k - 1, 1), size=n)  # the last category is often absent
    direction = rng.choice([-1, 0, 1], p=[0.2, 0.4, 0.4], size=n).astype(np.int64)
    w = random_weights(rng, n)
    tie_branch, min_side = int(rng.integers(0, 2)), int(rng.integers(1, 4))
    side, agree = best_surrogate_subset(codes, direction, w, k, tie_branch, min_side)
    side0, agree0 = naive.naive_surrogate_subset(codes, direction, w, k, tie_branch, min_side)
    np.testing.assert_array_equal(side, side0)
    assert agree == pytest.approx(agree0, rel=1e-12, abs=1e-12)


def test_subset_kernel_keeps_an_exact_copy():
    """A categorical copy of the primary is the best surrogate there is. rpart 4.1.19 drops it (it
    asks for two disagreeing rows); rootwise asks for two rows sent each way, as rpart's comment
    says."""
    codes = np.array([0, 0, 1, 1, 2, 2])
    direction = np.array([0, 0, 1, 1, 1, 1])
    side, agree = best_surrogate_subset(codes, direction, np.ones(6), 3, 0, MIN_SURROGATE_SIDE)
    assert side.tolist() == [0, 1, 1] and agree == 6.0
    # one row each way is not enough
    side, agree = best_surrogate_subset(codes[1:5], direction[1:5], np.ones(4), 3, 0, 2)
    assert agree == -1.0


# --------------------------------------------------------------------------- find_surrogates


def random_table(rng):
    """Mixed columns with ties, 20% missing cells, a few all-missing rows; classes partly explained
    by the first column, which other columns copy noisily (so they make surrogates)."""
    n = int(rng.integers(8, 60))
    n_features = int(rng.integers(2, 6))
    latent = rng.integers(0, 6, size=n)
    kinds = rng.choice([CONTINUOUS, CATEGORICAL], size=n_features)
    n_categories = np.where(kinds == CATEGORICAL, rng.integers(2, 6, size=n_features), 0)
    cols = []
    for j in range(n_features):
        noisy = np.where(rng.random(n) < 0.15, rng.integers(0, 6, size=n), latent)
        if kinds[j] == CATEGORICAL:
            col = (noisy % n_categories[j]).astype(np.float64)
        else:
            col = noisy / 2.0
        col[rng.random(n) < 0.2] = NAN
        cols.append(col)
    X = np.column_stack(cols)
    X[rng.random(n) < 0.05] = NAN
    y = np.where(rng.random(n) < 0.2, rng.integers(0, 3, size=n), latent // 2).astype(np.int64)
    return X, y, kinds.astype(np.int64), n_categories.astype(np.int64)


@pytest.mark.parametrize("seed", range(40))
def test_find_surrogates_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    X, y, kinds, n_categories = random_table(rng)
    w = random_weights(rng, len(y))
    w[0] = 1.0
    policy = Policy(criterion="gini", categorical_split="subset", numeric_as_category=False,
                    missing="surrogate")
    splitter = Splitter(X, y, kinds, n_categories, 3, policy)
    node = NodeData(np.arange(len(y)), w)
    live = NodeData(node.idx[w > 0], w[w > 0])
    split, _ = splitter.select(splitter.evaluate_candidates(live, np.ones(X.shape[1], dtype=bool)))
    if split is None:
        return
    max_surrogates = int(rng.integers(1, 6))
    found, majority = find_surrogates(splitter, node, split, max_surrogates)
    direction = splitter.branch_of_rows(split, node.idx)
    expected = naive.naive_surrogates(X, kinds, n_categories, direction, w, max_surrogates,
                                      split.feature)
    assert [s.feature for s in found] == [e[0] for e in expected]
    for s, (_, agreement, adjusted, how) in zip(found, expected, strict=True):
        assert s.agreement == pytest.approx(agreement, rel=1e-12)
        assert s.adjusted_agreement == pytest.approx(adjusted, rel=1e-9, abs=1e-12)
        if s.kind == THRESHOLD:
            assert (s.threshold, s.left_branch) == how
        else:
            assert tuple(s.side) == how
    known = (direction >= 0) & (w > 0)
    mass = [w[known & (direction == b)].sum() for b in (0, 1)]
    if mass[0] != mass[1]:
        assert majority == int(mass[1] > mass[0])


@pytest.mark.parametrize("seed", range(15))
def test_surrogates_of_every_node_are_ranked_and_consistent(seed):
    """In a grown tree: at most max_surrogates per node, never the primary's feature, adjusted
    agreement > 0, best agreement first (ties: lower column), and every surrogate of a node
    implies the same majority share, (agree - adj) / (1 - adj)."""
    rng = np.random.default_rng(100 + seed)
    X, y, _, _ = random_table(rng)
    model = CARTClassifier(pruning=None, max_surrogates=3).fit(X, y)
    t, sur = model.tree_, model.tree_.surrogates
    for node in np.flatnonzero(t.kind != LEAF):
        rows = range(t.surrogate_offset[node], t.surrogate_offset[node] + t.n_surrogates[node])
        assert t.n_surrogates[node] <= 3
        keys = [(-sur["agreement"][s], sur["feature"][s]) for s in rows]
        assert keys == sorted(keys)
        majority = set()
        for s in rows:
            assert sur["feature"][s] != t.feature[node]
            assert sur["adjusted_agreement"][s] > 0
            a, adj = sur["agreement"][s], sur["adjusted_agreement"][s]
            if adj < 1 - 1e-9:  # a perfect surrogate (1, 1) says nothing about the majority
                majority.add(round((a - adj) / (1 - adj), 9))
        assert len(majority) <= 1


# --------------------------------------------------------------------------- hand-built routing


def table_a():
    """x0 decides y (x0 <= 7.5: a, else b; 7 known rows left, 5 right); x1 copies x0 but for one
    row (agreement 11/12), x2 for two (10/12). Three rows miss x0."""
    x0 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    x1 = [1, 2, 3, 4, 5, 6, 9, 8, 9, 10, 11, 12]
    x2 = [1, 2, 3, 4, 5, 6, 10, 3, 9, 10, 11, 12]
    y = ["a"] * 7 + ["b"] * 5
    extra = [  # (x0, x1, x2, y)
        (NAN, 2, 11, "a"),  # x1 known: x1 says left (x2 would say right)
        (NAN, NAN, 11, "b"),  # x1 missing: the second surrogate, x2, says right
        (NAN, NAN, NAN, "a"),  # nothing known: the majority branch, left
    ]
    X = pd.DataFrame({"x0": x0 + [e[0] for e in extra], "x1": x1 + [e[1] for e in extra],
                      "x2": x2 + [e[2] for e in extra]}, dtype=float)
    return X, y + [e[3] for e in extra]


def left_right(tree, node=0):
    """(child of x <= t, other child) of a threshold node."""
    first = int(tree.first_child[node])
    return first, first + 1


def test_surrogates_are_found_in_order():
    X, y = table_a()
    t = CARTClassifier(pruning=None, max_depth=1).fit(X, y).tree_
    assert t.kind[0] == THRESHOLD and t.feature[0] == 0 and t.threshold[0] == 7.5
    sur = t.surrogates
    rows = range(t.surrogate_offset[0], t.surrogate_offset[0] + t.n_surrogates[0])
    assert [int(sur["feature"][s]) for s in rows] == [1, 2]
    np.testing.assert_allclose(sur["agreement"][list(rows)], [11 / 12, 10 / 12], rtol=1e-12)
    # majority 7/12: adjusted = (agreement - 7/12) / (5/12)
    np.testing.assert_allclose(sur["adjusted_agreement"][list(rows)], [4 / 5, 3 / 5], rtol=1e-12)
    # x1 cuts between 6 and 8 (no row has 7); x2 between 6 and 9
    np.testing.assert_array_equal(sur["threshold"][list(rows)], [7.0, 7.5])
    np.testing.assert_array_equal(sur["left_branch"][list(rows)], [0, 0])


def test_fit_routes_rows_missing_the_primary():
    """First surrogate known -> it decides; first missing -> the second; all missing -> the side
    with more primary-known rows (7 against 5)."""
    X, y = table_a()
    t = CARTClassifier(pruning=None, max_depth=1).fit(X, y).tree_
    left, right = left_right(t)
    # left: 7 rows by x0, the x1 row, the all-missing row; right: 5 by x0, the x2 row
    assert (t.n_node_samples[left], t.n_node_samples[right]) == (9, 6)
    np.testing.assert_array_equal(t.value[left], [9, 0])
    np.testing.assert_array_equal(t.value[right], [0, 6])


def test_predict_routes_rows_missing_the_primary():
    X, y = table_a()
    model = CARTClassifier(pruning=None, max_depth=1).fit(X, y)
    left, right = left_right(model.tree_)
    new = pd.DataFrame({"x0": [NAN, NAN, NAN, NAN, 3.0], "x1": [6.5, 7.5, NAN, NAN, 12.0],
                        "x2": [12.0, 1.0, 7.0, NAN, 12.0]})
    assert model.apply(new).tolist() == [left, right, left, left, left]
    assert model.predict(new).tolist() == ["a", "b", "a", "a", "a"]
    assert model.tree_.missing_branch[0] == 0  # the larger child, 9 rows against 6


def test_fit_majority_and_predict_larger_child_can_differ():
    """While fitting, a row with nothing known goes to the side with more primary-known rows (left,
    7 to 5); at prediction to the larger child, which the surrogates made the right one (8 < 9)."""
    X, y = table_a()
    # class "a", so that x1 and x2 do not become better primaries than x0
    more = pd.DataFrame({"x0": [NAN] * 4, "x1": [12.0] * 4, "x2": [12.0] * 4})
    X = pd.concat([X.iloc[:12], more, X.iloc[[14]]], ignore_index=True)
    y = y[:12] + ["a"] * 4 + ["a"]
    model = CARTClassifier(pruning=None, max_depth=1).fit(X, y)
    t = model.tree_
    left, right = left_right(t)
    assert (t.n_node_samples[left], t.n_node_samples[right]) == (8, 9)
    np.testing.assert_array_equal(t.value[left], [8, 0])  # the all-missing "a" row went left
    assert t.missing_branch[0] == 1
    assert model.apply(X.iloc[[16]]).tolist() == [right]


def test_predict_stays_at_the_node_when_the_children_weigh_the_same():
    X, y = table_a()
    more = pd.DataFrame({"x0": [NAN] * 2, "x1": [12.0] * 2, "x2": [1.0] * 2})
    X = pd.concat([X.iloc[:12], more], ignore_index=True)
    model = CARTClassifier(pruning=None, max_depth=1).fit(X, y[:12] + ["b"] * 2)
    t = model.tree_
    assert t.n_node_samples[t.first_child[0]] == t.n_node_samples[t.first_child[0] + 1] == 7
    assert t.missing_branch[0] == MISSING_STOP
    nothing = pd.DataFrame({"x0": [NAN], "x1": [NAN], "x2": [NAN]})
    assert model.apply(nothing).tolist() == [0]
    np.testing.assert_allclose(model.predict_proba(nothing), [[0.5, 0.5]])


def test_fit_tie_goes_to_the_side_heavier_after_the_surrogates():
    """6 primary-known rows each way: no majority. rpart leaves the all-missing row inside the
    node; rootwise sends it to the side the surrogates made heavier (right: one x1 row)."""
    x0 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, NAN, NAN]
    x1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 11, NAN]
    X = pd.DataFrame({"x0": x0, "x1": x1}, dtype=float)
    y = ["a"] * 6 + ["b"] * 6 + ["b", "a"]
    t = CARTClassifier(pruning=None, max_depth=1).fit(X, y).tree_
    left, right = left_right(t)
    assert (t.n_node_samples[left], t.n_node_samples[right]) == (6, 8)
    np.testing.assert_array_equal(t.value[right], [1, 7])


def test_category_without_a_branch_is_treated_as_missing():
    """A subset split: an unseen category says nothing about the split, so the row follows the
    surrogate (rpart's rule), and the larger child when that is missing too."""
    c = ["p", "q", "p", "q", "p", "q", "r", "s", "r", "s"]
    x1 = [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 20]
    y = ["a"] * 6 + ["b"] * 4
    X = pd.DataFrame({"c": pd.Categorical(c), "x1": x1})
    model = CARTClassifier(pruning=None, max_depth=1).fit(X, y)
    t = model.tree_
    assert t.kind[0] == SUBSET and t.n_surrogates[0] == 1
    new = pd.DataFrame({"c": ["zz", "zz", "zz"], "x1": [1.0, 30.0, NAN]})
    side = t.branch_of_category(0)
    left = int(t.first_child[0]) + int(side[0])  # the child of "p"
    other = int(t.first_child[0]) + 1 - int(side[0])
    assert model.apply(new).tolist() == [left, other, left]


# --------------------------------------------------------------------------- nothing is dropped


@pytest.mark.parametrize("seed", range(20))
def test_rows_are_never_dropped(seed):
    """Every split shares all its rows and all its weight among its children, rows with every cell
    missing included (rpart drops those)."""
    rng = np.random.default_rng(200 + seed)
    X, y, kinds, _ = random_table(rng)
    X[0] = NAN
    w = random_weights(rng, len(y))
    w[0] = 1.0
    frame = pd.DataFrame({f"f{j}": (pd.Categorical(X[:, j]) if kinds[j] == CATEGORICAL else X[:, j])
                          for j in range(X.shape[1])})
    leaf = float(rng.choice([0.0, 0.02, 0.05]))  # a share of the weight: rows weigh unequally
    if seed % 2:
        model = CARTClassifier(pruning=None, min_weight_fraction_leaf=leaf).fit(frame, y, sample_weight=w)
    else:
        model = CARTRegressor(pruning=None, min_weight_fraction_leaf=leaf).fit(
            frame, y + rng.random(len(y)), sample_weight=w)
    t = model.tree_
    assert t.n_node_samples[0] == len(y)
    assert t.weighted_n_node_samples[0] == pytest.approx(w.sum())
    for node in np.flatnonzero(t.kind != LEAF):
        kids = list(t.children(int(node)))
        assert t.n_node_samples[kids].sum() == t.n_node_samples[node]
        assert t.weighted_n_node_samples[kids].sum() == pytest.approx(t.weighted_n_node_samples[node])
    # every row, however many cells it misses, gets a prediction
    assert np.all(np.isfinite(np.asarray(model.predict(frame), dtype=float)))


# --------------------------------------------------------------------------- variable importance


def test_rpart_importance_credits_surrogates():
    """Root of table A: improve = n x Gini decrease over the 12 rows with x0 known = 12 x
    (1 - (7^2 + 5^2) / 12^2) = 35/6; x1 gets 4/5 of it and x2 3/5."""
    X, y = table_a()
    model = CARTClassifier(pruning=None, max_depth=1).fit(X, y)
    assert model.tree_.improvement[0] == pytest.approx(35 / 6, rel=1e-12)
    raw = model.variable_importance("rpart", normalize=False)
    np.testing.assert_allclose(raw, [35 / 6, 35 / 6 * 4 / 5, 35 / 6 * 3 / 5], rtol=1e-12)
    np.testing.assert_allclose(model.variable_importance("rpart"), np.array([5, 4, 3]) / 12,
                               rtol=1e-12)
    # the impurity kind credits the primary only: the children are pure
    np.testing.assert_allclose(model.variable_importance("impurity"), [1, 0, 0])
    np.testing.assert_allclose(model.feature_importances_, [1, 0, 0])
    with pytest.raises(ValueError, match="kind must be"):
        model.variable_importance("gain")


@pytest.mark.parametrize("seed", range(10))
def test_improvement_is_the_known_rows_decrease(seed):
    """Root improvement = w(P) Gini(P) - w(L) Gini(L) - w(R) Gini(R), P the rows with the primary
    known (classification), and the drop of the sum of squares (regression); without surrogates
    the rpart importance is the sum of the feature's improvements."""
    rng = np.random.default_rng(300 + seed)
    X, y, _, _ = random_table(rng)
    X = np.nan_to_num(X, nan=-1.0) if seed % 3 == 0 else X
    regression = seed % 2 == 1
    target = y + rng.random(len(y)) if regression else y
    cls = CARTRegressor if regression else CARTClassifier
    model = cls(pruning=None, max_surrogates=0).fit(X, target)
    t = model.tree_
    if t.kind[0] == LEAF:
        return
    x = X[:, t.feature[0]]
    known = ~np.isnan(x)
    side = x[known] <= t.threshold[0]
    yk = np.asarray(target)[known]

    def cost(values):
        if regression:
            return float(((values - values.mean()) ** 2).sum()) if len(values) else 0.0
        return len(values) * naive.gini(np.bincount(values, minlength=3))

    expected = cost(yk) - cost(yk[side]) - cost(yk[~side])
    assert t.improvement[0] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    raw = model.variable_importance("rpart", normalize=False)
    per_feature = np.zeros(X.shape[1])
    for node in np.flatnonzero(t.kind != LEAF):
        per_feature[t.feature[node]] += t.improvement[node]
    np.testing.assert_allclose(raw, per_feature, rtol=1e-12)
