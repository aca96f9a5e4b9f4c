"""C4.5's error-based pruning (rootwise.prune.error_based) on its own: the pessimistic estimate against
Quinlan's numbers, the pruning of J48's own unpruned trees into J48's pruned trees, collapse, and
subtree raising worked by hand on watermelon 3.0."""

from __future__ import annotations

from types import SimpleNamespace

import error_based_oracle as oracle
import numpy as np
import pandas as pd
import pytest
from deep_trees import staircase, staircase_classes
from j48_golden import compare, golden, load, nested
from python_calls import python_calls

from rootwise import C45Classifier, datasets
from rootwise._config import LEAF, MISSING_FRACTIONAL, MULTIWAY, THRESHOLD
from rootwise.prune.error_based import (
    TrainingRows,
    collapse_tree,
    error_based_prune,
    pessimistic_errors,
)
from rootwise.reference.builder import build_tree
from rootwise.reference.splitters import make_splitter
from rootwise.tree.records import NodeRecords

DATASETS = ["weather.nominal", "weather.numeric", "contact-lenses", "iris", "labor", "vote",
            "breast-cancer", "diabetes", "credit-g", "soybean"]


# --------------------------------------------------------------------------- the estimate


def test_pessimistic_errors_quinlan_example():
    """Quinlan (1993, §4.2), the 'physician fee freeze' subtree with leaves of 6, 9 and 1 cases
    and no errors: U_25%(0, N) = 1 - 0.25^(1/N) gives 0.206, 0.143 and 0.750 per case, so
    6 * 0.206 + 9 * 0.143 + 1 * 0.750 = 3.273 predicted errors. As one leaf, 16 cases with 1
    error: the book reads U_25%(1, 16) = 0.157 from the exact binomial; the normal approximation
    with continuity correction that C4.5's code and J48 use gives 0.155: 2.475 errors. Either way
    the subtree (3.273) is replaced by the leaf."""
    assert pessimistic_errors(6, 0, 0.25) / 6 == pytest.approx(0.206, abs=5e-4)
    assert pessimistic_errors(9, 0, 0.25) / 9 == pytest.approx(0.143, abs=5e-4)
    assert pessimistic_errors(1, 0, 0.25) == pytest.approx(0.750, abs=1e-12)
    subtree = sum(pessimistic_errors(n, 0, 0.25) for n in (6, 9, 1))
    assert subtree == pytest.approx(3.273, abs=2e-3)
    leaf = 1 + pessimistic_errors(16, 1, 0.25)
    assert (leaf / 16) == pytest.approx(0.155, abs=5e-4)
    assert leaf < subtree


def test_the_estimate_is_the_former_one_bit_for_bit():
    """The compiled estimate gives the former Python function's numbers exactly, below one error
    (the interpolation), at and above it, near N, and at release 8's float CF."""
    rng = np.random.default_rng(0)
    n = np.concatenate([rng.integers(1, 60, 300), rng.uniform(0.01, 60, 300)]).astype(float)
    e = np.concatenate([np.zeros(50), rng.uniform(0, 1, 100), rng.uniform(0, 1, 450) * n[150:]])
    for cf in (0.25, float(np.float32(0.25)), 0.05, 0.45):
        for ni, ei in zip(n.tolist(), e.tolist(), strict=True):
            assert pessimistic_errors(ni, ei, cf) == oracle.pessimistic_errors(ni, ei, cf)


# --------------------------------------------------------------------------- J48's own trees


def tree_from_weka(parsed: dict, schema, n_classes: int):
    """A rootwise Tree with the tests of a golden (J48-printed) tree; values are left to the
    pruner, which routes the training rows again."""
    rec = NodeRecords(n_classes)
    root = rec.new_node(parent=-1, depth=0, branch_fraction=1.0)
    stack = [(root, parsed)]
    while stack:
        nid, node = stack.pop()
        rec.value[nid] = np.ones(n_classes)
        if node["type"] == "leaf":
            continue
        j = schema.feature_names.index(node["attribute"])
        kids = [rec.new_node(parent=nid, depth=rec.fields["depth"][nid] + 1, branch_fraction=0.0)
                for _ in node["branches"]]
        if node["kind"] == "numeric":
            rec.set(nid, feature=j, kind=THRESHOLD, threshold=node["threshold_exact"])
        else:
            assert [b["value"] for b in node["branches"]] == list(schema.categories[j])
            rec.set(nid, feature=j, kind=MULTIWAY,
                    pool_offset=rec.add_to_pool(np.arange(len(kids), dtype=np.int32)))
        rec.set(nid, first_child=kids[0], n_children=len(kids), missing_branch=MISSING_FRACTIONAL)
        stack.extend(zip(kids, (b["child"] for b in node["branches"]), strict=True))
    return rec.tree(schema.n_categories)


