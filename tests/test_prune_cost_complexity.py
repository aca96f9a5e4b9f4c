"""Cost-complexity pruning (seed 001 §2.6): the weakest-link sequence against scikit-learn's
``cost_complexity_pruning_path`` (``ccp_cost="impurity"``), pruning at a fixed alpha against
scikit-learn's ``ccp_alpha`` and against a brute-force optimum under either cost, the
misclassification cost against counts taken by hand, and the choice of alpha by (repeated)
cross-validation (``cp_table_``) against fold trees pruned and scored from outside."""

import warnings

import naive
import numpy as np
import pandas as pd
import parity
import pytest
from sklearn.model_selection import KFold, RepeatedKFold, RepeatedStratifiedKFold, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from rootwise import CARTClassifier, CARTRegressor
from rootwise.prune.cost_complexity import cost_complexity_path, node_costs, prune_to_alpha

TASKS = {
    "gini": (parity.classification_case, DecisionTreeClassifier, CARTClassifier, {}),
    "entropy": (parity.classification_case, DecisionTreeClassifier, CARTClassifier, {"criterion": "entropy"}),
    "squared_error": (parity.regression_case, DecisionTreeRegressor, CARTRegressor, {}),
}


def _sklearn_cost(rw_cls) -> dict:
    """scikit-learn's node cost, w_t / W * impurity (the regressor has no other)."""
    return {"ccp_cost": "impurity"} if rw_cls is CARTClassifier else {}


def _tie_free_cases(criterion, n_cases=40):
    """(seed, X, y, params, rootwise model, sklearn model) for the tie-free cases."""
    make, sk_cls, rw_cls, extra = TASKS[criterion]
    out = []
    for seed in range(n_cases):
        X, y, params = make(seed)
        sk = parity.sklearn_agrees(sk_cls, X, y, **params, **extra)
        rw = rw_cls(pruning=None, max_surrogates=0, **params, **extra, **_sklearn_cost(rw_cls))
        rw.fit(X, y)
        if sk is not None and parity.tie_free(rw, X, y, criterion=criterion,
                                              min_leaf=params.get("min_samples_leaf", 1)):
            out.append((seed, X, y, params, rw, sk))
    assert len(out) >= 0.4 * n_cases  # enough tie-free cases for the comparison to say something
    return out


# --------------------------------------------------------------------------- the sequence


@pytest.mark.parametrize("criterion", list(TASKS))
def test_pruning_path_equals_sklearn(criterion):
    cases = _tie_free_cases(criterion)
    for seed, X, y, _, rw, sk in cases:
        ours = rw.cost_complexity_pruning_path(X, y)
        theirs = sk.cost_complexity_pruning_path(X, y)
        assert len(ours.ccp_alphas) == len(theirs.ccp_alphas), seed
        np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=0, atol=1e-9, err_msg=str(seed))
        np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=0, atol=1e-9, err_msg=str(seed))
    print(f"{criterion}: {len(cases)} pruning paths compared")


def test_weighted_pruning_path_equals_sklearn():
    compared = 0
    for seed in range(30):
        X, y, params = parity.classification_case(seed)
        w = np.random.default_rng(seed).integers(1, 4, size=len(y)).astype(float)
        sk = parity.sklearn_agrees(DecisionTreeClassifier, X, y, sample_weight=w, **params)
        rw = CARTClassifier(pruning=None, ccp_cost="impurity", **params)
        rw.fit(X, y, sample_weight=w)
        # scikit-learn counts rows in min_samples_leaf / _split, rootwise weight: leave those out
        if sk is None or set(params) - {"max_depth"} or not parity.tie_free(rw, X, y, w):
            continue
        compared += 1
        ours = rw.cost_complexity_pruning_path(X, y, sample_weight=w)
        theirs = sk.cost_complexity_pruning_path(X, y, sample_weight=w)
        np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=0, atol=1e-9)
        np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=0, atol=1e-9)
    assert compared >= 8


