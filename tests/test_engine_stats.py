"""Sufficient statistics (rootwise.engine.stats) against the naive reference on random data."""

import naive
import numpy as np
import pytest

from rootwise.engine.stats import category_table, class_counts


def _weights(rng, n):
    """Weights with zeros, fractions and integers mixed."""
    kind = rng.integers(0, 3, size=n)
    w = np.where(kind == 0, 0.0, np.where(kind == 1, rng.random(n), rng.integers(1, 4, size=n)))
    return w.astype(np.float64)


@pytest.mark.parametrize("seed", range(40))
def test_class_counts_matches_naive(seed):
    rng = np.random.default_rng(seed)
    n_rows, n_classes = int(rng.integers(1, 80)), int(rng.integers(2, 7))
    y = rng.integers(0, n_classes, size=n_rows).astype(np.int64)
    # a node holds any subset of rows, possibly repeated (C4.5 sends a row down several branches),
    # with a weight per occurrence
    idx = rng.integers(0, n_rows, size=int(rng.integers(0, 2 * n_rows))).astype(np.int64)
    w = _weights(rng, len(idx))
    got = class_counts(y, idx, w, n_classes)
    expected = naive.weighted_class_counts(y[idx], w, n_classes)
    assert got.shape == (n_classes,)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("seed", range(40))
def test_category_table_matches_naive(seed):
    rng = np.random.default_rng(1000 + seed)
    n_rows, n_features = int(rng.integers(1, 120)), int(rng.integers(1, 5))
    n_classes = int(rng.integers(2, 7))
    n_categories = rng.choice([1, 2, 3, 7, 50], size=n_features)
    X = np.column_stack([rng.integers(0, k, size=n_rows) for k in n_categories]).astype(np.float64)
    X[rng.random(X.shape) < 0.15] = np.nan
    y = rng.integers(0, n_classes, size=n_rows).astype(np.int64)
    idx = rng.permutation(n_rows)[: int(rng.integers(0, n_rows + 1))].astype(np.int64)
    w = _weights(rng, len(idx))
    for j in range(n_features):
        k = int(n_categories[j])
        got = category_table(X, j, y, idx, w, k, n_classes)
        expected = naive.contingency_table(X[idx, j], y[idx], w, k, n_classes)
        assert got.shape == (k + 1, n_classes)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_category_table_by_hand():
    # codes: 0, 1, NaN, 1, 0 ; classes 0, 1, 1, 1, 0 ; weights 1, 0.5, 2, 0, 3
    X = np.array([[9.0, 0.0], [9.0, 1.0], [9.0, np.nan], [9.0, 1.0], [9.0, 0.0]])
    y = np.array([0, 1, 1, 1, 0], dtype=np.int64)
    idx = np.arange(5, dtype=np.int64)
    w = np.array([1.0, 0.5, 2.0, 0.0, 3.0])
    table = category_table(X, 1, y, idx, w, 3, 2)
    np.testing.assert_array_equal(table, [[4.0, 0.0], [0.0, 0.5], [0.0, 0.0], [0.0, 2.0]])
    # weights are aligned with idx, not with the rows of X
    table = category_table(X, 1, y, np.array([4, 0], dtype=np.int64), np.array([10.0, 1.0]), 3, 2)
    np.testing.assert_array_equal(table, [[11.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])


def test_class_counts_weights_follow_idx():
    y = np.array([0, 1, 2], dtype=np.int64)
    got = class_counts(y, np.array([2, 2, 0], dtype=np.int64), np.array([0.25, 0.5, 4.0]), 4)
    np.testing.assert_array_equal(got, [4.0, 0.0, 0.75, 0.0])