def j48_setting(name: str, release8: bool = True):
    """Encoded training data of a golden dataset and a splitter routing rows as J48 does."""
    g = golden(name)
    X, y = load(name)
    model = C45Classifier(release8=release8, pruning=None).fit(X, y)  # for the schema only
    Xe = model._encode(X)
    yc = pd.Categorical(y, categories=model.classes_).codes.astype(np.int64)
    schema = model.schema_
    splitter = make_splitter(Xe, yc, schema.kinds_array, schema.n_categories, len(model.classes_),
                             model._policy())
    return g, model, Xe, yc, splitter


def as_model(tree, model):
    return SimpleNamespace(tree_=tree, schema_=model.schema_, classes_=model.classes_)


@pytest.mark.parametrize("name", DATASETS)
def test_pruning_j48s_unpruned_tree_gives_j48s_pruned_tree(name):
    """J48 -U prints the collapsed, unpruned tree; pruning it must give J48's pruned tree, leaf
    counts included (subtree raising moves rows, and with them the fractions of missing values)."""
    g, model, Xe, yc, splitter = j48_setting(name)
    unpruned = tree_from_weka(g["unpruned_tree"]["parsed"], model.schema_, len(model.classes_))
    w = np.ones(len(yc))
    # routed again, the unpruned tree has J48's leaf counts
    kept = collapse_tree(unpruned, splitter, w)
    assert compare(nested(as_model(kept, model), g["class_values"]),
                   g["unpruned_tree"]["parsed"]) == []
    pruned = error_based_prune(unpruned, splitter, w, confidence=0.25, release8=True)
    assert compare(nested(as_model(pruned, model), g["class_values"]),
                   g["pruned_tree"]["parsed"]) == []


@pytest.mark.parametrize("name", ["labor", "vote", "soybean"])
def test_textbook_pruner_agrees_on_j48_trees(name):
    """Without release 8's tolerances (1e-6 in comparisons, the last of equal branches raised)
    the pruner makes the same decisions on these trees, missing values and raising included."""
    g, model, Xe, yc, splitter = j48_setting(name, release8=False)
    unpruned = tree_from_weka(g["unpruned_tree"]["parsed"], model.schema_, len(model.classes_))
    pruned = error_based_prune(unpruned, splitter, np.ones(len(yc)), confidence=0.25)
    assert compare(nested(as_model(pruned, model), g["class_values"]),
                   g["pruned_tree"]["parsed"]) == []


def test_collapse_iris():
    """Release 8 grows 7 leaves on iris; two subtrees do not lower the training error and J48
    collapses them (J48 -U prints 5 leaves). E.g. petalwidth > 1.7 holds 46 rows, 45 virginica:
    1 error as a leaf, and its split (petallength <= 4.8) still leaves 1 error."""
    g, model, Xe, yc, splitter = j48_setting("iris")
    w = np.ones(len(yc))
    raw = build_tree(Xe, yc, w, model.schema_.kinds_array, model.schema_.n_categories,
                     len(model.classes_), model._policy())
    assert raw.n_leaves == 7
    collapsed = collapse_tree(raw, splitter, w)
    assert collapsed.n_leaves == 5 == g["unpruned_tree"]["n_leaves"]
    assert compare(nested(as_model(collapsed, model), g["class_values"]),
                   g["unpruned_tree"]["parsed"]) == []
    # the fitted model does the same
    assert compare(nested(model, g["class_values"]), g["unpruned_tree"]["parsed"]) == []


# --------------------------------------------------------------------------- by hand


def errors(n: float, e: float) -> float:
    """Predicted errors of a leaf with n cases and e errors at CF = 0.25."""
    return e + pessimistic_errors(n, e, 0.25)


