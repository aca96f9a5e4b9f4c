"""The compact walk (``tree.walk.route_rows``) against the general walk, the naive walk and
scikit-learn on the same tree; every input form of ``predict`` gives the same answer; infinite
values are refused wherever they are; the derived layout is never persisted."""

import pickle

import naive
import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from test_tree_walk import random_rows, random_tree

from rootwise import CARTClassifier, CARTRegressor
from rootwise._config import LEAF, MISSING_STOP, SUBSET, THRESHOLD
from rootwise.tree import NODE_FIELDS, Tree
from rootwise.tree.walk import BLOCK, SPLIT_MIN, apply_rows


def _reference_ends(tree, X):
    """The general walk alone, on a float64 C-order copy."""
    return apply_rows(np.ascontiguousarray(X, dtype=np.float64), *tree._args())


@pytest.mark.parametrize("seed", range(6))
def test_deep_random_trees_match_the_naive_walk(seed):
    """Deep trees mixing every node kind, more rows than one block: each row's end node is the
    naive walk's, on one thread and on two."""
    rng = np.random.default_rng(100 + seed)
    n_categories = [0, 0, 0, int(rng.choice([3, 5]))]
    nodes, value, pool = random_tree(rng, n_categories, max_depth=12)
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array(n_categories))
    X = random_rows(rng, n_categories, BLOCK + 700)
    clean = rng.random(len(X)) < 0.5
    X[clean] = np.nan_to_num(X[clean])  # rows the compact walk takes to the end
    expected = [naive.naive_route(row, nodes, pool, n_categories)[-1] for row in X]
    table = tree.value
    for parallel in (False, True):
        ends, out, first_inf = tree.route(X, table, parallel=parallel)
        assert first_inf == -1
        np.testing.assert_array_equal(ends, expected)
        np.testing.assert_array_equal(out, table[expected])


def test_threshold_only_tree_takes_the_compact_walk_for_known_values():
    """A tree of threshold tests only: its layout holds every node, children side by side, and
    rows without missing values end where the naive walk ends."""
    rng = np.random.default_rng(7)
    n_categories = [0, 0, 0]
    nodes, value, pool = random_tree(rng, n_categories, max_depth=10)
    tree = Tree(nodes, value, np.zeros(0, dtype=np.int32), np.array(n_categories))
    records, origin = tree.compact()
    assert len(records) == tree.node_count
    assert sorted(origin) == list(range(tree.node_count))
    for r in np.flatnonzero(records["feature"] >= 0):  # a threshold record's children
        node = origin[r]
        assert origin[records["left"][r]] == tree.first_child[node]
        assert origin[records["left"][r] + 1] == tree.first_child[node] + 1
        assert records["threshold"][r] == tree.threshold[node]
    leaves = records["feature"] < 0
    np.testing.assert_array_equal(records["left"][leaves], origin[leaves])
    X = np.nan_to_num(random_rows(rng, n_categories, 3000))
    expected = [naive.naive_route(row, nodes, pool, n_categories)[-1] for row in X]
    np.testing.assert_array_equal(tree.apply(X), expected)


def _mixed_data(n, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n),
        "colour": rng.choice(["red", "green", "blue", "grey"], size=n)})
    y = ((frame["a"] + frame["b"] * (frame["colour"] == "red") + 0.3 * rng.normal(size=n)) > 0)
    for col in ("a", "b", "colour"):
        frame.loc[rng.random(n) < 0.1, col] = None
    return frame, y.astype(int).to_numpy()


def test_fitted_cart_with_surrogates_and_categories():
    """Missing values (surrogates, then the majority child), subset tests and unseen categories:
    the fast path ends every row where the general walk does."""
    frame, y = _mixed_data(3000, 0)
    model = CARTClassifier(pruning=None, max_depth=8).fit(frame, y)
    tree = model.tree_
    assert np.any(tree.n_surrogates > 0)
    new, _ = _mixed_data(2 * BLOCK + 300, 1)
    new.loc[::37, "colour"] = "purple"  # unseen
    Xe = model._encode(new)
    expected = _reference_ends(tree, Xe)
    dist = tree.value / tree.value.sum(axis=1, keepdims=True)
    for n_jobs in (1, 2):
        model.set_params(n_jobs=n_jobs)
        np.testing.assert_array_equal(model.apply(new), expected)
        np.testing.assert_array_equal(model.predict_proba(new), dist[expected])
        np.testing.assert_array_equal(model.predict(new),
                                      model.classes_[np.argmax(tree.value, axis=1)[expected]])


