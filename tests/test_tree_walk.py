"""Routing kernels (rootwise.tree.walk) against the naive walk on random trees and rows."""

import naive
import numpy as np
import pytest

from rootwise._config import LEAF, MISSING_FRACTIONAL, MISSING_STOP, MULTIWAY, SUBSET, THRESHOLD
from rootwise.tree import NODE_FIELDS, Tree
from rootwise.tree.walk import apply_rows, path_rows


def random_tree(rng, n_categories, max_depth):
    """A random valid tree mixing threshold, multiway and subset tests; nodes allocated breadth-first
    so that each node's children are consecutive and come after it."""
    nodes = {name: [] for name in NODE_FIELDS}
    pool = []

    def new(parent, depth):
        for name, v in dict(feature=-1, kind=LEAF, threshold=np.nan, first_child=-1, n_children=0,
                            pool_offset=-1, missing_branch=MISSING_STOP, parent=parent, depth=depth,
                            impurity=0.0, n_node_samples=0, weighted_n_node_samples=0.0,
                            branch_fraction=1.0, surrogate_offset=-1,
                            n_surrogates=0, improvement=0.0).items():
            nodes[name].append(v)
        return len(nodes["kind"]) - 1

    queue = [new(-1, 0)]
    while queue:
        node = queue.pop(0)
        depth = nodes["depth"][node]
        if depth >= max_depth or (node > 0 and rng.random() < 0.3):
            continue
        f = int(rng.integers(len(n_categories)))
        k = int(n_categories[f])
        if k == 0:
            kind, n_children = THRESHOLD, 2
            nodes["threshold"][node] = float(rng.integers(-4, 5)) / 2  # on the grid rows are drawn from
        elif rng.random() < 0.5:
            kind, n_children = MULTIWAY, int(rng.integers(2, max(k, 2) + 1))
        else:
            kind, n_children = SUBSET, 2
        if kind != THRESHOLD:
            nodes["pool_offset"][node] = len(pool)
            pool.extend(int(b) for b in rng.integers(-1, n_children, size=k))
        nodes["missing_branch"][node] = int(rng.choice([MISSING_STOP, MISSING_FRACTIONAL,
                                                        int(rng.integers(n_children))]))
        nodes["feature"][node] = f
        nodes["kind"][node] = kind
        nodes["n_children"][node] = n_children
        nodes["first_child"][node] = len(nodes["kind"])
        queue.extend(new(node, depth + 1) for _ in range(n_children))
    n = len(nodes["kind"])
    value = rng.random((n, 3))
    return nodes, value, pool


def random_rows(rng, n_categories, n_rows):
    cols = []
    for k in n_categories:
        if k == 0:  # continuous: a half-integer grid, so that values hit thresholds exactly
            col = rng.integers(-6, 7, size=n_rows) / 2
        else:  # category codes, including -1 (unseen in training) and codes past the categories
            col = rng.integers(-1, k + 2, size=n_rows).astype(np.float64)
        col[rng.random(n_rows) < 0.15] = np.nan
        cols.append(col)
    return np.ascontiguousarray(np.column_stack(cols), dtype=np.float64)


@pytest.mark.parametrize("seed", range(40))
def test_routing_matches_naive(seed):
    rng = np.random.default_rng(seed)
    n_categories = [int(k) for k in rng.choice([0, 1, 2, 3, 5, 50], size=int(rng.integers(1, 5)))]
    nodes, value, pool = random_tree(rng, n_categories, max_depth=int(rng.integers(0, 6)))
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array(n_categories))
    X = random_rows(rng, n_categories, 200)
    paths = [naive.naive_route(row, nodes, pool, n_categories) for row in X]

    args = tree._args()  # the kernels' argument list, surrogate table included
    np.testing.assert_array_equal(apply_rows(X, *args), [p[-1] for p in paths])
    indptr, indices = path_rows(X, *args)
    np.testing.assert_array_equal(indptr, np.cumsum([0] + [len(p) for p in paths]))
    np.testing.assert_array_equal(indices, np.concatenate(paths))
    # the Tree methods are the same kernels behind the shape check
    np.testing.assert_array_equal(tree.apply(X), [p[-1] for p in paths])
    dense = tree.decision_path(X).toarray()
    expected = np.zeros_like(dense)
    for i, p in enumerate(paths):
        expected[i, p] = 1
    np.testing.assert_array_equal(dense, expected)


def test_routing_kinds_are_exercised():
    """The random trees above must really contain every kind and every kind of stop."""
    seen_kinds, stops = set(), set()
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n_categories = [int(k) for k in rng.choice([0, 1, 2, 3, 5, 50], size=int(rng.integers(1, 5)))]
        nodes, _, pool = random_tree(rng, n_categories, max_depth=int(rng.integers(0, 6)))
        seen_kinds.update(nodes["kind"])
        for row in random_rows(rng, n_categories, 200):
            end = naive.naive_route(row, nodes, pool, n_categories)[-1]
            if nodes["kind"][end] != LEAF:
                x = row[nodes["feature"][end]]
                stops.add("missing" if np.isnan(x) else "no branch")
    assert seen_kinds == {LEAF, THRESHOLD, MULTIWAY, SUBSET}
    assert stops == {"missing", "no branch"}