def test_subtree_raising_watermelon_3_0():
    """The unpruned C4.5 tree on watermelon 3.0 (seed 000's data):

        含糖率 <= 0.126: 否 (5)
        含糖率 > 0.126                            12 rows, 8 是 / 4 否
            密度 <= 0.382: 否 (2)
            密度 > 0.382                          10 rows, 7 是 / 3 否
                纹理 = 清晰: 是 (7) | 稍糊: 否 (3/1) | 模糊: empty

    Bottom-up: the 纹理 node as a leaf costs errors(10, 3) = 4.56, its leaves 3.30: kept. The 密度
    node: as a leaf errors(12, 4) = 5.67, its leaves 1.00 + 3.30 = 4.30: kept. At the root: leaf
    errors(17, 8) = 9.87; subtree errors(5,0) + errors(2,0) + errors(7,0) + errors(3,1) = 5.51;
    the largest branch (含糖率 > 0.126) with all 17 rows -- 密度 <= 0.382: 4 否; 密度 > 0.382:
    纹理 清晰 7 是 / 稍糊 4 否 1 是 / 模糊 1 否 -- costs errors(4,0) + errors(7,0) + errors(5,1) +
    errors(1,0) = 5.43 <= 5.51 + 0.1: the branch replaces the root."""
    X, y = datasets.load_watermelon_3_0(return_X_y=True)
    full = C45Classifier(pruning=None).fit(X, y)
    t = full.tree_
    assert full.schema_.feature_names[t.feature[0]] == "含糖率"
    assert errors(10, 3) > errors(7, 0) + errors(3, 1) + 0.1
    assert errors(12, 4) > errors(2, 0) + errors(7, 0) + errors(3, 1) + 0.1
    as_leaf = errors(17, 8)
    as_tree = errors(5, 0) + errors(2, 0) + errors(7, 0) + errors(3, 1)
    as_branch = errors(4, 0) + errors(7, 0) + errors(5, 1) + errors(1, 0)
    assert as_branch <= as_tree + 0.1 and as_leaf > as_branch + 0.1
    assert [round(v, 2) for v in (as_leaf, as_tree, as_branch)] == [9.87, 5.51, 5.43]

    pruned = C45Classifier().fit(X, y)
    p = pruned.tree_
    names = pruned.schema_.feature_names
    assert names[p.feature[0]] == "密度" and p.threshold[0] == t.threshold[t.first_child[0] + 1]
    leaves = [p.value[i].tolist() for i in range(p.node_count) if p.n_children[i] == 0]
    # classes_ = ['否', '是']
    assert leaves == [[4, 0], [0, 7], [4, 1], [1, 0]]
    # without raising the root stays: 5.51 + 0.1 < 9.87
    kept = C45Classifier(subtree_raising=False).fit(X, y)
    assert kept.tree_.node_count == t.node_count
    assert names[kept.tree_.feature[0]] == "含糖率"


def test_pruned_leaves_keep_fractional_counts_and_predict_with_them():
    """labor (J48's pruned tree, leaves (15.27/2.27), (10.77/4.77), (30.96/1.0)): the leaves hold
    the fractional weights of rows with missing values, and predict_proba of a row that reaches
    a leaf is that leaf's normalised counts."""
    X, y = load("labor")
    model = C45Classifier(release8=True).fit(X, y)
    t = model.tree_
    leaves = np.flatnonzero(t.n_children == 0)
    weights = sorted(round(float(t.weighted_n_node_samples[i]), 2) for i in leaves)
    assert weights == [10.77, 15.27, 30.96]
    assert weights != [round(v) for v in weights]
    ends = model.apply(X)
    at_leaf = np.isin(ends, leaves)
    expected = t.value[ends[at_leaf]] / t.value[ends[at_leaf]].sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(X)[at_leaf], expected)


def test_integer_weights_are_repeated_rows():
    """The estimate works on weighted counts: weight 2 is the same as the row twice."""
    X, y = load("vote")
    w = np.ones(len(y))
    w[::3] = 2.0
    weighted = C45Classifier().fit(X, y, sample_weight=w)
    twice = np.flatnonzero(w == 2.0)
    Xr = pd.concat([X, X.iloc[twice]], ignore_index=True)
    yr = pd.concat([y, y.iloc[twice]], ignore_index=True)
    repeated = C45Classifier().fit(Xr, yr)
    assert weighted.tree_.node_count == repeated.tree_.node_count
    np.testing.assert_array_equal(weighted.tree_.feature, repeated.tree_.feature)
    np.testing.assert_allclose(weighted.tree_.value, repeated.tree_.value, atol=1e-9)


def test_confidence_controls_the_size():
    """A smaller CF is more pessimistic: fewer leaves."""
    X, y = load("credit-g")
    sizes = [C45Classifier(confidence=cf).fit(X, y).tree_.n_leaves for cf in (0.05, 0.25, 0.45)]
    assert sizes[0] < sizes[1] < sizes[2]