def _numeric(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)  # exact in float32 too
    return X


@pytest.mark.parametrize("Est", [CARTClassifier, CARTRegressor])
def test_every_input_form_and_n_jobs_give_the_same_answer(Est):
    X = _numeric(4000, 5, 0)
    target = X[:, 0] + X[:, 1] * X[:, 2]
    if Est is CARTClassifier:
        target = np.where(target > 0.3, "up", np.where(target < -0.3, "down", "flat"))
    X[::11, 1] = np.nan  # surrogates at fit and at prediction
    model = Est(pruning=None, n_jobs=1).fit(X, target)
    tree = model.tree_
    X_new = _numeric(3 * BLOCK, 5, 1)
    X_new[::7, 2] = np.nan
    X_new[::13, 0] = np.nan
    ends = _reference_ends(tree, X_new)
    if Est is CARTClassifier:
        expected = model.classes_[np.argmax(tree.value, axis=1)[ends]]
    else:
        expected = tree.value[ends, 0]
    # float32 and Fortran order go to the kernel as they are (each compiles once: only the
    # plain matrix is also run on two threads, to keep the test short)
    forms = {"float64": X_new, "fortran": np.asfortranarray(X_new),
             "float32": X_new.astype(np.float32), "dataframe": pd.DataFrame(X_new),
             "strided": np.repeat(X_new, 2, axis=1)[:, ::2]}
    for name, form in forms.items():
        for n_jobs in (1, 2) if name == "float64" else (1,):
            model.set_params(n_jobs=n_jobs)
            np.testing.assert_array_equal(model.predict(form), expected, err_msg=name)
            np.testing.assert_array_equal(model.apply(form), ends, err_msg=name)
    model.set_params(n_jobs=1)
    ints = np.arange(50 * 5).reshape(50, 5) % 3 - 1  # converted to float64
    np.testing.assert_array_equal(model.apply(ints), _reference_ends(tree, ints.astype(float)))
    np.testing.assert_array_equal(model.predict(X_new[:1]), expected[:1])  # one row


@pytest.mark.parametrize("form", ["float64", "fortran", "float32", "dataframe"])
@pytest.mark.parametrize("call", ["predict", "predict_proba", "apply"])
def test_infinity_is_refused_in_every_input_form(form, call):
    X = _numeric(500, 4, 2)
    y = (X[:, 0] > 0).astype(int)
    model = CARTClassifier(pruning=None).fit(X, y)
    X_new = _numeric(BLOCK + 100, 4, 3)
    X_new[3, 1] = np.nan  # missing: fine
    X_new[BLOCK + 9, 0] = -np.inf  # in a later block
    X_new[1700, 3] = np.nan
    X_new[1700, 2] = np.inf  # the first row with an infinity, with a missing value beside it
    data = {"float64": X_new, "fortran": np.asfortranarray(X_new),
            "float32": X_new.astype(np.float32), "dataframe": pd.DataFrame(X_new)}[form]
    for n_jobs in (1, 2) if form == "float64" else (1,):
        model.set_params(n_jobs=n_jobs)
        with pytest.raises(ValueError, match="infinity .*column 'x2', row 1700"):
            getattr(model, call)(data)


def _tree_from_sklearn(sk):
    """scikit-learn's fitted tree as a rootwise Tree (threshold nodes only), children renumbered
    to sit side by side; returns the Tree and each of its nodes' scikit-learn id."""
    s = sk.tree_
    nodes = {name: [] for name in NODE_FIELDS}
    sk_id = [0]
    i = 0
    while i < len(sk_id):
        b = sk_id[i]
        left, right = int(s.children_left[b]), int(s.children_right[b])
        split = left != -1
        fields = dict(feature=int(s.feature[b]) if split else -1, kind=THRESHOLD if split else LEAF,
                      threshold=float(s.threshold[b]) if split else np.nan,
                      first_child=len(sk_id) if split else -1, n_children=2 if split else 0,
                      pool_offset=-1, missing_branch=MISSING_STOP,
                      parent=-1, depth=0, impurity=0.0, n_node_samples=0,
                      weighted_n_node_samples=0.0, branch_fraction=1.0, surrogate_offset=-1,
                      n_surrogates=0, improvement=0.0)
        for name, v in fields.items():
            nodes[name].append(v)
        if split:
            sk_id.extend([left, right])
        i += 1
    for node in range(len(sk_id)):
        if nodes["kind"][node] != LEAF:
            for c in (nodes["first_child"][node], nodes["first_child"][node] + 1):
                nodes["parent"][c] = node
                nodes["depth"][c] = nodes["depth"][node] + 1
    value = s.value[sk_id].reshape(len(sk_id), -1)
    return Tree(nodes, value, np.zeros(0, dtype=np.int32), np.zeros(sk.n_features_in_)), sk_id


