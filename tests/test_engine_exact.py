"""The fast numba builder (``engine/grow.py``) grows exactly the reference builder's tree.

Reference = ``_builder``'s Python loop over the kernels, itself checked against ``tests/naive.py``
and scikit-learn. Structure (features, thresholds bit for bit, children, surrogates, missing-value
routing) must be identical; floating statistics may differ in the last bits because sums are
taken in another order.
"""

import numpy as np
import pytest
from compare import close

from rootwise import reference
from rootwise._policy import Policy
from rootwise.engine import exact
from rootwise.engine.dispatch import build_tree
from rootwise.tree import NODE_FIELDS, SURROGATE_FIELDS


def _policy(criterion, **kw):
    return Policy(criterion=criterion, selection="gain", categorical_split="subset",
                  numeric_as_category=False, missing="surrogate", **kw)


def _case(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(2, 250)), int(rng.integers(1, 6))
    # rounding makes tied values, so boundaries between equal values are exercised
    X = rng.normal(size=(n, d)).round(int(rng.integers(1, 4)))
    criterion = ("gini", "entropy", "squared_error")[seed % 3]
    if criterion == "squared_error":
        y, n_classes = X[:, 0] * 2 + rng.normal(size=n), 0
    else:
        y = ((X[:, 0] + rng.normal(size=n) > 0).astype(np.int64) + (X[:, -1] > 0.8)).astype(np.int64)
        n_classes = 3
    w = rng.integers(1, 4, size=n).astype(float) if seed % 2 else np.ones(n)
    policy = _policy(criterion, max_depth=(None, 3)[seed % 2],
                     min_samples_leaf=float(rng.integers(1, 4)),
                     min_samples_split=float(rng.integers(2, 6)),
                     min_impurity_decrease=(0.0, 0.01)[seed % 5 == 0],
                     max_surrogates=int(rng.integers(0, 6)))
    return X, y, w, n_classes, policy


@pytest.mark.parametrize("seed", range(120))
def test_fast_builder_grows_the_reference_tree(seed):
    X, y, w, n_classes, policy = _case(seed)
    kinds = np.zeros(X.shape[1], dtype=np.int64)
    n_cat = np.zeros(X.shape[1], dtype=np.int64)
    assert exact.applies(X, w, kinds, policy)
    fast = exact.grow_fast(X, y, w, n_cat, n_classes, policy)
    ref = reference.build_tree(X, y, w, kinds, n_cat, n_classes, policy)
    for name in NODE_FIELDS:
        assert close(getattr(fast, name), getattr(ref, name)), name
    np.testing.assert_array_equal(fast.threshold, ref.threshold)  # bit for bit
    assert close(fast.value, ref.value)
    for name in SURROGATE_FIELDS:
        assert close(fast.surrogates[name], ref.surrogates[name]), name
    # and the default entry point takes the fast path
    assert build_tree(X, y, w, kinds, n_cat, n_classes, policy) == fast


def test_fast_path_is_only_taken_where_it_applies():
    X = np.zeros((4, 2))
    w = np.ones(4)
    cont = np.zeros(2, dtype=np.int64)
    cart = _policy("gini")
    assert exact.applies(X, w, cont, cart)
    assert not exact.applies(X, w, np.array([0, 1]), cart)  # a categorical column
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    assert not exact.applies(X_nan, w, cont, cart)  # a missing cell
    assert not exact.applies(X, np.array([1.0, 0.0, 1.0, 1.0]), cont, cart)  # a zero weight
    assert not exact.applies(X, w, cont, _policy("gini", max_leaf_nodes=3))  # best-first
    assert exact.applies(X, w, cont, cart, n_classes=256)
    assert not exact.applies(X, w, cont, cart, n_classes=257)  # class codes travel as bytes
    assert not exact.applies(X, w, cont, _policy("squared_error", leaf_value="median"))
    c45 = Policy(criterion="entropy", selection="gain_ratio", categorical_split="multiway",
                 numeric_as_category=False, missing="fractional")
    assert not exact.applies(X, w, cont, c45)


@pytest.mark.skipif(__import__("numba").config.NUMBA_NUM_THREADS < 2, reason="one thread only")
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_parallel_and_serial_presort_search_and_partition_grow_one_tree(criterion, weighted):
    """Above PARALLEL_MIN_WORK rows x features the presort, the search and the partition run on
    numba's threads, below it on one: the tree must not depend on which."""
    import numba

    from rootwise.engine.grow import PARALLEL_MIN_WORK

    rng = np.random.default_rng(3)
    # root 4x the threshold: the root and its children (and grandchildren) take the parallel paths
    n, d = PARALLEL_MIN_WORK, 4
    X = rng.normal(size=(n, d)).round(2)
    if criterion == "squared_error":
        y, n_classes = X[:, 0] + rng.normal(size=n), 0
    else:
        y, n_classes = (X[:, 0] + rng.normal(size=n) > 0).astype(np.int64), 2
    w = rng.integers(1, 4, size=n).astype(float) if weighted else np.ones(n)
    policy = _policy(criterion, max_depth=6, max_surrogates=3)
    n_cat = np.zeros(d, dtype=np.int64)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = exact.grow_fast(X, y, w, n_cat, n_classes, policy)
        numba.set_num_threads(2)
        two = exact.grow_fast(X, y, w, n_cat, n_classes, policy)
    finally:
        numba.set_num_threads(before)
    assert one == two



def test_reserved_nodes_bounds_every_binary_tree():
    from rootwise.engine.arrays import reserved_nodes

    # a binary tree whose leaves hold at least one row has at most 2n - 1 nodes ...
    assert reserved_nodes(1000, 2**62, 100, 2**31) == 1999
    # ... and at most 2^(depth + 1) - 1 under a depth limit
    assert reserved_nodes(1000, 3, 100, 2**31) == 15
    assert reserved_nodes(1000, 0, 100, 2**31) == 1
    # never more than the address space given (the arrays then grow by doubling)
    assert reserved_nodes(10**12, 2**62, 1000, 2**31) == 2**31 // 1000
    assert reserved_nodes(1000, 2**62, 100, 1000) == 10


@pytest.mark.parametrize("seed", [1, 2, 6, 7, 12])
def test_fast_builder_past_its_reservation_grows_the_same_tree(seed):
    """Node and surrogate arrays that outgrow a tiny reservation are doubled: same tree."""
    X, y, w, n_classes, policy = _case(seed)
    n_cat = np.zeros(X.shape[1], dtype=np.int64)
    kinds = np.zeros(X.shape[1], dtype=np.int64)
    ref = reference.build_tree(X, y, w, kinds, n_cat, n_classes, policy)
    big = exact.grow_fast(X, y, w, n_cat, n_classes, policy)
    small = exact.grow_fast(X, y, w, n_cat, n_classes, policy, reserve_bytes=64)
    assert big.node_count > 8  # more nodes than the 64 bytes reserve room for
    for name in NODE_FIELDS:
        assert close(getattr(small, name), getattr(ref, name)), name
    np.testing.assert_array_equal(small.threshold, ref.threshold)
    for name in NODE_FIELDS:
        np.testing.assert_array_equal(getattr(small, name), getattr(big, name), err_msg=name)
    np.testing.assert_array_equal(small.value, big.value)
    for name in SURROGATE_FIELDS:
        np.testing.assert_array_equal(small.surrogates[name], big.surrogates[name], err_msg=name)
