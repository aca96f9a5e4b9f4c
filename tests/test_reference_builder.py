"""The growth loop (rootwise.reference.builder) against the naive ID3, and the textbooks' trees."""

import math
import subprocess
import sys
import textwrap
from collections import Counter

import naive
import numpy as np
import pytest

import rootwise
from rootwise._config import CATEGORICAL, LEAF, MULTIWAY
from rootwise._policy import Policy
from rootwise.reference.builder import build_tree

# ----------------------------------------------------------------------------- helpers


def assert_same_tree(tree, expected, node=0, where="root"):
    """The flat tree below ``node`` has the naive tree's shape: same feature tested, children in
    category-code order, same (weighted) class counts at every node."""
    np.testing.assert_allclose(tree.value[node], expected["counts"], rtol=1e-12, atol=0, err_msg=where)
    if "children" not in expected:
        assert tree.kind[node] == LEAF, f"{where}: expected a leaf ({expected['stop']})"
        return
    assert tree.kind[node] == MULTIWAY, f"{where}: expected a split on x{expected['feature']}"
    f = int(tree.feature[node])
    assert f == expected["feature"], where
    kids = expected["children"]
    assert tree.n_children[node] == len(kids), where
    np.testing.assert_array_equal(tree.branch_of_category(node), np.arange(len(kids)), err_msg=where)
    for b, kid in enumerate(kids):
        assert_same_tree(tree, kid, int(tree.first_child[node]) + b, f"{where}/x{f}={b}")


