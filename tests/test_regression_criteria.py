"""CARTRegressor(criterion="poisson" / "absolute_error"): every split is the best by a brute force
of the criterion's loss written here, and the tree is scikit-learn's on numeric data when no two
candidate splits tie; category subsets against every partition; missing cells; the Poisson
checks; cost-complexity pruning; the refusals; rpart's Poisson trees on two count tables."""

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import parity
import pytest
from sklearn.tree import DecisionTreeRegressor

import rootwise
from rootwise import CARTRegressor

CRITERIA = ("poisson", "absolute_error")
TIE = 1e-7  # relative gap under which two candidate splits count as tied


def _loss(y, w, criterion):
    """The criterion's loss of one node, by definition: sum w (y log(y / ybar) - y + ybar), or
    the least sum w |y - m| over m (reached at one of the y)."""
    if criterion == "poisson":
        mean = np.sum(w * y) / np.sum(w)
        pos = y > 0  # 0 log 0 = 0
        return float(np.sum(w[pos] * y[pos] * np.log(y[pos] / mean)) + np.sum(w * (mean - y)))
    return float(np.min(np.abs(y[:, None] - y[None, :]) @ w))


def _cuts(x, y, w, criterion, min_leaf):
    """(children's loss, threshold) of every admissible cut of one column's known rows."""
    known = ~np.isnan(x)
    x, y, w = x[known], y[known], w[known]
    values = np.unique(x)
    out = []
    for lo, hi in zip(values[:-1], values[1:], strict=True):
        t = (lo + hi) / 2
        left = x <= t
        if left.sum() < min_leaf or (~left).sum() < min_leaf:
            continue
        if criterion == "poisson" and (y[left].sum() <= 0 or y[~left].sum() <= 0):
            continue  # a side without a positive sum has no Poisson rate
        out.append((_loss(y[left], w[left], criterion) + _loss(y[~left], w[~left], criterion), t))
    return out


def _check_splits(model, X, y, criterion, min_leaf=1):
    """Assert that every split of ``model`` lowers the loss of its known rows the most (per unit
    of the node's weight, known and missing rows) among all the columns' cuts; returns whether
    no node had two candidates within TIE."""
    tree = model.tree_
    w = np.ones(len(y))
    paths = model.decision_path(X).tocsc()
    tie_free = True
    for node in range(tree.node_count):
        if tree.n_children[node] == 0:
            continue
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        gains = []  # (gain, column, threshold)
        for j in range(X.shape[1]):
            x = X[rows, j]
            known = ~np.isnan(x)
            parent = _loss(y[rows][known], w[rows][known], criterion)
            for children, t in _cuts(x, y[rows], w[rows], criterion, min_leaf):
                gains.append(((parent - children) / w[rows].sum(), j, t))
        gains.sort(key=lambda g: -g[0])
        chosen = [g for g in gains
                  if g[1] == tree.feature[node] and abs(g[2] - tree.threshold[node]) < 1e-9]
        scale = max(abs(gains[0][0]), 1e-12)
        assert chosen and chosen[0][0] >= gains[0][0] - 1e-9 * scale, (node, chosen, gains[:2])
        if len(gains) > 1 and gains[0][0] - gains[1][0] <= TIE * scale:
            tie_free = False
    return tie_free


def _case(seed, criterion, n=80):
    rng = np.random.default_rng(seed)
    X = parity.features(rng, n, 3)
    if criterion == "poisson":
        y = rng.poisson(np.exp(0.8 * X[:, 0] - 0.5 * X[:, 1])).astype(float)
    else:
        y = np.round(X[:, 0] + np.abs(X[:, 1]) + rng.standard_t(2, size=n), 3)
    # small nodes split by different columns into the same two sets of rows tie: they are
    # kept out by each setting
    settings = [{"min_samples_split": 10}, {"max_depth": int(rng.integers(2, 4))},
                {"min_samples_leaf": int(rng.integers(4, 7))}][seed % 3]
    return X, y, settings