# --------------------------------------------------------------------------- the former implementation


def former(tree, splitter, w, **options):
    """The former Python implementation (tests/error_based_oracle.py), with room for its
    recursion on deeper trees."""
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        if options.pop("prune", True):
            return oracle.error_based_prune(tree, splitter, w, **options)
        return oracle.collapse_tree(tree, splitter, w, **options)
    finally:
        sys.setrecursionlimit(limit)


def assert_same_pruning(tree, splitter, w, release8):
    """Every variant of the pass gives the former implementation's tree, bit for bit: raising on
    and off, collapse on and off, and collapse alone."""
    for raising in (True, False):
        for collapse in (False, True):
            options = dict(confidence=0.25, subtree_raising=raising, collapse=collapse,
                           release8=release8)
            new = error_based_prune(tree, splitter, w, **options)
            assert new == former(tree, splitter, w, **options), options
    assert collapse_tree(tree, splitter, w, release8=release8) == \
        former(tree, splitter, w, prune=False, release8=release8)


@pytest.mark.parametrize("release8", [True, False])
@pytest.mark.parametrize("name", DATASETS)
def test_same_trees_as_the_former_implementation_on_weka_files(name, release8):
    """The grown trees of the Weka files (missing values in labor, vote, breast-cancer, soybean),
    pruned with unit weights and with whole weights (0 to 3: the exact sums of the incremental
    raising estimate), and J48's own unpruned tree."""
    g, model, Xe, yc, splitter = j48_setting(name, release8=release8)
    for w in (np.ones(len(yc)), np.random.default_rng(1).integers(0, 4, len(yc)).astype(float)):
        grown = build_tree(Xe, yc, w, model.schema_.kinds_array, model.schema_.n_categories,
                           len(model.classes_), model._policy())
        assert_same_pruning(grown, splitter, w, release8)
    weka = tree_from_weka(g["unpruned_tree"]["parsed"], model.schema_, len(model.classes_))
    assert_same_pruning(weka, splitter, np.ones(len(yc)), release8)