@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_fixed_ccp_alpha_prunes_like_sklearn(criterion):
    """Between two alphas of the sequence (and beyond the last) both keep the same subtree."""
    _, sk_cls, rw_cls, _ = TASKS[criterion]
    for seed, X, y, params, _, sk in _tie_free_cases(criterion, n_cases=20):
        alphas = np.unique(sk.cost_complexity_pruning_path(X, y).ccp_alphas)
        probes = np.append((alphas[:-1] + alphas[1:]) / 2, alphas[-1] * 1.5 + 1e-3)
        for alpha in probes[:: max(1, len(probes) // 6)]:
            ours = rw_cls(ccp_alpha=float(alpha), **params, **_sklearn_cost(rw_cls)).fit(X, y)
            theirs = sk_cls(random_state=0, ccp_alpha=float(alpha), **params).fit(X, y)
            assert ours.get_n_leaves() == theirs.get_n_leaves(), (seed, alpha)
            assert ours.cp_table_ is None
            Z = parity.new_points(seed, X.shape[1])
            if rw_cls is CARTClassifier:
                np.testing.assert_array_equal(ours.predict(Z), theirs.predict(Z))
            else:
                np.testing.assert_allclose(ours.predict(Z), theirs.predict(Z), rtol=1e-12, atol=1e-12)


def _subtree_cost(tree, cost="impurity"):
    leaves = tree.n_children == 0
    return float(node_costs(tree, cost)[leaves].sum()), int(leaves.sum())


@pytest.mark.parametrize("cost", ["impurity", "misclassification"])
@pytest.mark.parametrize("seed", range(12))
def test_prune_to_alpha_is_the_smallest_optimal_subtree(seed, cost):
    """R(T) + alpha |T| is minimal over all pruned subtrees (brute-force recursion), and no smaller
    subtree reaches that minimum; categorical subsets included. At an alpha of the sequence itself
    two subtrees tie in exact arithmetic and round-off (1e-18) picks one, as in scikit-learn: there
    only the minimum is checked."""
    rng = np.random.default_rng(seed)
    n = 80
    X = pd.DataFrame({"x": np.round(rng.normal(size=n), 1), "c": rng.choice(list("pqrst"), size=n),
                      "z": rng.integers(0, 5, size=n)})
    y = (X["x"] + (X["c"] == "p") + rng.normal(size=n) > 0.5).astype(int) + (rng.random(n) < 0.2)
    tree = CARTClassifier(pruning=None).fit(X, y).tree_
    alphas = cost_complexity_path(tree, cost=cost).alphas
    between = (alphas[:-1] + alphas[1:]) / 2
    for alpha in np.concatenate([alphas, between, rng.random(5) * alphas[-1] * 1.2]):
        pruned = prune_to_alpha(tree, float(alpha), cost)
        total, leaves = _subtree_cost(pruned, cost)
        best_cost, best_leaves = naive.min_cost_complexity(tree.first_child, tree.n_children,
                                                          node_costs(tree, cost), float(alpha))
        assert total + alpha * leaves == pytest.approx(best_cost, abs=1e-12)
        if np.min(np.abs(alphas - alpha)) > 1e-9:
            assert leaves == best_leaves


def test_misclassification_cost_by_hand():
    """R(t) = (w_t - the largest class weight at t) / W, counted from the training rows that reach
    each node (weights included); the impurity cost is w_t / W * Gini(t) from the same counts."""
    X, y = _noisy(7, n=150)
    w = np.random.default_rng(7).integers(1, 4, size=len(y)).astype(float)
    model = CARTClassifier(pruning=None, max_depth=4).fit(X, y, sample_weight=w)
    reach = model.decision_path(X).toarray().astype(bool)  # rows x nodes
    counts = np.array([[w[reach[:, t] & (y == k)].sum() for k in (0, 1)]
                       for t in range(reach.shape[1])])
    size = counts.sum(axis=1)
    np.testing.assert_allclose(node_costs(model.tree_, "misclassification"),
                               (size - counts.max(axis=1)) / w.sum(), rtol=1e-12)
    gini = 1 - ((counts / size[:, None]) ** 2).sum(axis=1)
    np.testing.assert_allclose(node_costs(model.tree_, "impurity"), size / w.sum() * gini,
                               rtol=1e-12)


def test_a_split_that_misclassifies_as_much_is_cut_at_alpha_zero():
    """Under the misclassification cost a split whose leaves predict their parent's class lowers
    nothing: g = 0 exactly (counts are summed, not rates), so the first row of the cp table is
    already without it (rpart's cp = 0 does the same while growing). Here x < 1 holds 5 'a' and
    1 'b' and splits again into {3 a} and {2 a, 1 b}, both 'a' (the right side likewise with
    'b'): 4 leaves, of which the misclassification cost keeps 2 at alpha 0."""
    X = np.array([0.0] * 3 + [0.1] * 3 + [2.0] * 3 + [2.1] * 3).reshape(-1, 1)
    y = np.array(list("aaaaab") + list("bbbbba"))
    full = CARTClassifier(pruning=None).fit(X, y)
    assert full.get_n_leaves() == 4
    path = cost_complexity_path(full.tree_, cost="misclassification")
    zero = path.alphas == 0.0
    assert path.n_leaves[zero][-1] == 2
    model = CARTClassifier(ccp_cost="misclassification", ccp_alpha="cv-min", cv=3,
                           random_state=0).fit(X, y)
    assert model.cp_table_.alpha[0] == 0.0 and model.cp_table_.n_leaves[0] == 2


@pytest.mark.parametrize("cost", ["impurity", "misclassification"])
def test_equal_alphas_get_one_row(cost):
    """Two weakest links with the same alpha (1/16 here under the impurity cost, exactly; several
    under the misclassification cost): the cp table has one row for them, and every row's
    subtree is the tree pruned at its alpha."""
    X = np.arange(12.0).reshape(-1, 1)
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 1])
    model = CARTClassifier(random_state=0, cv=4, ccp_alpha="cv-min", ccp_cost=cost).fit(X, y)
    full = CARTClassifier(pruning=None).fit(X, y).tree_
    path = cost_complexity_path(full, cost=cost).alphas
    assert np.any(np.diff(path) == 0)  # the setting of this test
    table = model.cp_table_
    assert np.all(np.diff(table.alpha) > 0)
    for alpha, leaves in zip(table.alpha, table.n_leaves, strict=True):
        assert prune_to_alpha(full, float(alpha), cost).n_leaves == leaves