@pytest.mark.parametrize("Sk", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_same_leaves_as_scikit_learn_on_its_own_tree(Sk):
    """scikit-learn's tree, walked by rootwise's kernels on the float32 rows scikit-learn compares
    (no conversion): every row reaches the leaf scikit-learn's ``apply`` gives."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 6)).astype(np.float32)
    y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(int)
    sk = Sk(random_state=0).fit(X, y if Sk is DecisionTreeClassifier else y + X[:, 3])
    tree, sk_id = _tree_from_sklearn(sk)
    X_new = rng.normal(size=(2 * BLOCK, 6)).astype(np.float32)
    X_new[:100] = X[:100]  # values on the thresholds' sides exactly as in training
    for parallel in (False, True):
        ends, out, first_inf = tree.route(X_new, tree.value, parallel=parallel)
        assert first_inf == -1
        np.testing.assert_array_equal(np.asarray(sk_id)[ends], sk.apply(X_new))
    if Sk is DecisionTreeRegressor:
        np.testing.assert_array_equal(out[:, 0], sk.predict(X_new))


def test_compact_layout_is_derived_never_persisted():
    X = _numeric(800, 3, 4)
    model = CARTRegressor(pruning=None).fit(X, X[:, 0] * 2)
    before = model.predict(X)
    tree = model.tree_
    assert "_compact" in tree.__dict__  # built by the first prediction
    assert set(tree.to_dict()) == set(NODE_FIELDS) | {"value", "pool", "n_categories",
                                                      "surrogates"}
    copy = pickle.loads(pickle.dumps(model))
    assert "_compact" not in copy.tree_.__dict__ and copy.tree_ == tree
    np.testing.assert_array_equal(copy.predict(X), before)
    again = Tree.from_dict(tree.to_dict())
    np.testing.assert_array_equal(again.apply(X), tree.apply(X))


def _with_surrogates(rng, nodes, pool, n_categories):
    """Random surrogate splits (thresholds and category subsets) on the split nodes of a random
    tree; subset surrogates append their category -> child slice to ``pool``."""
    sur = {"feature": [], "kind": [], "threshold": [], "left_branch": [], "pool_offset": [],
           "agreement": [], "adjusted_agreement": []}
    for node, kind in enumerate(nodes["kind"]):
        nodes["surrogate_offset"][node] = len(sur["feature"])
        count = 0 if kind == LEAF else int(rng.integers(0, 4))
        nodes["n_surrogates"][node] = count
        for _ in range(count):
            f = int(rng.integers(len(n_categories)))
            k = int(n_categories[f])
            sur["feature"].append(f)
            sur["agreement"].append(0.5)
            sur["adjusted_agreement"].append(0.1)
            if k == 0:
                sur["kind"].append(THRESHOLD)
                sur["threshold"].append(float(rng.integers(-4, 5)) / 2)
                sur["left_branch"].append(int(rng.integers(2)))
                sur["pool_offset"].append(-1)
            else:
                sur["kind"].append(SUBSET)
                sur["threshold"].append(np.nan)
                sur["left_branch"].append(0)
                sur["pool_offset"].append(len(pool))
                pool.extend(int(b) for b in rng.integers(-1, 2, size=k))
    return sur


def _widened(rng, nodes, pool, n_categories):
    """The pool of a random tree whose categorical columns now have ``n_categories``
    categories: each categorical test keeps its branches for the old codes, and the new codes get
    random branches (or none)."""
    wide = []
    for node, kind in enumerate(nodes["kind"]):
        if kind in (LEAF, THRESHOLD):
            continue
        old, offset = list(pool[nodes["pool_offset"][node]:]), len(wide)
        k = n_categories[nodes["feature"][node]]
        kept = old[:[0, 0, 3, 4][nodes["feature"][node]]]
        wide.extend(kept + [int(b) for b in rng.integers(-1, nodes["n_children"][node],
                                                         size=k - len(kept))])
        nodes["pool_offset"][node] = offset
    return wide


def _route_by_hand(row, nodes, pool, n_categories, sur):
    """The node a row ends in, one test at a time: a known category or value takes its branch;
    a missing value, or a category without a branch at a subset test (or outside 0..k-1), tries
    the surrogates in order, then missing_branch; a multiway test without a branch stops."""
    node = 0
    while nodes["kind"][node] != LEAF:
        kind, x = nodes["kind"][node], row[nodes["feature"][node]]
        k = n_categories[nodes["feature"][node]]
        slot = -1
        if not np.isnan(x):
            if kind == THRESHOLD:
                slot = 0 if x <= nodes["threshold"][node] else 1
            elif 0 <= int(x) < k:
                slot = pool[nodes["pool_offset"][node] + int(x)]
        if np.isnan(x) or (slot < 0 and kind == SUBSET):
            start = nodes["surrogate_offset"][node]
            for s in range(start, start + nodes["n_surrogates"][node]):
                xs = row[sur["feature"][s]]
                if np.isnan(xs):
                    continue
                if sur["kind"][s] == THRESHOLD:
                    left = sur["left_branch"][s]
                    slot = left if xs <= sur["threshold"][s] else 1 - left
                    break
                ks = n_categories[sur["feature"][s]]
                if 0 <= int(xs) < ks and pool[sur["pool_offset"][s] + int(xs)] >= 0:
                    slot = pool[sur["pool_offset"][s] + int(xs)]
                    break
            if slot < 0:
                slot = nodes["missing_branch"][node]
        if slot < 0:
            break
        node = nodes["first_child"][node] + slot
    return node


@pytest.mark.parametrize("seed", range(6))
def test_surrogates_and_wide_category_sets_match_routing_by_hand(seed):
    """Subset tests on columns of more than 64 categories (several words of bits), threshold and
    subset surrogates, every node kind: the compact walk ends each row where routing by hand
    does, with and without the search for infinite values, on one thread and on two."""
    rng = np.random.default_rng(300 + seed)
    nodes, value, pool = random_tree(rng, [0, 0, 3, 4], max_depth=10)  # few children per node
    n_categories = [0, 0, 150, int(rng.choice([64, 65]))]  # ...then wider category sets
    pool = _widened(rng, nodes, pool, n_categories)
    sur = _with_surrogates(rng, nodes, pool, n_categories)
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array(n_categories), sur)
    assert np.any(tree.kind == SUBSET) and np.any(tree.surrogates["kind"] == SUBSET)
    X = random_rows(rng, n_categories, BLOCK + 500)
    expected = [_route_by_hand(row, nodes, pool, n_categories, sur) for row in X]
    np.testing.assert_array_equal(_reference_ends(tree, X), expected)  # the general walk too
    for parallel in (False, True):
        for check_finite in (True, False):
            ends, out, first_inf = tree.route(X, tree.value, parallel=parallel,
                                              check_finite=check_finite)
            assert first_inf == -1
            np.testing.assert_array_equal(ends, expected)
            np.testing.assert_array_equal(out, tree.value[expected])


@pytest.mark.parametrize("n_rows", [0, 1, SPLIT_MIN - 1, SPLIT_MIN, SPLIT_MIN + 1, 40, 300])
def test_rows_split_together_end_as_routed_by_hand_and_infinite_rows_are_reported(n_rows):
    """The matrix walk of trees with subset tests splits a block's rows together down to
    SPLIT_MIN: at every size around it each finite row ends where routing by hand ends, and
    rows holding an infinity (left out of the split) are reported, the first of them."""
    for seed in range(15):
        rng = np.random.default_rng(700 + seed)
        nodes, value, pool = random_tree(rng, [0, 3, 0, 70], max_depth=6)
        n_categories = [0, 3, 0, 70]
        sur = _with_surrogates(rng, nodes, pool, n_categories)
        tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array(n_categories), sur)
        X = random_rows(rng, n_categories, n_rows)
        bad = rng.random(n_rows) < 0.2
        finite = X.copy()
        X[bad, 0] = np.inf
        expected = np.array([_route_by_hand(row, nodes, pool, n_categories, sur) for row in X],
                            dtype=np.int64)
        for parallel in (False, True):
            ends, _, first_inf = tree.route(X, tree.value, parallel=parallel)
            assert first_inf == (int(np.flatnonzero(bad)[0]) if bad.any() else -1)
            np.testing.assert_array_equal(ends[~bad], expected[~bad])
            ends, _, _ = tree.route(finite, tree.value, parallel=parallel, check_finite=False)
            np.testing.assert_array_equal(ends, [_route_by_hand(row, nodes, pool, n_categories,
                                                                sur) for row in finite])