def random_table(seed: int, n: int):
    """A table with numeric and categorical columns, missing cells in both, and a noisy target."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": np.round(rng.normal(size=n), 1), "b": rng.integers(0, 4, n).astype(str),
                      "c": rng.random(n), "d": rng.integers(0, 7, n).astype(str)})
    X.loc[rng.random(n) < 0.15, "a"] = np.nan
    X.loc[rng.random(n) < 0.1, "b"] = None
    X.loc[rng.random(n) < 0.05, "c"] = np.nan
    X.loc[rng.random(n) < 0.1, "d"] = None
    score = X["a"].fillna(0) + (X["b"] == "1") - (X["d"] == "3") + rng.normal(size=n)
    y = np.select([score > 1, score > -0.5], ["p", "q"], "r")
    return X, y


@pytest.mark.parametrize("release8", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_same_trees_as_the_former_implementation_on_random_trees(seed, release8):
    """Random tables with missing values, weights with zeros and fractions, and trees grown on
    other rows than those that prune them (empty nodes, much raising, fractions recomputed)."""
    X, y = random_table(seed, 400)
    rng = np.random.default_rng(seed + 100)
    model = C45Classifier(pruning=None, release8=release8).fit(X, y)
    Xe = model._encode(X)
    yc = np.searchsorted(model.classes_, y).astype(np.int64)
    schema = model.schema_
    splitter = make_splitter(Xe, yc, schema.kinds_array, schema.n_categories, 3, model._policy())
    weights = [np.where(rng.random(400) < 0.1, 0.0, rng.integers(1, 4, 400) / 2),
               np.where(rng.random(400) < 0.1, 0.0, 1.0 + rng.random(400)),
               np.ones(400)]
    for w in weights:
        grown = build_tree(Xe, yc, w, schema.kinds_array, schema.n_categories, 3, model._policy())
        assert_same_pruning(grown, splitter, w, release8)
        other = rng.choice(400, size=250, replace=True)  # grown on a bootstrap sample
        grown = build_tree(Xe[other], yc[other], w[other], schema.kinds_array,
                           schema.n_categories, 3, model._policy())
        assert_same_pruning(grown, splitter, w, release8)


# --------------------------------------------------------------------------- very deep trees


def test_deep_staircase_as_the_former_implementation():
    """A staircase 600 tests deep (the former recursion needs its limit raised) is pruned as the
    former implementation prunes it, with release 8 and without."""
    tree, X = staircase(600)
    w = np.ones(len(X))
    for release8 in (False, True):
        splitter = make_splitter(X, staircase_classes(600), np.array([0]), np.array([0]), 2,
                                 C45Classifier(release8=release8)._policy())
        assert_same_pruning(tree, splitter, w, release8)


def test_staircase_10000_deep():
    """Depth 10^4 (no recursion, and memory in proportion to the rows). Worked by hand: the lower
    half holds class 0 only, and every subtree there becomes a leaf (n (1 - 0.25^(1/n)) < 1.39
    errors, below the 1.0 per pure pair leaf that any split adds). Above it the pairs alternate:
    a node as a leaf would hold about as many errors as the subtree has pair leaves, plus the
    pessimistic margin, and raising the rest of the staircase mixes two pairs in one leaf
    (errors(4, 2) = 3.2 for 1.0 + 1.0), so every upper test stays: 5000 tests, their 5000 pair
    leaves and one leaf of 2 x 5001 rows of class 0."""
    depth = 10_000
    tree, X = staircase(depth)
    rows = TrainingRows(X, staircase_classes(depth), 2)
    w = np.ones(len(X))
    half = depth // 2
    for raising in (True, False):
        pruned = error_based_prune(tree, rows, w, subtree_raising=raising)
        assert pruned.node_count == 2 * half + 1 and pruned.max_depth == half
        np.testing.assert_array_equal(pruned.threshold[pruned.kind == THRESHOLD],
                                      2 * np.arange(half) + 1.5)
        leaves = pruned.value[pruned.kind == LEAF]
        expected = [[2, 0] if p % 2 == 0 else [0, 2] for p in range(half)] + [[2 * (half + 1), 0]]
        assert sorted(map(tuple, leaves)) == sorted(map(tuple, expected))
    # release 8's collapse: the lower half makes no training error below any of its nodes
    collapsed = collapse_tree(tree, rows, w)
    assert collapsed.node_count == 2 * half + 1


@pytest.mark.parametrize("release8", [False, True])
def test_python_calls_do_not_grow_with_the_tree(release8):
    """Issue 11: a pass makes as many Python calls on a tree of 4,001 nodes as on one of 101."""
    counts = []
    for depth in (50, 2000):
        tree, X = staircase(depth)
        rows = TrainingRows(X, staircase_classes(depth), 2)
        w = np.ones(len(X))
        passes = [(error_based_prune, dict(release8=release8, collapse=release8)),
                  (error_based_prune, dict(subtree_raising=False, release8=release8)),
                  (collapse_tree, dict(release8=release8))]
        for f, options in passes:
            f(tree, rows, w, **options)  # numba compiles (or loads) the kernels on a first call
        counts.append([python_calls(f, tree, rows, w, **options) for f, options in passes])
    assert counts[0] == counts[1]


@pytest.mark.parametrize("release8", [False, True])
def test_a_fit_gives_the_unpruned_tree_up_before_pruning(monkeypatch, release8):
    """Issue 11, item 9: a fit prunes the unpruned tree's own tests in place and keeps no other
    reference to that tree, so its other arrays are freed before the pruning's records are made
    (no Tree is alive when the pruning starts). Pruning a tree given up gives the tree that
    pruning a copy gives, and ``error_based_prune`` of a Tree leaves that tree as it was."""
    import copy
    import weakref

    from rootwise import estimators
    from rootwise.prune import error_based

    X, y = random_table(3, 400)
    seen = {}

    def given_up(tree):
        seen["unpruned"], seen["tree"] = copy.deepcopy(tree), weakref.ref(tree)
        return error_based.given_up(tree)

    def run(grown, *args, **kwargs):
        seen["alive"] = seen["tree"]() is not None
        return real_run(grown, *args, **kwargs)

    real_run = error_based._run
    monkeypatch.setattr(estimators, "given_up", given_up)
    monkeypatch.setattr(error_based, "_run", run)
    model = C45Classifier(release8=release8).fit(X, y)
    assert seen["alive"] is False
    unpruned = seen["unpruned"]
    kept = copy.deepcopy(unpruned)
    rows = TrainingRows(model._encode(X), np.searchsorted(model.classes_, y).astype(np.int64),
                        len(model.classes_))
    pruned = error_based_prune(unpruned, rows, np.ones(len(y)), collapse=release8,
                               release8=release8)
    assert unpruned == kept
    assert pruned == model.tree_
    assert pruned.node_count < unpruned.node_count  # the pruning did prune