def test_zero_gain_splits_do_not_warn():
    """XOR on one feature: the root split gains nothing (alpha 0, or -1e-17 by round-off)."""
    X = np.array([[0.0], [0.0], [1.0], [1.0]] * 5)
    y = np.array([0, 1, 0, 1] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = CARTClassifier(random_state=0, cv=3).fit(X, y)
    assert model.get_n_leaves() == 1


# --------------------------------------------------------------------------- alpha by cross-validation


def _noisy(seed, n=120):
    rng = np.random.default_rng(seed)
    X = parity.features(rng, n, 3)
    y = (X[:, 0] + 0.8 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _rule(table, rule):
    """The chosen row, from the table alone: the lowest CV error (the simplest tree among equal
    ones), or the simplest tree within one standard error of that minimum."""
    err, se = table.cv_error, table.cv_std_error
    k_min = int(np.flatnonzero(err <= err.min() + 1e-12)[-1])
    if rule == "cv-min":
        return k_min
    return int(np.flatnonzero(err <= err.min() + se[k_min] + 1e-12)[-1])


@pytest.mark.parametrize("rule", ["cv-min", "cv-1se"])
@pytest.mark.parametrize("seed", range(4))
def test_chosen_row_follows_the_rule(rule, seed):
    X, y = _noisy(seed)
    cost = ("impurity", "misclassification")[seed % 2]
    model = CARTClassifier(ccp_alpha=rule, ccp_cost=cost, random_state=seed).fit(X, y)
    table = model.cp_table_
    assert table.rule == rule and table.chosen == _rule(table, rule)
    full = CARTClassifier(pruning=None).fit(X, y).tree_
    assert model.get_n_leaves() == table.n_leaves[table.chosen]
    assert model.tree_ == prune_to_alpha(full, float(table.alpha[table.chosen]), cost)
    if rule == "cv-1se":  # nothing simpler is within one SE
        k_min = _rule(table, "cv-min")
        later = table.cv_error[table.chosen + 1:]
        assert np.all(later > table.cv_error.min() + table.cv_std_error[k_min])


def test_cp_table_columns():
    X, y = _noisy(0)
    model = CARTClassifier(random_state=0, ccp_cost="impurity").fit(X, y)
    frame = model.cp_table_.to_frame()
    assert list(frame.columns) == ["alpha", "n_leaves", "train_cost", "cv_error", "cv_std_error", "chosen"]
    assert frame["chosen"].sum() == 1
    assert np.all(np.diff(frame["alpha"]) > 0) and np.all(np.diff(frame["n_leaves"]) < 0)
    full = CARTClassifier(pruning=None, ccp_cost="impurity").fit(X, y)
    path = full.cost_complexity_pruning_path(X, y)
    assert frame["n_leaves"].iloc[0] == full.get_n_leaves() and frame["n_leaves"].iloc[-1] == 1
    np.testing.assert_allclose(frame["alpha"], path.ccp_alphas)  # no equal alphas here
    np.testing.assert_allclose(frame["train_cost"], path.impurities)


CV_CASES = [(CARTClassifier, "impurity", 1), (CARTClassifier, "misclassification", 1),
            (CARTClassifier, "misclassification", 3), (CARTRegressor, None, 1),
            (CARTRegressor, None, 2)]


@pytest.mark.parametrize("estimator, cost, repeats", CV_CASES)
def test_cv_errors_by_hand(estimator, cost, repeats):
    """Grow every fold's tree of scikit-learn's repeated (stratified) K-fold, prune it at the
    subtree alphas (geometric means of the table's alphas), predict its held-out rows, average each
    row's losses over the repeats: the table's CV error is the mean of those per-row averages and
    its standard error their standard deviation over sqrt(n), recomputed from outside (``fit``
    finds where rows end without building the pruned trees)."""
    X, y = _noisy(1, n=90)
    extra = {} if cost is None else {"ccp_cost": cost}
    if estimator is CARTRegressor:
        y = y + X[:, 1] + np.random.default_rng(1).normal(size=len(y))
        folds = RepeatedKFold(n_splits=5, n_repeats=repeats, random_state=3).split(X)
    else:
        folds = RepeatedStratifiedKFold(n_splits=5, n_repeats=repeats, random_state=3).split(X, y)
    model = estimator(cv=5, cv_repeats=repeats, random_state=3, **extra).fit(X, y)
    table = model.cp_table_
    a = table.alpha
    probes = np.append(np.sqrt(a[:-1] * a[1:]), np.inf)
    losses = np.zeros((len(a), len(y)))
    for train, test in folds:
        fold = estimator(pruning=None).fit(X[train], y[train])
        Xe = fold._encode(X[test])
        for k, alpha in enumerate(probes):
            pruned = prune_to_alpha(fold.tree_, float(alpha), cost or "impurity")
            value = pruned.value[pruned.apply(Xe)]
            if estimator is CARTRegressor:
                losses[k, test] += (value[:, 0] - y[test]) ** 2 / repeats
            else:
                losses[k, test] += (fold.classes_[np.argmax(value, axis=1)] != y[test]) / repeats
    np.testing.assert_allclose(table.cv_error, losses.mean(axis=1), rtol=1e-12, atol=1e-15)
    se = losses.std(axis=1, ddof=1) / np.sqrt(len(y))
    np.testing.assert_allclose(table.cv_std_error, se, rtol=1e-9, atol=1e-15)


def test_repeats_draw_new_folds_one_after_the_other():
    """cv_repeats=R is scikit-learn's RepeatedStratifiedKFold(K, R, random_state): passing that
    splitter as cv gives the same table; its first repeat is the plain K-fold of the same seed, so
    one repeat is the old single K-fold."""
    X, y = _noisy(8, n=100)
    ours = CARTClassifier(cv=4, cv_repeats=3, random_state=5).fit(X, y).cp_table_
    theirs = CARTClassifier(cv=RepeatedStratifiedKFold(n_splits=4, n_repeats=3, random_state=5))
    theirs = theirs.fit(X, y).cp_table_
    np.testing.assert_array_equal(ours.cv_error, theirs.cv_error)
    np.testing.assert_array_equal(ours.cv_std_error, theirs.cv_std_error)
    one = CARTClassifier(cv=4, cv_repeats=1, random_state=5).fit(X, y).cp_table_
    single = CARTClassifier(cv=StratifiedKFold(4, shuffle=True, random_state=5)).fit(X, y)
    np.testing.assert_array_equal(one.cv_error, single.cp_table_.cv_error)
    assert not np.array_equal(one.cv_error, ours.cv_error)


def test_one_se_rule_prefers_a_simpler_tree():
    """Two boundaries and 20% label noise: on these seeds the 1-SE rule keeps fewer leaves than
    the row of lowest CV error (impurity cost, one 10-fold: 3 < 6, 3 < 7, 2 < 4, 3 < 5)."""
    for seed in (3, 4, 5, 6):
        rng = np.random.default_rng(seed)
        X = parity.features(rng, 200, 3)
        y = (np.sin(2 * X[:, 0]) + X[:, 1] > 0).astype(int)
        y = np.where(rng.random(200) < 0.2, 1 - y, y)
        model = CARTClassifier(random_state=seed, ccp_cost="impurity", cv_repeats=1).fit(X, y)
        table = model.cp_table_
        k_min = _rule(table, "cv-min")
        assert model.get_n_leaves() == table.n_leaves[table.chosen] < table.n_leaves[k_min]
        assert table.cv_error[table.chosen] <= table.cv_error[k_min] + table.cv_std_error[k_min]


def test_random_state_makes_the_choice_reproducible():
    X, y = _noisy(2)
    a = CARTClassifier(random_state=7).fit(X, y)
    b = CARTClassifier(random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.cp_table_.cv_error, b.cp_table_.cv_error)
    assert a.tree_ == b.tree_
    others = [CARTClassifier(random_state=s).fit(X, y).cp_table_.cv_error for s in range(3)]
    assert any(not np.array_equal(o, a.cp_table_.cv_error) for o in others)  # the folds do change


def test_cv_takes_a_splitter_or_folds():
    X, y = _noisy(3, n=60)
    folds = list(KFold(4, shuffle=True, random_state=0).split(X))
    by_list = CARTClassifier(cv=folds).fit(X, y)
    by_splitter = CARTClassifier(cv=KFold(4, shuffle=True, random_state=0)).fit(X, y)
    np.testing.assert_array_equal(by_list.cp_table_.cv_error, by_splitter.cp_table_.cv_error)
    assert by_list.tree_ == by_splitter.tree_


def test_weights_equal_repeated_rows_in_the_cp_table():
    """Integer weights (0 included) against repeated rows, with the same folds (a repeated row
    stays in its source row's fold): the same CV errors and standard errors."""
    X, y = _noisy(4, n=60)
    w = np.random.default_rng(4).integers(0, 4, size=len(y))
    rep = np.repeat(np.arange(len(y)), w)
    fold_of = np.arange(len(y)) % 4
    folds = [(np.flatnonzero(fold_of != f), np.flatnonzero(fold_of == f)) for f in range(4)]
    rep_folds = [(np.flatnonzero(fold_of[rep] != f), np.flatnonzero(fold_of[rep] == f)) for f in range(4)]
    a = CARTClassifier(cv=folds).fit(X, y, sample_weight=w)
    b = CARTClassifier(cv=rep_folds).fit(X[rep], y[rep])
    np.testing.assert_allclose(a.cp_table_.alpha, b.cp_table_.alpha, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.cp_table_.cv_error, b.cp_table_.cv_error, rtol=1e-12)
    np.testing.assert_allclose(a.cp_table_.cv_std_error, b.cp_table_.cv_std_error, rtol=1e-9)
    assert a.cp_table_.chosen == b.cp_table_.chosen


def test_fixed_alpha_has_no_table():
    X, y = _noisy(5)
    model = CARTClassifier(ccp_alpha=0.01).fit(X, y)  # alpha in misclassification rate
    assert model.cp_table_ is None
    full = CARTClassifier(pruning=None).fit(X, y).tree_
    assert model.tree_ == prune_to_alpha(full, 0.01, "misclassification")
    assert model.tree_ != prune_to_alpha(full, 0.01, "impurity")  # the cost matters here
    assert CARTClassifier(pruning=None).fit(X, y).cp_table_ is None


# --------------------------------------------------------------------------- tiny data


@pytest.mark.parametrize("estimator, y", [(CARTClassifier, ["a"]), (CARTRegressor, [1.0])])
def test_a_single_row_is_a_leaf_without_table(estimator, y):
    model = estimator().fit([[0.0]], y)
    assert model.get_n_leaves() == 1 and model.cp_table_ is None


def test_fewer_rows_than_folds():
    """Two or three rows: one fold per row (leave-one-out), never an error."""
    reg = CARTRegressor(random_state=0).fit([[0.0], [1.0]], [0.0, 1.0])
    assert reg.cp_table_ is not None and len(reg.cp_table_.alpha) == 2
    clf = CARTClassifier(random_state=0).fit([[0.0], [1.0], [2.0]], ["a", "a", "b"])
    assert clf.cp_table_ is not None
    assert clf.predict([[0.0]]).tolist() == ["a"]


def test_a_rare_class_does_not_turn_pruning_off():
    """One class with a single row cannot be stratified into 10 folds: plain K-fold is used (before,
    K fell to 1 and the full tree was kept without a word)."""
    X, y = _noisy(6)
    y = y.astype(object)
    y[0] = "rare"
    model = CARTClassifier(random_state=0).fit(X, y)
    assert model.cp_table_ is not None
    assert model.get_n_leaves() < CARTClassifier(pruning=None).fit(X, y).get_n_leaves()


# --------------------------------------------------------------------------- parameters


_COSTS = r"a str among \{('misclassification', 'impurity'|'impurity', 'misclassification')\}"
_REPEATS = r"an int in the range \[1, inf\) or None"


@pytest.mark.parametrize("params, message", [  # scikit-learn's wording; a set's order varies
    ({"ccp_cost": "gini"}, f"The 'ccp_cost' parameter of CARTClassifier must be {_COSTS}. Got 'gini'"),
    ({"ccp_cost": None}, f"The 'ccp_cost' parameter of CARTClassifier must be {_COSTS}. Got None"),
    ({"cv_repeats": 0}, f"The 'cv_repeats' parameter of CARTClassifier must be {_REPEATS}. Got 0 "),
    ({"cv_repeats": 2.0}, f"The 'cv_repeats' parameter of CARTClassifier must be {_REPEATS}. Got 2.0"),
    ({"cv_repeats": True}, f"The 'cv_repeats' parameter of CARTClassifier must be {_REPEATS}. Got True"),
    ({"cv_repeats": 2, "cv": KFold(3)}, r"cv_repeats=2 needs an integer cv"),
])
def test_bad_pruning_parameters_are_named(params, message):
    X, y = _noisy(9, n=40)
    with pytest.raises(ValueError, match=message):
        CARTClassifier(**params).fit(X, y)


def test_default_repeats_three_times_unless_the_folds_are_given():
    """cv_repeats=None: three repeats of an integer cv (RepeatedStratifiedKFold(10, 3)); a
    splitter's folds are used as they are."""
    X, y = _noisy(10, n=80)
    ours = CARTClassifier(random_state=2).fit(X, y).cp_table_
    theirs = CARTClassifier(cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=3, random_state=2),
                            cv_repeats=1).fit(X, y).cp_table_
    np.testing.assert_array_equal(ours.cv_error, theirs.cv_error)
    by_splitter = CARTClassifier(cv=KFold(4, shuffle=True, random_state=0)).fit(X, y).cp_table_
    one = CARTClassifier(cv=list(KFold(4, shuffle=True, random_state=0).split(X))).fit(X, y)
    np.testing.assert_array_equal(by_splitter.cv_error, one.cp_table_.cv_error)


def test_default_draws_the_folds_once_from_ten_thousand_rows():
    """cv_repeats=None: RepeatedStratifiedKFold(10, 3) below 10,000 training rows, the single
    StratifiedKFold of the same seed from 10,000 rows on."""
    X, y = _noisy(11, n=10_000)
    for n, repeats in ((9_999, 3), (10_000, 1)):
        ours = CARTClassifier(random_state=4, max_depth=4).fit(X[:n], y[:n]).cp_table_
        theirs = CARTClassifier(cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=repeats,
                                                           random_state=4),
                                cv_repeats=1, max_depth=4).fit(X[:n], y[:n]).cp_table_
        np.testing.assert_array_equal(ours.cv_error, theirs.cv_error)


