"""min_samples_split / min_samples_leaf count rows and min_weight_fraction_leaf weighs, as in
scikit-learn: the same trees as its DecisionTreeClassifier / Regressor (peer runs in the test),
row counts checked by hand on the fitted trees, boosting with AdaBoostClassifier, and refusals.
"""

import math
import re

import numpy as np
import parity
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier

SETTINGS = [  # int and float min_samples_*, min_weight_fraction_leaf
    {"min_samples_leaf": 4}, {"min_samples_leaf": 0.08}, {"min_samples_split": 12},
    {"min_samples_split": 0.2}, {"min_weight_fraction_leaf": 0.06},
    {"min_samples_leaf": 3, "min_weight_fraction_leaf": 0.03, "max_depth": 4},
]


def _splits_a_pure_node(sk):
    """scikit-learn splits a node of one class whose weighted Gini rounds above its epsilon
    (3e-16 from 1 - (W / W)^2 summed by class): a rounding of its own, no rule to compare."""
    t = sk.tree_
    split = t.children_left >= 0
    return bool(np.any(split & (t.value.max(axis=(1, 2)) >= 1.0 - 1e-12)))


def _weights(rng, n, weighted):
    return rng.uniform(0.05, 3.0, n) if weighted else None


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_same_tree_as_scikit_learn(task, weighted):
    make, sk_cls, rw_cls, criterion = {
        "classification": (parity.classification_case, DecisionTreeClassifier, CARTClassifier, "gini"),
        "regression": (parity.regression_case, DecisionTreeRegressor, CARTRegressor, "squared_error"),
    }[task]
    compared = 0
    cases = 0
    for seed in range(6):
        X, y, _ = make(seed)
        w = _weights(np.random.default_rng(100 + seed), len(y), weighted)
        for params in SETTINGS:
            cases += 1
            sk = parity.sklearn_agrees(sk_cls, X, y, sample_weight=w, **params)
            rw = rw_cls(pruning=None, **params).fit(X, y, sample_weight=w)
            if sk is None or not parity.tie_free(rw, X, y, w, criterion=criterion, min_leaf=0.0) \
                    or (task == "classification" and _splits_a_pure_node(sk)):
                continue
            compared += 1
            assert parity.rootwise_shape(rw.tree_) == parity.sklearn_shape(sk.tree_), (seed, params)
            Z = parity.new_points(seed, X.shape[1], n=50)
            np.testing.assert_allclose(rw.predict(Z), sk.predict(Z), rtol=1e-12, atol=1e-12)
    assert compared >= 0.5 * cases, (compared, cases)


def _leaf_rows(model, X, w):
    """Rows of positive weight, and their weight, in each leaf (by hand, from the leaves)."""
    leaves = model.apply(X)
    keep = w > 0
    ids = np.unique(leaves)
    return ([int(np.sum(keep & (leaves == i))) for i in ids],
            [float(np.sum(w[leaves == i])) for i in ids])


def test_min_samples_leaf_counts_rows_not_weight():
    X, y = load_iris(return_X_y=True)
    mixed = np.where(np.arange(len(y)) % 3 == 0, 0.01, 5.0)
    for cls, Xf, weights in ((CARTClassifier, X, mixed), (CARTClassifier, X, np.full(150, 0.01)),
                             (ID3Classifier, np.round(X), np.full(150, 0.01))):
        extra = {"pruning": None} if cls is CARTClassifier else {}
        m = cls(min_samples_leaf=6, **extra).fit(Xf, y, sample_weight=weights)
        rows, _ = _leaf_rows(m, Xf, weights)
        # 6 rows of 0.01 make a leaf: as a weight, 6 would have left a single leaf
        assert min(rows) >= 6 and m.get_n_leaves() > 2, (cls, rows)
        smaller = cls(min_samples_leaf=5, **extra).fit(Xf, y, sample_weight=weights)
        assert min(_leaf_rows(smaller, Xf, weights)[0]) == 5 or smaller.get_n_leaves() > m.get_n_leaves()


def test_fraction_of_rows_on_iris_is_scikit_learns():
    X, y = load_iris(return_X_y=True)
    ours = CARTClassifier(pruning=None, min_samples_leaf=0.1).fit(X, y)
    theirs = DecisionTreeClassifier(min_samples_leaf=0.1, random_state=0).fit(X, y)
    assert ours.get_n_leaves() == theirs.get_n_leaves() == 5
    rows, _ = _leaf_rows(ours, X, np.ones(len(y)))
    assert min(rows) >= math.ceil(0.1 * 150)


