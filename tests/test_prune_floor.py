"""CART's ``cp``: a floor alpha_0 = cp x R(root) under cost-complexity pruning.

The references are the trees grown without the floor (cp = 0): a floored tree must be that tree
with every node of R(t) <= alpha_0 made a leaf (computed here from the node costs), pruning at
any alpha >= alpha_0 must give what the unfloored tree gives, and cross-validation must score the
subtrees above alpha_0 exactly as it does without the floor (the same folds)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from compare import close

from rootwise import CARTClassifier, CARTRegressor
from rootwise.prune.collapse import collapse
from rootwise.prune.cost_complexity import node_costs, prune_to_alpha
from rootwise.tree.tree import NODE_FIELDS, SURROGATE_FIELDS

CASES = [
    (CARTClassifier, {}, "misclassification"),
    (CARTClassifier, {"ccp_cost": "impurity", "criterion": "entropy"}, "impurity"),
    (CARTRegressor, {}, "impurity"),
]


def table(seed: int, regression: bool, n: int = 600):
    """Numeric and categorical columns with missing cells; noisy targets, so the full tree is
    deep and the floor cuts a lot of it."""
    rng = np.random.default_rng(seed)
    x0, x1 = rng.normal(size=n), rng.integers(0, 40, size=n).astype(float)
    c = rng.integers(0, 7, size=n)
    X = pd.DataFrame({"x0": x0, "x1": x1,
                      "c": pd.Categorical.from_codes(c, [f"k{j}" for j in range(7)])})
    X.loc[rng.random(n) < 0.08, "x0"] = np.nan
    X.loc[rng.random(n) < 0.08, "c"] = np.nan
    signal = x0 + 0.05 * x1 + np.where(c % 3 == 0, 1.0, -0.5)
    if regression:
        return X, signal + rng.normal(scale=0.7, size=n)
    return X, np.where(signal + rng.normal(scale=0.8, size=n) > 0.3, "yes", "no")


def hand_root_cost(y, cost, regression, criterion="gini") -> float:
    """R(root) from the targets alone (unit weights)."""
    if regression:
        return float(np.mean((y - y.mean()) ** 2))
    p = pd.Series(y).value_counts(normalize=True).to_numpy()
    if cost == "misclassification":
        return float(1 - p.max())
    if criterion == "entropy":
        return float(-(p * np.log2(p)).sum())
    return float(1 - (p * p).sum())


def assert_same_tree(a, b):
    """Node by node: the arrays, and per node the category partition and the surrogate list
    (``collapse`` keeps the pruned nodes' pool and surrogate entries, so offsets may differ)."""
    assert a.node_count == b.node_count
    for name in NODE_FIELDS:
        if name not in ("pool_offset", "surrogate_offset"):
            assert close(getattr(a, name), getattr(b, name)), name
    assert close(a.value, b.value)
    for t in range(a.node_count):
        assert (a.pool_offset[t] < 0) == (b.pool_offset[t] < 0)
        if a.pool_offset[t] >= 0:
            np.testing.assert_array_equal(a.branch_of_category(t), b.branch_of_category(t))
        sa, sb = (np.arange(x.surrogate_offset[t], x.surrogate_offset[t] + x.n_surrogates[t])
                  for x in (a, b))
        for name in SURROGATE_FIELDS:
            if name != "pool_offset":
                assert close(a.surrogates[name][sa], b.surrogates[name][sb]), (t, name)
        for i, j in zip(sa, sb, strict=True):  # a subset surrogate's categories -> child
            f, oa, ob = a.surrogates["feature"][i], a.surrogates["pool_offset"][i], \
                b.surrogates["pool_offset"][j]
            if oa >= 0:
                k = a.n_categories[f]
                np.testing.assert_array_equal(a.pool[oa:oa + k], b.pool[ob:ob + k])


@pytest.mark.parametrize("cls,extra,cost", CASES)
@pytest.mark.parametrize("cp", [0.013, 0.0517])
def test_floored_growth_is_the_full_tree_cut_where_r_t_is_at_most_the_floor(cls, extra, cost, cp):
    regression = cls is CARTRegressor
    X, y = table(3, regression)
    full = cls(pruning=None, **extra).fit(X, y).tree_
    floored = cls(pruning=None, cp=cp, **extra).fit(X, y).tree_
    alpha0 = cp * hand_root_cost(y, cost, regression, extra.get("criterion", "gini"))
    r = node_costs(full, cost)
    expected = collapse(full, r <= alpha0)
    assert 1 < expected.node_count < full.node_count  # the floor cut something, not all
    assert_same_tree(floored, expected)


@pytest.mark.parametrize("cls,extra,cost", CASES)
@pytest.mark.parametrize("alpha", [0.0, 0.002, 0.03])
def test_a_fixed_alpha_prunes_as_without_the_floor_at_max_of_alpha_and_floor(cls, extra, cost,
                                                                            alpha):
    regression = cls is CARTRegressor
    X, y = table(4, regression)
    cp = 0.011
    full = cls(pruning=None, **extra).fit(X, y).tree_
    got = cls(ccp_alpha=alpha, cp=cp, **extra).fit(X, y).tree_
    alpha0 = cp * hand_root_cost(y, cost, regression, extra.get("criterion", "gini"))
    assert_same_tree(got, prune_to_alpha(full, max(alpha, alpha0), cost))


@pytest.mark.parametrize("cls,extra,cost", CASES)
def test_cross_validation_scores_the_subtrees_above_the_floor_as_without_it(cls, extra, cost):
    regression = cls is CARTRegressor
    X, y = table(5, regression, n=900)
    cp = 0.004
    common = dict(ccp_alpha="cv-min", cv=5, random_state=7, n_jobs=1, **extra)
    plain = cls(**common).fit(X, y)
    floored = cls(cp=cp, **common).fit(X, y)
    alpha0 = cp * hand_root_cost(y, cost, regression, extra.get("criterion", "gini"))
    a, b = plain.cp_table_, floored.cp_table_
    above = a.alpha > alpha0
    assert 3 <= above.sum() < len(a.alpha) - 3
    # the first floored row is T(alpha_0), the unfloored row whose interval holds alpha_0
    k0 = int(np.flatnonzero(~above)[-1])
    assert b.alpha[0] == pytest.approx(alpha0, rel=1e-12)
    assert b.n_leaves[0] == a.n_leaves[k0]
    # impurity costs: the weakest links' g sum leaf costs over other subtrees (last bits)
    np.testing.assert_allclose(b.alpha[1:], a.alpha[above], rtol=1e-12)
    np.testing.assert_array_equal(b.n_leaves[1:], a.n_leaves[above])
    np.testing.assert_allclose(b.train_cost[1:], a.train_cost[above], rtol=1e-12)
    np.testing.assert_allclose(b.cv_error[1:], a.cv_error[above], rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(b.cv_std_error[1:], a.cv_std_error[above], rtol=1e-9, atol=1e-14)
    full = cls(pruning=None, **extra).fit(X, y).tree_
    assert_same_tree(floored.tree_, prune_to_alpha(full, float(b.alpha[b.chosen]), cost))


def test_the_pruning_path_starts_at_the_floor():
    X, y = table(6, False)
    cp = 0.02
    plain = CARTClassifier().cost_complexity_pruning_path(X, y)
    floored = CARTClassifier(cp=cp).cost_complexity_pruning_path(X, y)
    alpha0 = cp * hand_root_cost(y, "misclassification", False)
    above = plain.ccp_alphas > alpha0
    assert floored.ccp_alphas[0] == pytest.approx(alpha0, rel=1e-12)
    np.testing.assert_allclose(floored.ccp_alphas[1:], plain.ccp_alphas[above], rtol=1e-12)
    np.testing.assert_allclose(floored.impurities[1:], plain.impurities[above], rtol=1e-12)


def test_zero_cp_is_the_whole_tree_and_a_huge_one_the_root():
    X, y = table(7, False)
    full = CARTClassifier(pruning=None).fit(X, y).tree_
    assert_same_tree(CARTClassifier(pruning=None, cp=0.0).fit(X, y).tree_, full)
    assert CARTClassifier(pruning=None, cp=1.0).fit(X, y).tree_.node_count == 1


def test_default_cp_floors_only_large_tables_whose_alpha_is_chosen_by_cv():
    """cp=None: 1e-4 from 10,000 training rows on when alpha is chosen by CV; 0 on smaller
    tables, with a fixed alpha and with pruning=None."""
    X, y = table(9, True, n=10_000)
    common = dict(cv=3, random_state=1)
    tables = {cp: CARTRegressor(cp=cp, **common).fit(X, y).cp_table_ for cp in (0.0, 1e-4)}
    assert len(tables[1e-4].alpha) < len(tables[0.0].alpha)  # the floor binds on this table
    auto = CARTRegressor(**common).fit(X, y).cp_table_
    np.testing.assert_array_equal(auto.alpha, tables[1e-4].alpha)
    np.testing.assert_array_equal(auto.cv_error, tables[1e-4].cv_error)
    small = CARTRegressor(**common).fit(X[:9_999], y[:9_999]).cp_table_
    np.testing.assert_array_equal(small.cv_error,
                                  CARTRegressor(cp=0.0, **common).fit(X[:9_999], y[:9_999])
                                  .cp_table_.cv_error)
    full = CARTRegressor(pruning=None, cp=0.0).fit(X, y).tree_
    assert_same_tree(CARTRegressor(pruning=None).fit(X, y).tree_, full)
    alpha = float(tables[0.0].alpha[1])  # below the floor: a fixed alpha is not floored
    assert alpha < 1e-4 * hand_root_cost(y, "impurity", True)
    assert_same_tree(CARTRegressor(ccp_alpha=alpha).fit(X, y).tree_,
                     prune_to_alpha(full, alpha, "impurity"))


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), "0.01", True])
def test_bad_cp_is_refused_with_its_name(bad):
    X, y = table(8, False, n=50)
    for cls in (CARTClassifier, CARTRegressor):
        with pytest.raises(ValueError, match=rf"The 'cp' parameter of {cls.__name__} must be a "
                                             rf"float in the range \[0\.0, inf\) or None\."):
            cls(cp=bad).fit(X, y if cls is CARTClassifier else np.arange(50.0))