def test_regression_has_one_cost():
    """The squared error is both the impurity and the loss: CARTRegressor has no ccp_cost."""
    assert "ccp_cost" not in CARTRegressor().get_params()
    assert "cv_repeats" in CARTRegressor().get_params()


@pytest.mark.parametrize("estimator, cost", [(CARTClassifier, "misclassification"),
                                             (CARTClassifier, "impurity"),
                                             (CARTRegressor, "impurity")])
def test_folds_grown_on_two_threads_give_the_same_table(estimator, cost):
    """n_jobs=2 grows the fold trees on two threads; the pieces are put together in fold order,
    so the table is the one-thread table, number for number."""
    X, y, _ = (parity.classification_case if estimator is CARTClassifier
               else parity.regression_case)(5)
    X = np.where(np.random.default_rng(0).random(X.shape) < 0.1, np.nan, X)  # surrogates too
    extra = {"ccp_cost": cost} if estimator is CARTClassifier else {}
    tables = [estimator(ccp_alpha="cv-min", random_state=3, n_jobs=k, **extra).fit(X, y).cp_table_
              for k in (1, 2)]
    for field in ("alpha", "n_leaves", "train_cost", "cv_error", "cv_std_error"):
        np.testing.assert_array_equal(getattr(tables[0], field), getattr(tables[1], field))
    assert tables[0].chosen == tables[1].chosen


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_weakest_links_as_the_node_scan_picks_them(task):
    """The heap of weakest links gives the sequence of the former scan over every node (the
    oracle in tests/weakest_link_oracle.py): the same alphas bit for bit, costs, leaves and
    pruned nodes, ties included (small integer targets make equal g common)."""
    from weakest_link_oracle import scan_every_node

    from rootwise.prune.cost_complexity import _kernel_costs
    from rootwise.prune.weakest_link import weakest_link_sequence

    rng = np.random.default_rng(7)
    for _ in range(12):
        n = int(rng.integers(50, 800))
        X = rng.integers(0, 6, size=(n, 3)).astype(float)
        if task == "classification":
            y = rng.integers(0, 3, size=n)
            model = CARTClassifier(pruning=None).fit(X, y)
        else:
            y = rng.integers(0, 4, size=n).astype(float) + (X[:, 0] > 2)
            model = CARTRegressor(pruning=None).fit(X, y)
        t = model.tree_
        for cost in ("impurity", "misclassification") if task == "classification" else ("impurity",):
            r, scale = _kernel_costs(t, cost)
            links = (t.first_child.astype(np.int64), t.n_children.astype(np.int64),
                     t.parent.astype(np.int64), r)
            for stop in (np.inf, 1e-3):
                got = weakest_link_sequence(*links, stop, scale)
                want = scan_every_node(*links, stop, scale)
                for a, b in zip(got, want, strict=True):
                    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- shared work across folds