@pytest.mark.parametrize("criterion", CRITERIA)
def test_trees_are_the_brute_force_best_and_sklearns(criterion):
    compared = 0
    for seed in range(16):
        X, y, params = _case(seed, criterion, n=50)
        rw = CARTRegressor(criterion=criterion, pruning=None, **params).fit(X, y)
        if not _check_splits(rw, X, y, criterion, params.get("min_samples_leaf", 1)):
            continue
        sk = parity.sklearn_agrees(DecisionTreeRegressor, X, y, criterion=criterion, **params)
        if sk is None:
            continue
        compared += 1
        assert parity.rootwise_shape(rw.tree_) == parity.sklearn_shape(sk.tree_), seed
        Z = np.vstack([X, parity.new_points(seed, 3, n=50)])
        np.testing.assert_allclose(rw.predict(Z), sk.predict(Z), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(rw.tree_.impurity[rw.apply(X)], sk.tree_.impurity[sk.apply(X)],
                                   rtol=1e-9, atol=1e-12)
    assert compared >= 6, compared


@pytest.mark.parametrize("criterion", CRITERIA)
def test_fully_grown_tree_is_sklearns(criterion):
    """No stopping rule on a small table of one column (two columns would split the smallest
    nodes into the same rows, a tie): every leaf is pure or cannot be split."""
    compared = 0
    for seed in range(20, 36):
        X, y, _ = _case(seed, criterion, n=16)
        X = X[:, :1]
        rw = CARTRegressor(criterion=criterion, pruning=None).fit(X, y)
        if not _check_splits(rw, X, y, criterion):
            continue
        sk = parity.sklearn_agrees(DecisionTreeRegressor, X, y, criterion=criterion)
        assert sk is not None, seed
        assert parity.rootwise_shape(rw.tree_) == parity.sklearn_shape(sk.tree_), seed
        np.testing.assert_allclose(rw.predict(X), sk.predict(X), rtol=1e-12, atol=1e-12)
        compared += 1
    assert compared >= 3, compared


def test_absolute_error_leaves_are_weighted_medians():
    """By hand: x <= 6.5 holds 1, 5, 2, 3 weighing 1, 1, 3, 1 (the weighted median 2, loss
    1 + 3 + 0 + 1 = 5) and x > 6.5 holds 7, 8, 9 (median 8, loss 2): 7 in all, against 11 for
    x <= 10.5 (median 2 of the first five, loss 10; 8, 9: 1), 16 for x <= 11.5, 19 for x <= 2.5,
    22 for x <= 0.5 and x <= 1.5."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    y = np.array([1.0, 5.0, 2.0, 3.0, 7.0, 8.0, 9.0])
    w = np.array([1.0, 1.0, 3.0, 1.0, 1.0, 1.0, 1.0])
    rw = CARTRegressor(criterion="absolute_error", pruning=None, max_depth=1).fit(X, y, w)
    sk = DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(X, y, sample_weight=w)
    assert rw.tree_.threshold[0] == sk.tree_.threshold[0] == 6.5
    assert rw.tree_.impurity[rw.tree_.first_child[0]] == pytest.approx(5.0 / 6.0, rel=1e-12)
    np.testing.assert_array_equal(rw.predict([[0.0], [11.0]]), [2.0, 8.0])
    np.testing.assert_array_equal(sk.predict([[0.0], [11.0]]), [2.0, 8.0])
    # the mean when asked for: (1 + 5 + 6 + 3) / 6
    mean = CARTRegressor(criterion="absolute_error", leaf_value="mean", pruning=None,
                         max_depth=1).fit(X, y, w)
    assert mean.predict([[0.0]])[0] == pytest.approx(2.5, rel=1e-12)


def _partition_losses(codes, y, criterion, k):
    """Every two-way partition of the categories present (the first on the left): its children's
    loss, by brute force."""
    present = sorted(set(codes.tolist()))
    w = np.ones(len(y))
    out = []
    for r in range(0, len(present) - 1):
        for rest in itertools.combinations(present[1:], r):
            left = np.isin(codes, (present[0], *rest))
            if criterion == "poisson" and (y[left].sum() <= 0 or y[~left].sum() <= 0):
                continue
            out.append(_loss(y[left], w[left], criterion) + _loss(y[~left], w[~left], criterion))
    return sorted(out)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_category_subsets_are_the_best_of_every_partition(criterion):
    """A categorical column of up to 7 categories: the root's subset split has the least loss of
    all 2^(k-1) - 1 partitions (ordering the categories by mean y is exact for squared error
    only)."""
    checked = 0
    for seed in range(8):
        rng = np.random.default_rng(100 + seed)
        k = 3 + seed % 5
        codes = rng.integers(0, k, size=70)
        level = rng.gamma(2.0, 2.0, size=k)
        if criterion == "poisson":
            y = rng.poisson(level[codes]).astype(float)
        else:
            y = np.round(level[codes] + rng.standard_t(1.5, size=70), 3)
        X = pd.DataFrame({"c": pd.Categorical([f"v{c}" for c in codes])})
        rw = CARTRegressor(criterion=criterion, pruning=None, max_depth=1).fit(X, y)
        losses = _partition_losses(codes, y, criterion, k)
        if len(losses) > 1 and losses[1] - losses[0] <= TIE * losses[0]:
            continue
        leaf = rw.apply(X)
        left = leaf == leaf[0]
        w = np.ones(len(y))
        got = _loss(y[left], w[left], criterion) + _loss(y[~left], w[~left], criterion)
        assert got == pytest.approx(losses[0], rel=1e-9), seed
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("criterion", CRITERIA)
def test_missing_cells_follow_surrogates(criterion):
    """With missing cells the root's test is the best gain rho (L(D~) - L(children)) / W~ over
    the known rows of each column, and rows missing it follow a surrogate."""
    rng = np.random.default_rng(7)
    n = 90
    X = parity.features(rng, n, 3)
    X[:, 1] = X[:, 0] + 0.3 * X[:, 1]  # a good surrogate for column 0
    if criterion == "poisson":
        y = rng.poisson(np.exp(X[:, 0])).astype(float)
    else:
        y = np.round(2 * X[:, 0] + rng.standard_t(2, size=n), 3)
    holes = X.copy()
    holes[rng.random((n, 3)) < 0.15] = np.nan
    rw = CARTRegressor(criterion=criterion, pruning=None, max_depth=1).fit(holes, y)
    assert _check_splits(rw, holes, y, criterion)
    primary = int(rw.tree_.feature[0])
    assert primary in (0, 1) and rw.tree_.n_surrogates[0] >= 1
    first = int(rw.tree_.surrogate_offset[0])
    sur = {name: rw.tree_.surrogates[name][first] for name in ("feature", "threshold", "left_branch")}
    other = int(sur["feature"])
    assert other == 1 - primary  # the column built from the same signal
    missing = np.isnan(holes[:, primary]) & ~np.isnan(holes[:, other])
    assert missing.sum() >= 3
    below = holes[missing, other] <= sur["threshold"]
    child = np.where(below, sur["left_branch"], 1 - sur["left_branch"])
    leaves = rw.apply(holes[missing])
    np.testing.assert_array_equal(leaves, int(rw.tree_.first_child[0]) + child)
    assert np.all(np.isfinite(rw.predict(holes)))


@pytest.mark.parametrize("criterion", CRITERIA)
def test_pruning_costs_are_the_criterions(criterion):
    """R(t) = w_t / W * I(t) with I the criterion's impurity: the weakest-link path is
    scikit-learn's on the same tree, and alpha by cross-validation prunes."""
    limits = {"max_depth": 3, "min_samples_split": 8}
    for seed in range(40, 60):
        X, y, _ = _case(seed, criterion, n=50)
        rw = CARTRegressor(criterion=criterion, pruning=None, **limits).fit(X, y)
        if not _check_splits(rw, X, y, criterion):
            continue
        sk = parity.sklearn_agrees(DecisionTreeRegressor, X, y, criterion=criterion, **limits)
        if sk is None or parity.rootwise_shape(rw.tree_) != parity.sklearn_shape(sk.tree_):
            continue
        ours = CARTRegressor(criterion=criterion, **limits).cost_complexity_pruning_path(X, y)
        theirs = sk.cost_complexity_pruning_path(X, y)
        np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=1e-7, atol=1e-12)
        np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=1e-9, atol=1e-12)
        pruned = CARTRegressor(criterion=criterion, cv=5, **limits).fit(X, y)
        assert pruned.tree_.node_count <= rw.tree_.node_count
        assert pruned.cp_table_ is not None
        return
    pytest.fail("no tie-free case")


