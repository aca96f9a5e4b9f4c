"""The node kernels of rootwise.engine.candidates and rootwise.engine.partition, which replaced numpy
code in the splitter, the builder and C4.5's pruning: checked against that numpy code, bit for bit
(the trees must not change), on random data with ties, missing values, -0.0 and repeated rows."""

import numpy as np
import pytest

from rootwise._config import CATEGORICAL, CONTINUOUS, ENTROPY, GINI, MULTIWAY, THRESHOLD
from rootwise.engine.candidates import (
    category_tables,
    choose,
    dense_ranks,
    evaluate_node,
    node_statistics,
    numpy_sum,
    row_sums,
    sorted_known,
    stable_order,
    total_and_errors,
)
from rootwise.engine.criteria import impurity
from rootwise.engine.partition import branch_of_rows, split_rows
from rootwise.engine.release8 import choose as release8_choose
from rootwise.engine.release8 import split_point, split_point_sorted
from rootwise.engine.stats import category_table, class_counts


def _same(a, b) -> bool:
    """Equal arrays, NaN where NaN, and the same sign of zero."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True) and \
        np.array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("seed", range(20))
def test_sums_are_numpys_bit_for_bit(seed):
    """numpy sums in blocks of 8 and pairwise above 128 values; the kernels must do the same."""
    rng = np.random.default_rng(seed)
    for n in list(range(0, 20)) + [127, 128, 129, 255, 256, 1000, int(rng.integers(2, 300_000))]:
        a = rng.random(n) * rng.choice([1.0, 1e-3, 1e5], n)
        assert numpy_sum(a) == a.sum()
    for shape in [(1, 3), (21, 3), (5, 19), (11, 19), (2, 200), (40, 7)]:
        t = rng.random(shape) * rng.choice([1.0, 1e-3, 1e5], shape)
        assert _same(row_sums(t), t.sum(axis=1))
        assert numpy_sum(t.ravel()) == t.sum()
    counts = rng.random(9) * 3
    n, e = total_and_errors(counts)
    assert n == counts.sum() and e == counts.sum() - counts.max()


@pytest.mark.parametrize("seed", range(10))
def test_stable_order_is_a_stable_argsort(seed):
    rng = np.random.default_rng(seed)
    for m in [0, 1, 5, 32, 33, 100, 5000]:
        top = int(rng.choice([1, 7, 3000, 2**22, 2**31 - 1]))
        keys = rng.integers(0, top, m)
        order = stable_order(keys, int(keys.max()) if m else 0)
        assert np.array_equal(order, np.argsort(keys, kind="stable"))


def _column(rng, n):
    kind = int(rng.integers(4))
    if kind == 0:
        col = rng.integers(0, int(rng.integers(1, 30)), n).astype(float)
    elif kind == 1:
        col = rng.normal(size=n)
    elif kind == 2:
        col = np.round(rng.normal(size=n), 1)
    else:
        col = rng.choice([0.0, -0.0, 1e-300, -1e-300, 5.0, 2.5], n)
    col[rng.random(n) < 0.15] = np.nan
    return col


@pytest.mark.parametrize("seed", range(30))
def test_sorted_known_is_numpys_stable_sort(seed):
    """The known rows of a node by value, equal values in node order (what np.argsort(kind=
    "stable") gave), rows repeated as C4.5 repeats them down several branches."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    X = np.stack([rng.random(n), _column(rng, n)], axis=1)
    idx = rng.permutation(n)[: int(rng.integers(0, n + 1))]
    idx = np.concatenate([idx, idx[: len(idx) // 3]])
    w = rng.random(len(idx))
    y = rng.integers(0, 3, n)
    xs, ys, ws = sorted_known(X, dense_ranks(X[:, 1]), 1, y, idx, w)
    values = X[idx, 1]
    known = ~np.isnan(values)
    order = np.argsort(values[known], kind="stable")
    assert _same(xs, values[known][order])
    assert np.array_equal(ys, y[idx[known][order]])
    assert np.array_equal(ws, w[known][order])


def test_dense_ranks_make_equal_values_one_key():
    ranks = dense_ranks(np.array([0.5, -0.0, np.nan, 0.0, 0.5, -2.0]))
    assert ranks.tolist() == [2, 1, -1, 1, 2, 0]


@pytest.mark.parametrize("seed", range(20))
def test_split_point_sorted_is_the_row_order_scan(seed):
    """J48's split point by binary search, including values within 1e-6 of each other (where the
    first met wins) and zeros of either sign."""
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, -0.0, 1.0, 1.0000005, 1.000001, 1.0000015, 2.0, 0.833335, 0.8333355,
                     np.nan, -1e-7, 1e-7, 3.5])
    for _ in range(300):
        col = rng.choice(pool, int(rng.integers(1, 30)))
        distinct = np.unique(col[~np.isnan(col)])
        for point in [rng.normal(1, 1), 0.0, -0.0, 1.0, 1.0000005, float(rng.choice(col))]:
            assert _same(split_point_sorted(distinct, col, point), split_point(col, point))


def _old_choose(gain, ratio, admissible, by_ratio):
    """Splitter.select as it was written with numpy, on arrays."""
    pool = np.flatnonzero(admissible)
    if len(pool) == 0:
        return -1, 0.0
    if by_ratio:
        average = float(np.mean(gain[pool]))
        pool = pool[gain[pool] >= average - 1e-12]
    scores = ratio[pool] if by_ratio else gain[pool]
    best = int(np.flatnonzero(scores >= scores.max() - 1e-12)[0])
    return int(pool[best]), float(scores[best])


def _old_release8_choose(gain, ratio, admissible, in_average):
    pool = admissible & in_average
    if not pool.any():
        return -1, 0.0
    average = float(np.sum(gain[pool])) / int(pool.sum())
    best, best_ratio = -1, 0.0
    for i in range(len(gain)):
        if admissible[i] and gain[i] >= average - 1e-3 and ratio[i] - best_ratio > 1e-6:
            best, best_ratio = i, float(ratio[i])
    return best, best_ratio


@pytest.mark.parametrize("seed", range(20))
def test_choose_is_the_numpy_selection(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        n = int(rng.integers(0, 12))
        gain = np.round(rng.random(n), int(rng.integers(1, 4)))  # ties
        ratio = np.round(rng.random(n), int(rng.integers(1, 4)))
        admissible = rng.random(n) < 0.8
        in_average = rng.random(n) < 0.8
        for by_ratio in (False, True):
            i, s = choose(gain, ratio, admissible, by_ratio, 1e-12)
            assert (int(i), float(s)) == _old_choose(gain, ratio, admissible, by_ratio)
        i, s = release8_choose(gain, ratio, admissible, in_average, 1e-3)
        assert (int(i), float(s)) == _old_release8_choose(gain, ratio, admissible, in_average)


def _old_partition(x, kind, threshold, boc, idx, w, receives_lost, r_given=None):
    """Splitter.branch_of_rows and partition as they were written with numpy."""
    out = np.full(len(idx), -1, dtype=np.int64)
    known = ~np.isnan(x)
    if kind == THRESHOLD:
        out[known] = np.where(x[known] <= threshold, 0, 1)
    else:
        codes = x[known].astype(np.int64)
        ok = (codes >= 0) & (codes < len(boc))
        branch = np.full(len(codes), -1, dtype=np.int64)
        branch[ok] = boc[codes[ok]]
        out[known] = branch
    n_b = 2 if kind == THRESHOLD else int(boc.max()) + 1
    known_w = np.bincount(out[out >= 0], weights=w[out >= 0], minlength=n_b)
    total = known_w.sum()
    r = known_w / total if total > 0 else np.full(n_b, 1.0 / n_b)
    lost = out < 0
    parts = []
    for b in range(n_b):
        mask = out == b
        pi, pw = idx[mask], w[mask]
        if receives_lost(r)[b] and lost.any():
            pi = np.concatenate([pi, idx[lost]])
            pw = np.concatenate([pw, w[lost] * r[b]])
        parts.append((pi, pw))
    return out, known_w, r, parts


@pytest.mark.parametrize("seed", range(30))
def test_partition_kernels_are_the_numpy_partition(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    k = int(rng.integers(2, 6))
    codes = rng.integers(-1, k, n).astype(float)  # -1: a category unseen in training
    codes[rng.random(n) < 0.2] = np.nan
    X = np.stack([_column(rng, n), codes], axis=1)
    idx = rng.integers(0, n, int(rng.integers(0, 2 * n)))
    w = np.where(rng.random(len(idx)) < 0.1, 0.0, rng.random(len(idx)))
    for j, kind, threshold, boc in [(0, THRESHOLD, float(np.nanmedian(X[:, 0]) if np.any(
            ~np.isnan(X[:, 0])) else 0.0), np.zeros(0, dtype=np.int32)),
            (1, MULTIWAY, np.nan, np.arange(k, dtype=np.int32))]:
        for rule in (lambda r: np.ones(len(r), bool), lambda r: r > 0.3):
            branch_old, known_w_old, r, parts = _old_partition(X[idx, j], kind, threshold, boc, idx,
                                                               w, rule)
            n_b = len(r)
            branch, known_w = branch_of_rows(X, j, kind, threshold, boc, idx, w, n_b)
            assert np.array_equal(branch, branch_old) and _same(known_w, known_w_old)
            out_idx, out_w, offsets = split_rows(idx, w, branch, r, rule(r))
            for b, (pi, pw) in enumerate(parts):
                assert np.array_equal(out_idx[offsets[b]:offsets[b + 1]], pi)
                assert _same(out_w[offsets[b]:offsets[b + 1]], pw)


@pytest.mark.parametrize("seed", range(10))
def test_node_statistics_and_category_tables(seed):
    rng = np.random.default_rng(seed)
    n, n_classes = int(rng.integers(1, 300)), int(rng.integers(1, 5))
    y = rng.integers(0, n_classes, n)
    idx = rng.integers(0, n, n)
    w = rng.random(n)
    for criterion in (ENTROPY, GINI):
        counts, total, imp, pure = node_statistics(y, idx, w, n_classes, criterion)
        expected = class_counts(y, idx, w, n_classes)
        assert _same(counts, expected) and total == expected.sum()
        assert imp == impurity(expected, criterion) and pure == (np.count_nonzero(expected) <= 1)
    k = np.array([3, 0, 5, 2])
    kinds = np.array([CATEGORICAL, CONTINUOUS, CATEGORICAL, CATEGORICAL])
    X = np.stack([rng.integers(0, max(m, 1), n).astype(float) for m in k], axis=1)
    X[rng.random(X.shape) < 0.2] = np.nan
    features = np.array([0, 1, 3])
    tables, offsets = category_tables(X, y, idx, w, features, kinds, k, n_classes)
    for f, j in enumerate(features):
        if kinds[j] == CATEGORICAL:
            got = tables[offsets[f]:offsets[f + 1]].reshape(k[j] + 1, n_classes)
            assert _same(got, category_table(X, j, y, idx, w, k[j], n_classes))
        else:
            assert offsets[f] == offsets[f + 1]
    found = evaluate_node(X, np.stack([dense_ranks(X[:, 1])]), np.array([-1, 0, -1, -1]), features,
                          kinds, k, y, idx, w, float(w.sum()), n_classes, ENTROPY, 2.0, True)[0]
    assert found.shape == (3,)


@pytest.mark.parametrize("release8", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_subtree_routing_is_the_recursion(seed, release8):
    """The former pruning's estimate of a subtree receiving a parent's rows (``errors_for_branch``
    in tests/error_based_oracle.py, one ``subtree_leaf_counts`` call through the whole subtree)
    equals the recursion that sends the rows node by node."""
    import pandas as pd
    from error_based_oracle import C45Tree

    from rootwise import C45Classifier
    from rootwise.reference.splitter import NodeData
    from rootwise.reference.splitters import make_splitter

    rng = np.random.default_rng(seed)
    n = 300
    X = pd.DataFrame({"a": np.round(rng.normal(size=n), 1), "b": rng.integers(0, 4, n).astype(str),
                      "c": rng.random(n)})
    X.loc[rng.random(n) < 0.15, "a"] = np.nan
    X.loc[rng.random(n) < 0.15, "b"] = None
    y = np.where(X["a"].fillna(0) + (X["b"] == "1") + rng.normal(size=n) > 0.5, "p", "q")
    w = np.where(rng.random(n) < 0.1, 0.0, rng.integers(1, 3, n) * 0.5)
    model = C45Classifier(pruning=None, release8=release8).fit(X, y, sample_weight=w)
    from rootwise.input import encode, tables

    Xe = encode.encode(tables.as_frame(X), model.schema_)
    yc = np.searchsorted(model.classes_, y)
    policy = model._policy()
    sp = make_splitter(Xe, yc, model.schema_.kinds_array, model.schema_.n_categories, 2, policy)
    state = C45Tree(sp, 0.25, True, release8)
    root = state.load(model.tree_, 0, NodeData(np.arange(n), w.astype(float)))

    def by_recursion(node, data):
        if node.children is None:
            return state.leaf_errors(state.counts(data))
        _, parts = state.send(node, data)
        return sum(by_recursion(c, p) for c, p in zip(node.children, parts, strict=True))

    stack, checked = [root], 0
    while stack:
        node = stack.pop()
        if node.children is None:
            continue
        for child in node.children:
            assert state.errors_for_branch(child, node.data) == by_recursion(child, node.data)
            checked += 1
            stack.append(child)
    assert checked > 3