def _mixed_table(seed, n=1500, regression=False):
    """A DataFrame with ties (one decimal), -0.0 among 0.0, ~8 % missing cells, a 5-level and a
    300-level categorical column; 3 classes or a target; weights with zeros."""
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=n), 1)
    b = np.where(rng.random(n) < 0.5, 0.0, -0.0) + (rng.random(n) < 0.3)
    c = np.round(rng.normal(size=n), 2)
    for col in (a, b, c):
        col[rng.random(n) < 0.08] = np.nan
    small = pd.Categorical(rng.choice(list("vwxyz"), n))
    wide = pd.Categorical(rng.integers(0, 300, n).astype(str))
    X = pd.DataFrame({"a": a, "b": b, "c": c, "small": small, "wide": wide})
    signal = np.nan_to_num(a) + (np.asarray(small) == "x") + 0.7 * rng.normal(size=n)
    y = signal if regression else np.where(rng.random(n) < 0.2, 2, (signal > 0.4).astype(int))
    w = rng.integers(0, 4, n).astype(float)
    return X, y, w


def _copying_fold(self, rows):
    """A fold's tree the way it was grown before the folds shared work: its rows copied into a
    table of their own, every column sorted again."""
    from rootwise.engine.dispatch import build_tree_with_report

    schema = self.schema
    return build_tree_with_report(
        self.X[rows], self.y[rows], self.w[rows], schema.kinds_array, schema.n_categories,
        self.n_classes, self.policy, cost_floor=self.alpha_floor * float(self.w[rows].sum()),
        floor_cost=self.floor_cost)[0]