def test_poisson_checks_the_targets():
    X = np.arange(6.0).reshape(-1, 1)
    with pytest.raises(ValueError, match="Some value\\(s\\) of y are negative which is not "
                                         "allowed for Poisson regression"):
        CARTRegressor(criterion="poisson").fit(X, [1.0, 2.0, -1.0, 0.0, 3.0, 1.0])
    with pytest.raises(ValueError, match="Sum of y is not positive which is necessary for "
                                         "Poisson regression"):
        CARTRegressor(criterion="poisson").fit(X, np.zeros(6))


def test_poisson_leaves_no_side_without_counts():
    """Zeros on the left, counts on the right: the cut between them would leave a side with no
    positive sum, so the tree takes another (scikit-learn's rule)."""
    X = np.arange(8.0).reshape(-1, 1)
    y = np.array([0.0, 0.0, 0.0, 1.0, 4.0, 5.0, 6.0, 7.0])
    rw = CARTRegressor(criterion="poisson", pruning=None, max_depth=1).fit(X, y)
    sk = DecisionTreeRegressor(criterion="poisson", max_depth=1).fit(X, y)
    assert rw.tree_.threshold[0] == sk.tree_.threshold[0] == 3.5
    assert np.all(rw.predict(X) > 0)


def test_refusals():
    X = np.arange(6.0).reshape(-1, 1)
    y = np.arange(6.0)
    with pytest.raises(ValueError, match="criterion='absolute_error' needs splitter='exact'"):
        CARTRegressor(criterion="absolute_error", splitter="hist").fit(X, y)
    with pytest.raises(ValueError, match="The 'criterion' parameter of CARTRegressor must be a "
                                         "str among"):
        CARTRegressor(criterion="gini").fit(X, y)
    with pytest.raises(ValueError, match="monotonic_cst goes with criterion='squared_error' only"):
        CARTRegressor(criterion="poisson", monotonic_cst=[1]).fit(X, y + 1)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_the_command_line_takes_the_criterion(criterion, tmp_path, capsys):
    from rootwise.cli import main

    data = tmp_path / "counts.csv"
    data.write_text("x,y\n" + "".join(f"{i},{i % 4}\n" for i in range(20)), encoding="utf-8")
    out = tmp_path / "m.json"
    code = main(["fit", str(data), "--target", "y", "--algorithm", "cart-regressor",
                 "--criterion", criterion, "--pruning", "none", "--max-depth", "2", "--out",
                 str(out)])
    assert code == 0, capsys.readouterr().err
    model = rootwise.load(out)
    assert model.criterion == criterion
    X = pd.DataFrame({"x": np.arange(20)})
    direct = CARTRegressor(criterion=criterion, pruning=None, max_depth=2).fit(X, np.arange(20) % 4)
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))


