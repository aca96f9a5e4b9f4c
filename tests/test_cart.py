"""CARTClassifier / CARTRegressor: the tree scikit-learn grows on numeric data (when no two splits
tie), stopping rules, weights, and seed 001's loan-default numbers."""

import re

import naive
import numpy as np
import pandas as pd
import parity
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.class_weight import compute_sample_weight

import rootwise
from rootwise import CARTClassifier, CARTRegressor
from rootwise._config import SUBSET, THRESHOLD
from rootwise.prune.collapse import collapse
from rootwise.reference.splitter import NodeData, Splitter

N_CASES = 80  # random cases per comparison
MIN_SHARE = 0.4  # at least this share of them must be tie-free, or the comparison says little


def _assert_same_tree(rw, sk, X, X_new, classification):
    assert parity.rootwise_shape(rw.tree_) == parity.sklearn_shape(sk.tree_)
    assert rw.get_n_leaves() == sk.get_n_leaves()
    assert rw.get_depth() == sk.get_depth()
    for Z in (X, X_new):
        if classification:
            np.testing.assert_array_equal(rw.predict(Z), sk.predict(Z))
            np.testing.assert_allclose(rw.predict_proba(Z), sk.predict_proba(Z), rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_allclose(rw.predict(Z), sk.predict(Z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rw.feature_importances_, sk.feature_importances_, rtol=1e-7, atol=1e-9)


def _compare_many(make_case, sk_cls, rw_cls, rw_params=None, sk_params=None, n_cases=N_CASES):
    """Fit both on every case; compare the tie-free ones. Returns (compared, skipped)."""
    compared = skipped = 0
    for seed in range(n_cases):
        X, y, params = make_case(seed)
        sk = parity.sklearn_agrees(sk_cls, X, y, **params, **(sk_params or {}))
        rw = rw_cls(pruning=None, **params, **(rw_params or {})).fit(X, y)
        default = "squared_error" if sk_cls is DecisionTreeRegressor else "gini"
        criterion = (rw_params or {}).get("criterion", default)
        if sk is None or not parity.tie_free(rw, X, y, criterion=criterion,
                                             min_leaf=params.get("min_samples_leaf", 1)):
            skipped += 1
            continue
        compared += 1
        try:
            _assert_same_tree(rw, sk, X, parity.new_points(seed, X.shape[1]),
                              sk_cls is DecisionTreeClassifier)
        except AssertionError as e:
            raise AssertionError(f"case {seed} {params}: {e}") from None
    print(f"{rw_cls.__name__} {rw_params or ''}: {compared} tie-free cases compared, {skipped} skipped")
    assert compared >= MIN_SHARE * n_cases
    return compared, skipped


# --------------------------------------------------------------------------- parity with scikit-learn


def test_unpruned_classifier_is_sklearns_tree():
    _compare_many(parity.classification_case, DecisionTreeClassifier, CARTClassifier)


@pytest.mark.parametrize("sk_criterion", ["entropy", "log_loss"])
def test_entropy_classifier_is_sklearns_tree(sk_criterion):
    _compare_many(parity.classification_case, DecisionTreeClassifier, CARTClassifier,
                  {"criterion": "entropy", "max_surrogates": 0}, {"criterion": sk_criterion}, n_cases=40)


def test_unpruned_regressor_is_sklearns_tree():
    _compare_many(parity.regression_case, DecisionTreeRegressor, CARTRegressor)


def test_surrogates_do_not_change_a_tree_without_missing_values():
    X, y, params = parity.classification_case(3)
    a = CARTClassifier(pruning=None, **params).fit(X, y)
    b = CARTClassifier(pruning=None, max_surrogates=0, **params).fit(X, y)
    assert parity.rootwise_shape(a.tree_) == parity.rootwise_shape(b.tree_)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_max_leaf_nodes_grows_best_first_like_sklearn(task):
    make, sk_cls, rw_cls, criterion = {
        "classification": (parity.classification_case, DecisionTreeClassifier, CARTClassifier, "gini"),
        "regression": (parity.regression_case, DecisionTreeRegressor, CARTRegressor, "squared_error"),
    }[task]
    compared = total = 0
    for seed in range(25):
        X, y, _ = make(seed)
        for max_leaf_nodes in (2, 3, 5, 8, 13):
            total += 1
            rw = rw_cls(pruning=None, max_leaf_nodes=max_leaf_nodes).fit(X, y)
            sk = parity.sklearn_agrees(sk_cls, X, y, max_leaf_nodes=max_leaf_nodes)
            if sk is None or not parity.tie_free(rw, X, y, criterion=criterion, best_first=True):
                continue
            compared += 1
            assert rw.get_n_leaves() == sk.get_n_leaves() <= max_leaf_nodes
            _assert_same_tree(rw, sk, X, parity.new_points(seed, X.shape[1]), task == "classification")
    print(f"max_leaf_nodes {task}: {compared} of {total} compared")
    assert compared >= MIN_SHARE * total


def _weighted_improvements(tree):
    """W_t / W * (I(t) - sum_c W_c / W_t I(c)) of every split node."""
    W = tree.weighted_n_node_samples
    out = {}
    for node in np.flatnonzero(tree.n_children > 0):
        kids = list(tree.children(int(node)))
        out[int(node)] = (W[node] * tree.impurity[node] - sum(W[c] * tree.impurity[c] for c in kids)) / W[0]
    return out


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_min_impurity_decrease_like_sklearn(task):
    make, sk_cls, rw_cls, criterion = {
        "classification": (parity.classification_case, DecisionTreeClassifier, CARTClassifier, "gini"),
        "regression": (parity.regression_case, DecisionTreeRegressor, CARTRegressor, "squared_error"),
    }[task]
    compared = 0
    for seed in range(20):
        X, y, params = make(seed)
        full = rw_cls(pruning=None, **params).fit(X, y)
        if not parity.tie_free(full, X, y, criterion=criterion, min_leaf=params.get("min_samples_leaf", 1)):
            continue
        gains = np.unique(list(_weighted_improvements(full.tree_).values()))
        if len(gains) < 3 or np.min(np.diff(gains)) < 1e-9:
            continue
        for q in (0.25, 0.5, 0.9):
            i = int(q * (len(gains) - 1))
            limit = (gains[i] + gains[i + 1]) / 2  # well between two nodes' improvements
            rw = rw_cls(pruning=None, min_impurity_decrease=limit, **params).fit(X, y)
            assert min(_weighted_improvements(rw.tree_).values(), default=np.inf) >= limit
            sk = sk_cls(random_state=0, min_impurity_decrease=limit, **params).fit(X, y)
            _assert_same_tree(rw, sk, X, parity.new_points(seed, X.shape[1]), task == "classification")
            compared += 1
    assert compared >= 15


# --------------------------------------------------------------------------- weights


def _imbalanced_case(seed):
    """Four classes holding exactly 1/2, 1/4, 1/8 and 1/8 of the rows (ranked by a noisy score):
    the "balanced" weights are then 0.5, 1, 2, 2, exact in binary. (With inexact weights
    scikit-learn may find a pure node's Gini at 2e-16 > its epsilon and split it.)"""
    rng = np.random.default_rng(seed)
    n = 16 * int(rng.integers(4, 11))
    X = parity.features(rng, n, int(rng.integers(1, 4)))
    rank = np.argsort(np.argsort(X[:, 0] + 0.7 * rng.normal(size=n)))
    y = np.digitize(rank, [n // 2, 3 * n // 4, 7 * n // 8])
    return X, y.astype(np.int64), int(rng.integers(2, 5))  # a max_depth: small nodes tie


@pytest.mark.parametrize("class_weight", ["balanced", {0: 1, 1: 3, 2: 2, 3: 1}])
def test_class_weight_like_sklearn(class_weight):
    """The stopping rules count rows, as scikit-learn's: the fractional "balanced" weights take
    scikit-learn's defaults unchanged."""
    rw_params = {}
    compared = 0
    for seed in range(30):
        X, y, depth = _imbalanced_case(seed)
        rw = CARTClassifier(pruning=None, class_weight=class_weight, max_depth=depth, **rw_params).fit(X, y)
        w = compute_sample_weight(class_weight, y)
        sk = parity.sklearn_agrees(DecisionTreeClassifier, X, y, class_weight=class_weight, max_depth=depth)
        if sk is None or not parity.tie_free(rw, X, y, w, min_leaf=0.0):
            continue
        compared += 1
        _assert_same_tree(rw, sk, X, parity.new_points(seed, X.shape[1]), True)
        # class_weight is a factor on sample_weight
        same = CARTClassifier(pruning=None, max_depth=depth, **rw_params).fit(X, y, sample_weight=w)
        assert parity.rootwise_shape(same.tree_) == parity.rootwise_shape(rw.tree_)
        np.testing.assert_allclose(same.tree_.value, rw.tree_.value)
    assert compared >= 12


def test_class_weight_multiplies_sample_weight():
    X, y, _ = _imbalanced_case(1)
    sw = np.random.default_rng(0).integers(1, 4, size=len(y)).astype(float)
    cw = {0: 1.0, 1: 2.0, 2: 5.0, 3: 0.5}
    a = CARTClassifier(pruning=None, class_weight=cw).fit(X, y, sample_weight=sw)
    b = CARTClassifier(pruning=None).fit(X, y, sample_weight=sw * compute_sample_weight(cw, y))
    np.testing.assert_allclose(a.tree_.weighted_n_node_samples, b.tree_.weighted_n_node_samples)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_class_weight_by_label_names():
    """Weights are keyed by the labels of y (strings here), as in scikit-learn; the peer is
    compute_sample_weight on the same labels."""
    X, y, _ = _imbalanced_case(2)
    names = np.array(["low", "mid", "high", "top"], dtype=object)[y]
    cw = {"low": 1.0, "mid": 2.0, "high": 5.0}  # "top" unnamed: weight 1
    a = CARTClassifier(pruning=None, class_weight=cw).fit(X, names)
    b = CARTClassifier(pruning=None).fit(X, names, sample_weight=compute_sample_weight(cw, names))
    np.testing.assert_array_equal(a.tree_.weighted_n_node_samples, b.tree_.weighted_n_node_samples)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("cw, message", [
    ({"nope": 2.0}, "class_weight names the class 'nope', which y does not hold"),
    ({"a": -1.0}, "class_weight['a'] must be a finite number >= 0, got -1.0"),
    ({"a": "2"}, "class_weight['a'] must be a finite number >= 0, got '2'"),
    ("heavy", "The 'class_weight' parameter of CARTClassifier must be an instance of 'dict', a "
              "str among {'balanced'} or None. Got 'heavy' instead."),
])
def test_bad_class_weight(cw, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        CARTClassifier(class_weight=cw).fit([[0.0], [1.0], [2.0]], ["a", "b", "a"])


def test_a_class_weight_dict_survives_a_model_file(tmp_path):
    X, y, _ = _imbalanced_case(3)
    for cw in ({0: 2.0, 3: 0.5}, {"x": 1.5, "y": 2.0}):
        labels = y if 0 in cw else np.where(y % 2 == 0, "x", "y")
        model = CARTClassifier(pruning=None, class_weight=cw).fit(X, labels)
        rootwise.save(model, tmp_path / "m.json")
        again = rootwise.load(tmp_path / "m.json")
        assert again.class_weight == cw and type(next(iter(again.class_weight))) is type(next(iter(cw)))
        np.testing.assert_array_equal(again.predict(X), model.predict(X))


def _mixed_frame(rng, n):
    """A numeric column, a categorical one (fixed categories, so codes do not depend on which rows
    are present) and a second numeric one."""
    cats = pd.Categorical(rng.choice(list("abcdef"), size=n), categories=list("abcdef"))
    return pd.DataFrame({"x": parity.features(rng, n, 1)[:, 0], "c": cats,
                         "z": np.round(rng.random(n) * 4, 1)})


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
@pytest.mark.parametrize("params", [{}, {"min_weight_fraction_leaf": 0.05}, {"max_leaf_nodes": 6},
                                    {"min_weight_fraction_leaf": 0.1, "max_depth": 3}])
@pytest.mark.parametrize("seed", range(4))
def test_integer_weights_equal_repeated_rows(estimator, params, seed):
    """Weights 0..3 against rows repeated that often (0: left out), with a categorical column: the
    same splits, the same weighted counts, the same predictions and pruning path (the rules
    that count rows, min_samples_*, are left at their defaults, which bind on neither)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 70))
    X = _mixed_frame(rng, n)
    if estimator is CARTClassifier:
        signal = (X["x"] > 0).astype(int) + X["c"].isin(["a", "b"])
        y = np.where(rng.random(n) < 0.7, signal, rng.integers(0, 3, n))
    else:
        y = X["x"].to_numpy() * 2 + (X["c"].cat.codes % 3) + rng.normal(size=n) * 0.3
    w = rng.integers(0, 4, size=n)
    rep = np.repeat(np.arange(n), w)
    a = estimator(pruning=None, **params).fit(X, y, sample_weight=w)
    b = estimator(pruning=None, **params).fit(X.iloc[rep].reset_index(drop=True), y[rep])
    ta, tb = a.tree_, b.tree_
    for name in ("feature", "kind", "n_children", "depth", "first_child"):
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name))
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    np.testing.assert_allclose(ta.weighted_n_node_samples, tb.weighted_n_node_samples)
    np.testing.assert_allclose(ta.impurity, tb.impurity, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ta.value, tb.value, rtol=1e-9, atol=1e-12)
    for node in np.flatnonzero(ta.kind == SUBSET):
        np.testing.assert_array_equal(ta.branch_of_category(node), tb.branch_of_category(node))
    pa = a.cost_complexity_pruning_path(X, y, sample_weight=w)
    pb = b.cost_complexity_pruning_path(X.iloc[rep], y[rep])
    np.testing.assert_allclose(pa.ccp_alphas, pb.ccp_alphas, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("params", [{}, {"min_weight_fraction_leaf": 0.05}, {"min_samples_leaf": 3},
                                    {"min_samples_split": 9}])
def test_integer_weights_like_sklearn_on_repeated_rows(params):
    """rootwise with weights == scikit-learn with the same weights; without a rule that counts
    rows also == scikit-learn on the rows repeated."""
    compared = 0
    for seed in range(25):
        X, y, _ = parity.classification_case(seed)
        w = np.random.default_rng(seed).integers(1, 4, size=len(y))
        rep = np.repeat(np.arange(len(y)), w)
        rw = CARTClassifier(pruning=None, **params).fit(X, y, sample_weight=w)
        sk = parity.sklearn_agrees(DecisionTreeClassifier, X, y, sample_weight=w, **params)
        if sk is None or not parity.tie_free(rw, X, y, w, min_leaf=0.0):
            continue
        compared += 1
        _assert_same_tree(rw, sk, X, parity.new_points(seed, X.shape[1]), True)
        if "min_samples_leaf" not in params and "min_samples_split" not in params:
            sk_rep = DecisionTreeClassifier(random_state=0, **params).fit(X[rep], y[rep])
            _assert_same_tree(rw, sk_rep, X, parity.new_points(seed, X.shape[1]), True)
    assert compared >= 10


def test_stopping_rules_count_rows():
    X = np.array([[0.0], [1.0]])
    y = [0, 1]
    # two rows < 3, however much they weigh: not split
    assert CARTClassifier(pruning=None, min_samples_split=3).fit(
        X, y, sample_weight=[2, 1]).get_n_leaves() == 1
    assert CARTClassifier(pruning=None, min_samples_split=2).fit(
        X, y, sample_weight=[0.01, 0.02]).get_n_leaves() == 2
    # every child needs min_samples_leaf rows: a single row weighing 2 may not stand alone
    assert CARTClassifier(pruning=None, min_samples_leaf=2).fit(
        X, y, sample_weight=[2, 2]).get_n_leaves() == 1
    # fractional weights: two rows of 0.5 are two rows (the default min_samples_split)
    assert CARTRegressor(pruning=None).fit(X, [0.0, 1.0], sample_weight=[0.5, 0.5]).get_n_leaves() == 2
    # a row of weight 0 is no row
    assert CARTClassifier(pruning=None, min_samples_split=3).fit(
        np.array([[0.0], [1.0], [2.0]]), [0, 1, 1], sample_weight=[1, 1, 0]).get_n_leaves() == 1


def test_zero_weight_rows_are_left_out():
    X, y, _ = parity.classification_case(7)
    w = np.where(np.arange(len(y)) % 4 == 0, 0.0, 1.0)
    a = CARTClassifier(pruning=None).fit(X, y, sample_weight=w)
    b = CARTClassifier(pruning=None).fit(X[w > 0], y[w > 0])
    assert parity.rootwise_shape(a.tree_) == parity.rootwise_shape(b.tree_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


# --------------------------------------------------------------------------- other stopping rules


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
@pytest.mark.parametrize("quantile", [0.2, 0.5, 0.8])
def test_impurity_threshold_stops_nodes_below_it(estimator, quantile):
    """Seed 001 §2.5 step 2: a node whose impurity is below the threshold is not split. Growth is
    local, so the tree is the full tree with exactly those nodes made leaves."""
    X, y, _ = (parity.classification_case if estimator is CARTClassifier else parity.regression_case)(11)
    full = estimator(pruning=None).fit(X, y)
    t = full.tree_
    limit = float(np.quantile(t.impurity[t.n_children > 0], quantile)) + 1e-12
    model = estimator(pruning=None, impurity_threshold=limit).fit(X, y)
    expected = collapse(t, (t.n_children > 0) & (t.impurity < limit))
    assert model.tree_.node_count == expected.node_count < t.node_count
    np.testing.assert_array_equal(model.tree_.feature, expected.feature)
    assert np.all(model.tree_.impurity[model.tree_.n_children > 0] >= limit)
    np.testing.assert_allclose(model.tree_.value, expected.value)


def test_median_leaves_keep_the_splits():
    X, y, params = parity.regression_case(5)
    mean = CARTRegressor(pruning=None, **params).fit(X, y)
    median = CARTRegressor(pruning=None, leaf_value="median", **params).fit(X, y)
    assert parity.rootwise_shape(mean.tree_) == parity.rootwise_shape(median.tree_)
    leaves = median.apply(X)
    for leaf in np.unique(leaves):
        assert median.tree_.value[leaf, 0] == pytest.approx(np.median(y[leaves == leaf]), abs=1e-12)
        assert mean.tree_.value[leaf, 0] == pytest.approx(np.mean(y[leaves == leaf]), abs=1e-12)


def test_a_categorical_attribute_can_split_again_below():
    """Seed 001 §2.3: after {A} | {B, C}, B and C can still be told apart further down."""
    X = pd.DataFrame({"a": list("AAAABBBCCC"), "noise": [1, 2, 1, 2, 1, 2, 1, 2, 1, 2]})
    y = ["x"] * 4 + ["y"] * 3 + ["z"] * 3
    model = CARTClassifier(pruning=None).fit(X, y)
    assert model.get_n_leaves() == 3
    t = model.tree_
    assert t.feature[0] == 0 and t.kind[0] == SUBSET
    inner = [int(c) for c in t.children(0) if t.n_children[c] > 0]
    assert len(inner) == 1 and t.feature[inner[0]] == 0
    assert (model.predict(X) == np.array(y)).all()


def test_max_exhaustive_is_an_estimator_parameter():
    """Five classes, nine categories: exhaustive search (the default limit 12) reaches at least
    what the heuristic (max_exhaustive=2) reaches at the root."""
    rng = np.random.default_rng(3)
    n = 400
    c = rng.integers(0, 9, size=n)
    y = (c * 7 + rng.integers(0, 3, size=n)) % 5
    X = pd.DataFrame({"c": [f"k{v}" for v in c]})
    root = {}
    for limit in (2, 12):
        model = CARTClassifier(pruning=None, max_depth=1, max_exhaustive=limit).fit(X, y)
        assert model.get_params()["max_exhaustive"] == limit
        root[limit] = _weighted_improvements(model.tree_)[0]
    assert root[12] >= root[2] - 1e-12
    table = naive.contingency_table(c.astype(float), y, np.ones(n), 9, 5)[:9]
    best = max(d for _, d, _ in naive.all_subset_splits(table, "gini", 1.0))
    assert root[12] == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("value", [0, 21, 2.5, True, "12"])
def test_max_exhaustive_is_checked(value):
    X, y = np.array([[0.0], [1.0]]), [0, 1]
    with pytest.raises(ValueError, match="max_exhaustive"):
        CARTClassifier(max_exhaustive=value).fit(X, y)


@pytest.mark.parametrize("value", [1, 0, True, "five", 2.5])
def test_cv_is_checked(value):
    X, y = np.array([[0.0], [1.0]]), [0, 1]
    with pytest.raises(ValueError, match=r"The 'cv' parameter of CARTRegressor must be an int in "
                                         r"the range \[2, inf\), an object implementing 'split' "
                                         r"and 'get_n_splits', an iterable or None"):
        CARTRegressor(cv=value).fit(X, y)


def test_defaults_are_cart():
    p = CARTClassifier().get_params()
    assert (p["criterion"], p["pruning"], p["ccp_alpha"], p["cv"], p["max_exhaustive"]) == (
        "gini", "cost-complexity", "cv-1se", 10, 12)
    # None: 3 fold draws below 10,000 rows, 1 from there on; cp None: 1e-4 there when alpha is by CV
    assert (p["ccp_cost"], p["cv_repeats"], p["cp"]) == ("misclassification", None, None)
    p = CARTRegressor().get_params()
    assert (p["criterion"], p["leaf_value"], p["pruning"], p["ccp_alpha"], p["cv"],
            p["cv_repeats"]) == ("squared_error", None, "cost-complexity", "cv-min", 10, 1)
    # (issue 13: the 1-SE rule over-prunes); leaf_value None is the mean for the squared error
    assert CARTRegressor()._policy().leaf_value == "mean"


# --------------------------------------------------------------------------- seed 001: loan default


def _loan_root():
    """The loan-default table, its root candidates under CART's policy, and the fitted tree."""
    X, y = rootwise.datasets.load_loan_default(return_X_y=True)
    model = CARTClassifier(pruning=None).fit(X, y)
    s = model.schema_
    codes = pd.Index(model.classes_).get_indexer(y).astype(np.int64)
    splitter = Splitter(model._encode(X), codes, s.kinds_array, s.n_categories, 2, model._policy())
    root = NodeData(np.arange(len(y), dtype=np.int64), np.ones(len(y)))
    cands = {name: splitter.evaluate_feature(root, j) for j, name in enumerate(X.columns)}
    return X, y, model, splitter, cands


def _gini_index_by_hand(y, groups):
    """sum_v |D_v|/|D| Gini(D_v) over boolean row masks, counting the labels of each group."""
    y = np.asarray(y)
    return sum(g.sum() / len(y) * naive.gini([np.sum(y[g] == c) for c in ("是", "否")]) for g in groups)


def test_loan_default_gini_of_the_table():
    _, y, _, _, _ = _loan_root()
    assert naive.gini([np.sum(y == "是"), np.sum(y == "否")]) == pytest.approx(0.42)


def test_loan_default_house():
    """有房情况: Gini index 0.343 (seed 001 §2.3)."""
    X, y, _, _, cands = _loan_root()
    c = cands["有房情况"]
    gini_index = 0.42 - c.gain  # rho = 1: no missing values
    assert round(gini_index, 3) == 0.343
    assert gini_index == pytest.approx(_gini_index_by_hand(y, [X["有房情况"] == "是", X["有房情况"] == "否"]))
    assert c.kind == SUBSET and c.n_branches == 2


def test_loan_default_marital_status_partitions():
    """婚姻状况: {已婚} | {单身, 离婚} 0.300, {单身} | {已婚, 离婚} 0.367, {离婚} | {单身, 已婚} 0.400;
    rootwise picks the first."""
    X, y, model, _, cands = _loan_root()
    status = X["婚姻状况"]
    by_hand = {alone: _gini_index_by_hand(y, [status == alone, status != alone])
               for alone in ("已婚", "单身", "离婚")}
    assert {k: round(v, 3) for k, v in by_hand.items()} == {"已婚": 0.300, "单身": 0.367, "离婚": 0.400}
    c = cands["婚姻状况"]
    assert 0.42 - c.gain == pytest.approx(by_hand["已婚"], abs=1e-12)
    categories = model.schema_.categories[list(X.columns).index("婚姻状况")]
    side = dict(zip(categories, c.branch_of_category.tolist(), strict=True))
    assert side["单身"] == side["离婚"] != side["已婚"]


def test_loan_default_income_threshold():
    """年收入: the best threshold is 97.5 with Gini index 0.300, among all nine midpoints."""
    X, y, _, _, cands = _loan_root()
    c = cands["年收入"]
    assert c.kind == THRESHOLD and c.threshold == 97.5
    assert round(0.42 - c.gain, 3) == 0.300
    income = X["年收入"].to_numpy(dtype=float)
    codes = (np.asarray(y) == "是").astype(int)
    all_t = naive.all_thresholds(income, codes, np.ones(10), 2, "gini", 1.0)
    assert len(all_t) == 9
    gini_index = {t: 0.42 - d for t, d, _ in all_t}
    assert min(gini_index, key=gini_index.get) == 97.5
    assert gini_index[97.5] == pytest.approx(0.42 - c.gain, abs=1e-12)


def test_loan_default_root_is_marital_status():
    """婚姻状况 and 年收入 both reach 0.300: the tie goes to the lower column, 婚姻状况, whose {已婚}
    branch is a pure leaf."""
    X, y, model, splitter, cands = _loan_root()
    assert cands["婚姻状况"].gain == pytest.approx(cands["年收入"].gain, abs=1e-12)
    best, _ = splitter.select(list(cands.values()))
    assert X.columns[best.feature] == "婚姻状况"
    t = model.tree_
    assert X.columns[t.feature[0]] == "婚姻状况"
    married = model.schema_.categories[1].index("已婚")
    child = int(t.first_child[0] + t.branch_of_category(0)[married])
    assert t.n_children[child] == 0 and t.value[child].tolist() == [4.0, 0.0]  # 否: 4, 是: 0