def _trees_equal(a, b):
    from rootwise.tree.tree import NODE_FIELDS

    same = [getattr(a, f).tobytes() == getattr(b, f).tobytes() for f in NODE_FIELDS]
    same += [a.value.tobytes() == b.value.tobytes(), a.pool.tobytes() == b.pool.tobytes()]
    same += [col.tobytes() == b.surrogates[k].tobytes() for k, col in a.surrogates.items()]
    return all(same)


@pytest.mark.parametrize("estimator, params", [
    (CARTClassifier, {"cv_repeats": 1}), (CARTRegressor, {"cv_repeats": 1}),
    (CARTClassifier, {"ccp_cost": "impurity", "criterion": "entropy"}),  # 3 repeats, the default
    (CARTRegressor, {"cv_repeats": 2}),
    (CARTClassifier, {"cv_repeats": 1, "splitter": "hist", "max_bins": 8}),  # bins of the fold
    (CARTRegressor, {"cv_repeats": 1, "splitter": "hist", "max_bins": 8})])
@pytest.mark.parametrize("weighted", [False, True])
def test_fold_trees_from_the_shared_presort_are_the_folds_own(monkeypatch, estimator, params,
                                                              weighted):
    """The folds read their rows in place and keep each column's order from one sort of the
    table (``engine.presort``); every fold tree, the CV table and the fitted tree are, bit for
    bit, those of folds grown on copies of their rows, each sorting its own (as before)."""
    import rootwise.estimators as estimators

    X, y, w = _mixed_table(7, regression=estimator is CARTRegressor)
    w = w if weighted else None
    grown = {}
    fold = estimators._Grower.fold

    def recording_fold(self, rows):
        tree = fold(self, rows)
        grown[rows.tobytes()] = (self, rows, tree)
        return tree

    monkeypatch.setattr(estimators._Grower, "fold", recording_fold)
    shared = estimator(random_state=5, n_jobs=2, **params).fit(X, y, sample_weight=w)
    assert len(grown) == 10 * params.get("cv_repeats", 3)
    for grower, rows, tree in grown.values():
        assert _trees_equal(tree, _copying_fold(grower, rows))

    monkeypatch.setattr(estimators._Grower, "fold", _copying_fold)
    copied = estimator(random_state=5, n_jobs=2, **params).fit(X, y, sample_weight=w)
    for field in ("alpha", "n_leaves", "train_cost", "cv_error", "cv_std_error"):
        assert getattr(shared.cp_table_, field).tobytes() == getattr(copied.cp_table_, field).tobytes()
    assert shared.cp_table_.chosen == copied.cp_table_.chosen
    assert _trees_equal(shared.tree_, copied.tree_)