# --------------------------------------------------------------------------- rpart's Poisson trees

GOLDEN = Path(__file__).resolve().parent / "golden" / "rpart"


def _rpart_table(name):
    golden = json.loads((GOLDEN / "poisson.json").read_text(encoding="utf-8"))
    spec = golden["tables"][name]
    data = pd.read_csv(GOLDEN / spec["csv"])
    for column in spec["categorical"]:
        data[column] = pd.Categorical(data[column])
    y = data.pop(spec["target"]).to_numpy(dtype=float)
    return data, y, {node["node"]: node for node in spec["nodes"]}, golden["settings"]


@pytest.mark.parametrize("name", ["quakes", "solder_balance"])
def test_poisson_tree_is_rparts_on_count_tables(name):
    """R's datasets::quakes (stations ~ four numeric columns) and rpart's solder.balance (skips ~
    four categorical columns and one numeric), rpart(method = "poisson", parms = list(shrink = 0))
    (``tools/rpart/make_poisson_golden.R``): rpart's split search maximises the same
    s_l log(s_l / n_l) + s_r log(s_r / n_r) (poisson.c), and without shrinking its node rate is
    the mean and its deviance twice the node's half deviance, W I(t)."""
    X, y, rpart_nodes, s = _rpart_table(name)
    rw = CARTRegressor(criterion="poisson", pruning=None, max_surrogates=0,
                       max_depth=s["maxdepth"], min_samples_split=s["minsplit"],
                       min_samples_leaf=s["minbucket"]).fit(X, y)
    tree, names = rw.tree_, list(X.columns)
    assert tree.node_count == len(rpart_nodes)

    def walk(ours, theirs):
        r = rpart_nodes[theirs]
        assert tree.n_node_samples[ours] == r["n"], theirs
        assert tree.value[ours, 0] == pytest.approx(r["rate"], rel=1e-12), theirs
        W = tree.weighted_n_node_samples[ours]
        assert 2 * W * tree.impurity[ours] == pytest.approx(r["deviance"], rel=1e-9), theirs
        if r["var"] == "<leaf>":
            assert tree.n_children[ours] == 0, theirs
            return
        assert names[tree.feature[ours]] == r["var"], theirs
        first = int(tree.first_child[ours])
        if "threshold" in r:
            assert tree.threshold[ours] == pytest.approx(r["threshold"], rel=1e-12), theirs
            below, above = (2 * theirs, 2 * theirs + 1) if r["left_is_below"] else \
                (2 * theirs + 1, 2 * theirs)
            walk(first, below)
            walk(first + 1, above)
            return
        categories = rw.schema_.categories[tree.feature[ours]]
        branch = {c: int(tree.pool[tree.pool_offset[ours] + code])
                  for code, c in enumerate(categories)}
        left = {branch[c] for c in r["left_levels"]}
        assert len(left) == 1 and {branch[c] for c in r["right_levels"]} == {1 - min(left)}
        walk(first + min(left), 2 * theirs)
        walk(first + 1 - min(left), 2 * theirs + 1)

    walk(0, 1)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_many_categories_take_the_best_prefix_of_their_order(criterion):
    """Above 12 categories present the search takes the best prefix of the categories ordered by
    mean (Poisson) or lower weighted median (absolute error): that prefix's loss, by brute force."""
    rng = np.random.default_rng(5)
    k, n = 15, 150
    codes = rng.permutation(np.arange(n) % k)
    level = rng.gamma(2.0, 2.0, size=k)
    if criterion == "poisson":
        y = rng.poisson(level[codes]).astype(float)
    else:
        y = np.round(level[codes] + rng.standard_t(1.5, size=n), 3)
    X = pd.DataFrame({"c": pd.Categorical([f"v{c:02d}" for c in codes])})
    rw = CARTRegressor(criterion=criterion, pruning=None, max_depth=1).fit(X, y)
    w = np.ones(n)
    if criterion == "poisson":
        key = [y[codes == c].mean() for c in range(k)]
    else:
        key = [np.sort(y[codes == c])[(np.sum(codes == c) - 1) // 2] for c in range(k)]
    order = np.argsort(key, kind="stable")
    best = min(_loss(y[np.isin(codes, order[:i])], w[:1].repeat(np.isin(codes, order[:i]).sum()),
                     criterion)
               + _loss(y[~np.isin(codes, order[:i])], w[:1].repeat((~np.isin(codes, order[:i])).sum()),
                       criterion)
               for i in range(1, k))
    leaf = rw.apply(X)
    left = leaf == leaf[0]
    got = _loss(y[left], w[left], criterion) + _loss(y[~left], w[~left], criterion)
    assert got == pytest.approx(best, rel=1e-9)


def test_explain_shows_the_squared_error_only():
    from rootwise import explain

    X = pd.DataFrame({"x": np.arange(12.0), "c": pd.Categorical(list("abc") * 4)})
    y = np.arange(12.0) % 5
    model = CARTRegressor(criterion="poisson", pruning=None, max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="explain shows the squared error's measures of a "
                                         "regression tree; this one was grown with "
                                         "criterion='poisson'"):
        explain(X, y, model)


def test_absolute_error_ties_go_to_the_even_cut():
    """Integer targets tie the absolute error exactly, and a node no cut improves ties at every
    cut: taking the first tied cut peeled one row off per level, a chain as deep as the node has
    rows (depth 1078 on 5,000 counts); among tied cuts the most even is taken instead."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 3))
    y = rng.poisson(np.exp(X[:, 0] - 0.5 * X[:, 1])).astype(float)
    rw = CARTRegressor(criterion="absolute_error", pruning=None).fit(X, y)
    assert rw.get_depth() < 100
    # still the least loss at the root, by brute force
    root = CARTRegressor(criterion="absolute_error", pruning=None, max_depth=1).fit(X[:100], y[:100])
    _check_splits(root, X[:100], y[:100], "absolute_error")


def test_poisson_with_the_hist_splitter_is_the_exact_tree_when_bins_hold_one_value():
    """splitter="hist" scores bins with the same Poisson proxy: with fewer distinct values than
    bins, every bin holds one value and the tree is the exact splitter's."""
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(120, 3)), 1)  # about 50 distinct values per column
    y = rng.poisson(np.exp(X[:, 0])).astype(float)
    exact = CARTRegressor(criterion="poisson", pruning=None, max_depth=4).fit(X, y)
    hist = CARTRegressor(criterion="poisson", pruning=None, max_depth=4, splitter="hist").fit(X, y)
    assert parity.rootwise_shape(hist.tree_) == parity.rootwise_shape(exact.tree_)
    np.testing.assert_allclose(hist.predict(X), exact.predict(X), rtol=1e-12)