def test_min_samples_split_counts_rows_with_unequal_weights():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=120) > 0).astype(int)
    w = rng.uniform(0.001, 0.01, 120)  # the whole table weighs about 0.6
    m = CARTClassifier(pruning=None, min_samples_split=30).fit(X, y, sample_weight=w)
    through = np.diff(m.decision_path(X).tocsc().indptr)  # rows through each node
    split = m.tree_.n_children > 0
    assert split.sum() >= 2 and through[split].min() >= 30


def test_min_weight_fraction_leaf_for_every_estimator():
    X, y = load_iris(return_X_y=True)
    w = np.linspace(0.5, 2.0, len(y))
    for model in (CARTClassifier(pruning=None, min_weight_fraction_leaf=0.2),
                  C45Classifier(pruning=None, min_weight_fraction_leaf=0.2),
                  ID3Classifier(min_weight_fraction_leaf=0.2, max_depth=1)):
        Xf = (X > np.median(X, axis=0)).astype(int) if isinstance(model, ID3Classifier) else X
        model.fit(Xf, y, sample_weight=w)
        _, weights = _leaf_rows(model, Xf, w)
        if isinstance(model, C45Classifier):  # two branches need it (J48's rule), not all
            assert sorted(weights)[-2] >= 0.2 * w.sum() - 1e-9
        else:
            assert min(weights) >= 0.2 * w.sum() - 1e-9
        assert model.get_n_leaves() > 1


def _adaboost_score(base, X, y):
    return AdaBoostClassifier(base, n_estimators=20, random_state=0).fit(X, y).score(X, y)


def _third_table():
    X, y = load_wine(return_X_y=True)
    return X, y


@pytest.mark.parametrize("load", [load_iris, load_breast_cancer, _third_table])
def test_boosted_stumps_score_as_scikit_learns(load):
    out = load(return_X_y=True) if load is not _third_table else load()
    X, y = out
    sk = _adaboost_score(DecisionTreeClassifier(max_depth=1), X, y)
    cart = _adaboost_score(CARTClassifier(max_depth=1, pruning=None), X, y)
    assert abs(cart - sk) <= 0.01, (cart, sk)
    # ID3's stump has a branch per value (of each continuous column here): at least as strong
    id3 = _adaboost_score(ID3Classifier(max_depth=1), X, y)
    assert id3 >= sk - 0.01, (id3, sk)


def test_c45_refuses_normalised_weights_and_says_what_to_use():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=r"C45Classifier: sample_weight sums to 1, less than twice "
                                         r"min_samples_leaf \(2\).*boost CARTClassifier"):
        AdaBoostClassifier(C45Classifier(max_depth=1), n_estimators=3).fit(X, y)
    # weights summing to the number of rows are boosted as Weka's AdaBoostM1 does
    C45Classifier().fit(X, y, sample_weight=np.full(len(y), 1.0))


def test_unequal_weights_with_a_binned_search_refuse_a_row_count():
    X, y = load_iris(return_X_y=True)
    w = np.linspace(0.5, 2.0, len(y))
    with pytest.raises(ValueError, match=r"CARTClassifier: min_samples_leaf=5 counts rows \(5\), "
                                         r"and with unequal sample weights.*splitter='hist'"):
        CARTClassifier(splitter="hist", min_samples_leaf=5).fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match=r"ID3Classifier: min_samples_leaf=0.1 counts rows \(15\)"):
        ID3Classifier(min_samples_leaf=0.1).fit(np.round(X), y, sample_weight=w)
    # absolute error's running medians weigh the rows too
    with pytest.raises(ValueError, match=r"CARTRegressor: min_samples_leaf=5 counts rows \(5\).*"
                                         r"criterion='absolute_error' searches"):
        CARTRegressor(criterion="absolute_error", min_samples_leaf=5).fit(X, y, sample_weight=w)
    # equal weights count rows in every search: the hist fit holds 5 rows a leaf
    m = CARTClassifier(splitter="hist", pruning=None, min_samples_leaf=5).fit(
        X, y, sample_weight=np.full(len(y), 0.2))
    assert min(_leaf_rows(m, X, np.ones(len(y)))[0]) >= 5


@pytest.mark.parametrize("param, value, words", [
    ("min_samples_leaf", 1.5, "an int in the range [1, inf) or a float in the range (0.0, 1.0)"),
    ("min_samples_split", 1, "an int in the range [2, inf) or a float in the range (0.0, 1.0]"),
    ("min_weight_fraction_leaf", 0.6, "a float in the range [0.0, 0.5]"),
])
def test_refusals_are_scikit_learns(param, value, words):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=re.escape(f"The '{param}' parameter of CARTClassifier "
                                                   f"must be {words}")):
        CARTClassifier(**{param: value}).fit(X, y)