def _moments_by_one_sort(rows, lo, hi, share, weight, n_probes):
    """``_step_moments`` as it was: every step of every row sorted at once by (row, probe), ties
    in input order, then the + terms of all rows before the - terms (the oracle)."""
    m = len(rows)
    pos = np.concatenate([lo, hi])
    who = np.concatenate([rows, rows])
    step = np.concatenate([share, -share])
    order = np.lexsort((np.arange(2 * m), pos, who))
    level = np.empty(2 * m)
    running = 0.0
    for t, s in enumerate(order):
        running += step[s]
        level[t] = running
    before = 0.0
    for t, s in enumerate(order):
        if t == 0 or who[s] != who[order[t - 1]]:
            before = level[t] - step[s]
        level[t] -= before
    first, second = np.zeros(n_probes + 1), np.zeros(n_probes + 1)
    for out, power in ((first, 1), (second, 2)):
        for sign in (1.0, -1.0):
            for t in range(2 * m - 1):
                a, b = order[t], order[t + 1]
                if who[a] == who[b] and pos[a] < pos[b]:
                    term = level[t] if power == 1 else level[t] * level[t]
                    out[pos[a] if sign > 0 else pos[b]] += sign * (weight[who[a]] * term)
    return first, second


@pytest.mark.parametrize("seed", range(5))
def test_moments_row_by_row_are_those_of_one_sort(seed):
    """``_step_moments`` takes the rows one at a time; its sums are those of sorting every step
    at once, bit for bit: shares like 1/3 and squared errors round, and zero-width pieces
    (lo == hi) and rows spread over several folds (repeats) are kept in the same order."""
    from rootwise.prune.cost_complexity import _step_moments

    rng = np.random.default_rng(seed)
    n_rows, n_probes = 60, 9
    rows, lo, hi = [], [], []
    for _ in range(3):  # three held-out copies of every row, as repeats give
        for r in rng.permutation(n_rows):
            cuts = np.sort(rng.integers(0, n_probes + 1, rng.integers(0, 5)))
            edges = np.concatenate([[0], cuts, [n_probes]])
            rows += [r] * (len(edges) - 1)
            lo += list(edges[:-1])
            hi += list(edges[1:])
    rows, lo, hi = (np.array(v, dtype=np.int64) for v in (rows, lo, hi))
    share = rng.random(len(rows)) ** 2 / 3.0
    weight = rng.integers(1, 4, n_rows) / 7.0
    got = _step_moments(rows, lo, hi, share, weight, n_probes)
    want = _moments_by_one_sort(rows, lo, hi, share, weight, n_probes)
    assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()