def random_table(rng):
    """5-60 rows, 1-6 integer columns with 2-5 values (some constant), 2-4 classes partly explained
    by two columns, duplicated rows with conflicting labels, weights with zeros and fractions."""
    n_rows = int(rng.integers(5, 61))
    n_features = int(rng.integers(1, 7))
    n_classes = int(rng.integers(2, 5))
    n_values = rng.integers(2, 6, size=n_features)
    X = np.column_stack([rng.integers(0, k, size=n_rows) for k in n_values])
    X[:, rng.random(n_features) < 0.15] = 1  # constant columns
    a, b = rng.integers(0, n_features, size=2)
    y = (X[:, a] + 2 * X[:, b]) % n_classes
    noisy = rng.random(n_rows) < rng.choice([0.0, 0.2, 0.6])
    y[noisy] = rng.integers(0, n_classes, size=int(noisy.sum()))
    dup = rng.integers(0, n_rows, size=int(rng.integers(0, n_rows // 3 + 1)))
    X[rng.integers(0, n_rows, size=len(dup))] = X[dup]  # copies of rows; their labels differ at random
    style = rng.integers(0, 3)
    if style == 0:
        w = np.ones(n_rows)
    elif style == 1:
        w = rng.integers(0, 4, size=n_rows).astype(np.float64)
    else:
        w = np.where(rng.random(n_rows) < 0.2, 0.0, rng.random(n_rows) * 3)
    if w.sum() <= 0:
        w[0] = 1.0
    # values as the user sees them: arbitrary integers (ID3 treats each distinct one as a category)
    offsets = rng.integers(-5, 50, size=n_features)
    return X * 3 + offsets, y, w


def naive_codes(X_train, X):
    """Per column, the code of each value among the sorted training values (-1 if never seen)."""
    codes = np.empty(X.shape, dtype=np.int64)
    n_categories = []
    for j in range(X.shape[1]):
        values = np.unique(X_train[:, j])
        n_categories.append(len(values))
        pos = np.searchsorted(values, X[:, j]).clip(0, len(values) - 1)
        codes[:, j] = np.where(values[pos] == X[:, j], pos, -1)
    return codes, n_categories


def random_params(rng):
    return dict(
        max_depth=[None, None, 1, 2, 3][int(rng.integers(5))],
        min_samples_split=[2, 2, 3, 6, 0.2][int(rng.integers(5))],
        min_samples_leaf=[1, 1, 2, 3, 0.1][int(rng.integers(5))],
        epsilon=[0.0, 0.0, 0.05, 0.3][int(rng.integers(4))],
    )


def check_against_naive(rng, params):
    """Fit ID3Classifier and the naive ID3 on one random table; compare trees and predictions.
    Returns the naive tree (for coverage bookkeeping)."""
    X, y, w = random_table(rng)
    # the estimator counts rows: a fraction of them is ceil(f n) (at least 2 for a split)
    n = len(y)
    split, leaf = params.get("min_samples_split", 2), params.get("min_samples_leaf", 1)
    rows = dict(params, min_samples_split=max(2, math.ceil(split * n)) if split < 1 else split,
                min_samples_leaf=math.ceil(leaf * n) if leaf < 1 else leaf, count_rows=True)
    positive = w[w > 0]
    if rows["min_samples_leaf"] > 1 and np.any(positive != positive[0]):
        with pytest.raises(ValueError, match="ID3Classifier: min_samples_leaf=.* counts rows"):
            rootwise.ID3Classifier(**params).fit(X, y, sample_weight=w)
        w = np.where(w > 0, 1.0, 0.0)  # which ID3 counts with equal weights only
    model = rootwise.ID3Classifier(**params).fit(X, y, sample_weight=w)
    codes, n_categories = naive_codes(X, X)
    classes, yc = np.unique(y, return_inverse=True)
    expected = naive.naive_id3(codes, yc, w, n_categories, len(classes), **rows)
    assert_same_tree(model.tree_, expected)
    assert model.get_depth() == naive.naive_depth(expected)
    assert model.tree_.node_count == naive.naive_n_nodes(expected)

    # predictions on the training rows and on fresh rows, some with values never seen in training
    fresh = X[rng.integers(0, len(X), size=40)] + rng.integers(-1, 2, size=(40, X.shape[1])) * 3
    fresh[rng.random(fresh.shape) < 0.1] = 999
    for rows in (X, fresh):
        proba = model.predict_proba(rows)
        want = naive.naive_predict_proba(expected, naive_codes(X, rows)[0])
        np.testing.assert_allclose(proba, want, rtol=1e-12, atol=0)
        np.testing.assert_array_equal(model.predict(rows), classes[np.argmax(want, axis=1)])
    return expected


def _leaves(tree):
    if "children" not in tree:
        yield tree
    else:
        for c in tree["children"]:
            yield from _leaves(c)


def _nodes(tree):
    yield tree
    for c in tree.get("children", ()):
        yield from _nodes(c)


# ----------------------------------------------------------------------------- against naive ID3


def test_id3_matches_naive_on_200_tables():
    rng = np.random.default_rng(20240101)
    stops = Counter()
    for _ in range(200):
        tree = check_against_naive(rng, {})
        stops.update(leaf["stop"] for leaf in _leaves(tree))
    # the tables really exercise the three stopping cases of TreeGenerate
    assert {"pure", "no attribute", "empty branch"} <= set(stops)


def test_id3_matches_naive_with_limits():
    rng = np.random.default_rng(7)
    stops, rejected = Counter(), 0
    for _ in range(200):
        params = random_params(rng)
        tree = check_against_naive(rng, params)
        stops.update(leaf["stop"] for leaf in _leaves(tree))
        rejected += sum("rejected_by_min_samples_leaf" in n for n in _nodes(tree))
    # every limit made some node a leaf, and min_samples_leaf removed some candidates
    assert set(stops) == {"pure", "no attribute", "empty branch", "max_depth", "min_samples_split",
                          "epsilon"}
    assert rejected > 0


@pytest.mark.parametrize("seed", range(30))
def test_build_tree_matches_naive_with_unused_categories(seed):
    """build_tree on codes directly, with categories that no row has (e.g. a pandas categorical's
    unused levels): they are branches too, empty ones, which take the parent's counts."""
    rng = np.random.default_rng(seed)
    n_rows, n_features, n_classes = int(rng.integers(5, 50)), int(rng.integers(1, 5)), int(rng.integers(2, 7))
    n_categories = rng.integers(2, 8, size=n_features)
    X = np.column_stack([rng.integers(0, max(k - 2, 1), size=n_rows) for k in n_categories])
    y = rng.integers(0, n_classes, size=n_rows)
    w = np.where(rng.random(n_rows) < 0.1, 0.0, rng.random(n_rows) + 0.5)
    w[0] = 1.0
    params = random_params(rng)
    policy = Policy(criterion="entropy", selection="gain", epsilon=params["epsilon"],
                    max_depth=params["max_depth"], min_samples_split=params["min_samples_split"],
                    min_samples_leaf=params["min_samples_leaf"])
    tree = build_tree(X.astype(np.float64), y.astype(np.int64), w,
                      np.full(n_features, CATEGORICAL, dtype=np.int64), n_categories.astype(np.int64),
                      n_classes, policy)
    expected = naive.naive_id3(X, y, w, n_categories, n_classes, **params)
    assert_same_tree(tree, expected)
    unseen = rng.integers(-1, n_categories.max() + 1, size=(30, n_features))
    for rows in (X, unseen):
        values = tree.value[tree.apply(rows.astype(np.float64))]
        np.testing.assert_allclose(values / values.sum(axis=1, keepdims=True),
                                   naive.naive_predict_proba(expected, rows), rtol=1e-12, atol=0)


def test_node_records_are_consistent():
    rng = np.random.default_rng(3)
    X, y, w = random_table(rng)
    model = rootwise.ID3Classifier().fit(X, y, sample_weight=w)
    t = model.tree_
    assert t.weighted_n_node_samples[0] == pytest.approx(w.sum(), rel=1e-12)
    assert t.n_node_samples[0] == len(X)
    for node in np.flatnonzero(t.kind != LEAF):
        kids = list(t.children(int(node)))
        # rows (all of them, zero weights included) and mass are shared out among the branches
        assert t.n_node_samples[kids].sum() == t.n_node_samples[node]
        assert t.weighted_n_node_samples[kids].sum() == pytest.approx(t.weighted_n_node_samples[node])
        assert t.branch_fraction[kids].sum() == pytest.approx(1.0)
        # ID3 tests an attribute at most once on a path
        ancestors, a = [], int(node)
        while t.parent[a] >= 0:
            a = int(t.parent[a])
            ancestors.append(int(t.feature[a]))
        assert t.feature[node] not in ancestors


def test_build_tree_refuses_zero_total_weight():
    X = np.zeros((3, 1))
    with pytest.raises(ValueError, match="weights sum to zero"):
        build_tree(X, np.array([0, 1, 0]), np.zeros(3), np.array([CATEGORICAL]), np.array([1]), 2,
                   Policy())


# ----------------------------------------------------------------------------- the textbooks' trees


def describe(model, node=0):
    """The tree as nested dicts {attribute: {category: subtree}}, leaves as their majority class."""
    t = model.tree_
    if t.kind[node] == LEAF:
        return model.classes_[int(np.argmax(t.value[node]))]
    f = int(t.feature[node])
    cats = model.schema_.categories[f]
    return {model.schema_.feature_names[f]: {
        cats[code]: describe(model, int(t.first_child[node]) + int(slot))
        for code, slot in enumerate(t.branch_of_category(node))
    }}


def gains_at(model, X, y, node):
    table = rootwise.explain(X, y, model, node=node)
    return dict(zip(table["attribute"], table["gain"], strict=True))


def test_lagou_case1():
    """Seed 004, case 1: H = 0.8113; g(x1) = g(x2) = 0.8113 - 0.5 = 0.3113, g(x3) = 0. x1 and x2 tie
    and the lower column, x1, is tested first; x1 = 0 is pure (class 0); under x1 = 1 the classes are
    1 and 0 and x2 separates them (gain 1)."""
    X, y = rootwise.datasets.load_lagou("case1", return_X_y=True)
    model = rootwise.ID3Classifier().fit(X, y)
    gains = gains_at(model, X, y, 0)
    assert round(gains["x1"], 4) == 0.3113
    assert gains["x2"] == gains["x1"]
    assert gains["x3"] == 0.0
    assert describe(model) == {"x1": {0: 0, 1: {"x2": {0: 0, 1: 1}}}}
    assert gains_at(model, X, y, 2) == {"x2": 1.0, "x3": 0.0}


def test_lagou_case2():
    """Seed 004, case 2 (XOR of x1 and x2): every root gain is 0; x1 wins the tie, then x2 splits
    both halves with gain 1."""
    X, y = rootwise.datasets.load_lagou("case2", return_X_y=True)
    model = rootwise.ID3Classifier().fit(X, y)
    assert gains_at(model, X, y, 0) == {"x1": 0.0, "x2": 0.0, "x3": 0.0}
    assert describe(model) == {"x1": {0: {"x2": {0: 0, 1: 1}}, 1: {"x2": {0: 1, 1: 0}}}}
    assert gains_at(model, X, y, 1) == {"x2": 1.0, "x3": 0.0}
    assert gains_at(model, X, y, 2) == {"x2": 1.0, "x3": 0.0}


def test_lagou_exercise():
    """Seed 004's exercise, rows (x1, x2, x3 | y): (1,1,1|1) (0,0,1|0) (0,1,1|1) (1,0,1|1).
    H(D) = -(3/4 log2 3/4 + 1/4 log2 1/4) = 0.8113.
    x1: x1=1 -> {1, 1}, H 0; x1=0 -> {0, 1}, H 1; H(y|x1) = 0.5, gain 0.3113.
    x2: x2=1 -> {1, 1}, H 0; x2=0 -> {0, 1}, H 1; gain 0.3113 too. x3 is constant: gain 0.
    Tie -> x1. x1 = 1 is pure (class 1). Under x1 = 0: (x2=0 | 0), (x2=1 | 1): H 1, x2's gain 1.
    Tree: x1 = 0 -> x2 (0 -> 0, 1 -> 1); x1 = 1 -> 1."""
    X, y = rootwise.datasets.load_lagou("exercise", return_X_y=True)
    model = rootwise.ID3Classifier().fit(X, y)
    gains = gains_at(model, X, y, 0)
    assert round(gains["x1"], 4) == round(gains["x2"], 4) == 0.3113
    assert gains["x3"] == 0.0
    assert describe(model) == {"x1": {0: {"x2": {0: 0, 1: 1}}, 1: 1}}
    assert gains_at(model, X, y, 1) == {"x2": 1.0, "x3": 0.0}


def test_loan_application_tree():
    """Seed 002 §2.2: the root tests 有自己的房子 (gain 0.420 against 0.083 / 0.324 / 0.363); its 是
    branch is pure (是); under 否, 有工作 (gain 0.918 against 年龄 0.251, 信贷情况 0.474) decides."""
    X, y = rootwise.datasets.load_loan_application(return_X_y=True)
    model = rootwise.ID3Classifier().fit(X, y)
    assert describe(model) == {"有自己的房子": {"否": {"有工作": {"否": "否", "是": "是"}}, "是": "是"}}
    root = gains_at(model, X, y, 0)
    assert {k: round(v, 3) for k, v in root.items()} == {
        "年龄": 0.083, "有工作": 0.324, "有自己的房子": 0.420, "信贷情况": 0.363}
    second = gains_at(model, X, y, 1)  # node 1 is the 否 branch of the root
    assert set(second) == {"年龄", "有工作", "信贷情况"}
    assert abs(second["年龄"] - 0.251) <= 1e-3  # exact 0.2516; the seed subtracts rounded terms
    assert round(second["有工作"], 3) == 0.918
    assert round(second["信贷情况"], 3) == 0.474


def test_watermelon_2_0_tree():
    """Seed 000 figure 3 (the watermelon book's figure 4.4): the unpruned ID3 tree of data set 2.0."""
    X, y = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
    model = rootwise.ID3Classifier().fit(X, y)
    assert describe(model) == {"纹理": {
        "清晰": {"根蒂": {
            "蜷缩": "是",
            "稍蜷": {"色泽": {"青绿": "是", "乌黑": {"触感": {"硬滑": "是", "软粘": "否"}}, "浅白": "是"}},
            "硬挺": "否",
        }},
        "稍糊": {"触感": {"硬滑": "否", "软粘": "是"}},
        "模糊": "否",
    }}
    # root gains as printed in the watermelon book (§4.2.1); it subtracts rounded terms (色泽: exact
    # 0.1081, printed 0.109), so each is held to the printed value within 1e-3
    root = gains_at(model, X, y, 0)
    book = {"色泽": 0.109, "根蒂": 0.143, "敲声": 0.141, "纹理": 0.381, "脐部": 0.289, "触感": 0.006}
    assert set(root) == set(book)
    for name, g in book.items():
        assert abs(root[name] - g) <= 1e-3, name
    # under 纹理 = 清晰, 根蒂, 脐部 and 触感 tie at 0.458: the lowest column, 根蒂, is chosen
    clear = gains_at(model, X, y, 1)
    assert {k: round(v, 3) for k, v in clear.items()} == {
        "色泽": 0.043, "根蒂": 0.458, "敲声": 0.331, "脐部": 0.458, "触感": 0.458}
    # 浅白 under 清晰/稍蜷 has no rows: stopping case 3, the parent's distribution (1 否, 2 是)
    t = model.tree_
    empty = [n for n in range(t.node_count) if t.kind[n] == LEAF and t.weighted_n_node_samples[n] == 0]
    assert len(empty) == 1
    parent = int(t.parent[empty[0]])
    np.testing.assert_array_equal(t.value[empty[0]], t.value[parent])
    np.testing.assert_array_equal(t.value[parent], [1.0, 2.0])
    assert model.schema_.feature_names[t.feature[parent]] == "色泽"
    assert model.predict(X).tolist() == y.tolist()
    # nodes are numbered as they are allocated, growing depth-first and left to right (the
    # children of a node together): 0 纹理; 1-3 its branches; 4-6 under 清晰; 7-9 under 稍蜷; ...
    np.testing.assert_array_equal(t.feature, [3, 1, 5, -1, -1, 0, -1, -1, 5, -1, -1, -1, -1, -1])
    np.testing.assert_array_equal(t.parent, [-1, 0, 0, 0, 1, 1, 1, 5, 5, 5, 8, 8, 2, 2])


# ----------------------------------------------------------------------------- determinism


_FIT_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import rootwise
    X, y = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
    first = rootwise.ID3Classifier().fit(X, y).tree_.to_dict()
    rng = np.random.default_rng(11)
    Xr = rng.integers(0, 4, size=(60, 5))
    yr = rng.integers(0, 3, size=60)
    wr = rng.random(60)
    second = rootwise.ID3Classifier(min_weight_fraction_leaf=0.1).fit(Xr, yr, sample_weight=wr)
    second = second.tree_.to_dict()
    fitted = json.dumps([first, second])
""")


def test_fit_is_deterministic_in_process_and_across_processes():
    X, y = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
    assert rootwise.ID3Classifier().fit(X, y).tree_ == rootwise.ID3Classifier().fit(X, y).tree_
    runs = []
    for _ in range(2):
        namespace = {}
        exec(_FIT_SCRIPT, namespace)
        runs.append(namespace["fitted"])
    assert runs[0] == runs[1]
    # a fresh interpreter (new hash seeds, freshly loaded kernels) writes the same JSON
    run = subprocess.run([sys.executable, "-c", _FIT_SCRIPT + "print(fitted)"], capture_output=True,
                         text=True, check=True, timeout=300)
    assert run.stdout.strip() == runs[0]