def test_pieces_worked_out_in_blocks_are_those_of_all_rows(monkeypatch):
    """``fold_pieces`` scores the held-out rows a block at a time: the same pieces as all at
    once."""
    import rootwise.prune.cost_complexity as cc

    X, y, _ = _mixed_table(3)
    model = CARTClassifier(pruning=None, max_depth=8).fit(X.iloc[:1000], y[:1000])
    Xe = model._encode(X)
    test = np.arange(1000, len(y))
    probe = np.append(np.sqrt(np.arange(1, 6) * np.arange(2, 7)) * 1e-3, np.inf)

    def losses(tree, rows, nodes):
        return (tree.value[nodes].argmax(axis=1) != y[rows]).astype(float), np.ones(len(rows))

    whole = cc.fold_pieces(model.tree_, "misclassification", Xe[test], test, losses, probe)
    monkeypatch.setattr(cc, "SCORED_ROWS", 7)
    blocks = cc.fold_pieces(model.tree_, "misclassification", Xe[test], test, losses, probe)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(whole, blocks, strict=True))


@pytest.mark.parametrize("allowance, at_once", [(None, 2), (0, 1)])
def test_folds_side_by_side_only_while_their_workspaces_fit(monkeypatch, allowance, at_once):
    """Cross-validation grows two folds at once on two threads while two fold workspaces fit in
    the allowance (a small table: always); with no allowance beyond the encoded matrix, which a
    fold's workspace exceeds, one fold at a time, and the same table."""
    import threading

    from rootwise import estimators

    X, y, _ = parity.classification_case(5)
    X = np.where(np.random.default_rng(0).random(X.shape) < 0.1, np.nan, X)
    one_thread = CARTClassifier(random_state=3, n_jobs=1).fit(X, y).cp_table_
    if allowance is not None:
        monkeypatch.setattr(estimators, "CV_ALLOWANCE", allowance)
    growing, most, lock = [0], [0], threading.Lock()
    both_in = threading.Barrier(2, timeout=60)  # a deadlock guard: two folds meet when side by side
    fold = estimators._Grower.fold

    def counted(self, rows):
        with lock:
            growing[0] += 1
            most[0] = max(most[0], growing[0])
        if at_once == 2:
            try:
                both_in.wait()
            except threading.BrokenBarrierError:
                pass
        try:
            return fold(self, rows)
        finally:
            with lock:
                growing[0] -= 1

    monkeypatch.setattr(estimators._Grower, "fold", counted)
    table = CARTClassifier(random_state=3, n_jobs=2).fit(X, y).cp_table_
    assert most[0] == at_once
    np.testing.assert_array_equal(table.cv_error, one_thread.cv_error)
    assert table.chosen == one_thread.chosen
