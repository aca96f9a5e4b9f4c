"""Sufficient statistics of a node: weighted class counts, per category or per side of a threshold."""

import numpy as np
from numba import njit

from .criteria import impurity


@njit(cache=True, no_cfunc_wrapper=True)
def class_counts(y, idx, w, n_classes):
    """counts[k] = sum of w[t] over the rows r = idx[t] whose class code is k.

    ``w`` is aligned with ``idx`` (the row's weight at this node): C4.5 sends one row down several
    branches with different weights, so weights belong to the node, not to the row."""
    counts = np.zeros(n_classes, dtype=np.float64)
    for t in range(idx.shape[0]):
        counts[y[idx[t]]] += w[t]
    return counts


@njit(cache=True, no_cfunc_wrapper=True)
def category_table(X, j, y, idx, w, n_categories, n_classes):
    """Contingency table of column ``j`` over the rows ``idx`` (``w`` aligned with ``idx``).

    table[v, k] = sum of w over rows with category code v and class k, for v < n_categories;
    the last row (index n_categories) collects rows whose value is missing (NaN).
    """
    table = np.zeros((n_categories + 1, n_classes), dtype=np.float64)
    for t in range(idx.shape[0]):
        r = idx[t]
        v = X[r, j]
        if np.isnan(v):
            table[n_categories, y[r]] += w[t]
        else:
            table[np.int64(v), y[r]] += w[t]
    return table


@njit(cache=True, no_cfunc_wrapper=True)
def regression_table(X, j, y, idx, w, n_categories):
    """Per category code of column ``j``: (sum w, sum w y, sum w y^2) over the rows ``idx``; the
    last row (index n_categories) collects rows whose value is missing."""
    table = np.zeros((n_categories + 1, 3), dtype=np.float64)
    for t in range(idx.shape[0]):
        r = idx[t]
        v = X[r, j]
        c = n_categories if np.isnan(v) else np.int64(v)
        table[c, 0] += w[t]
        table[c, 1] += w[t] * y[r]
        table[c, 2] += w[t] * y[r] * y[r]
    return table


@njit(cache=True, no_cfunc_wrapper=True)
def node_statistics(y, idx, w, n_classes, criterion):
    """What a builder records of a classification node: (class counts added row by row, their
    total W added class by class, the impurity, whether at most one class has weight)."""
    counts = class_counts(y, idx, w, n_classes)
    total = 0.0
    classes = 0
    for k in range(n_classes):
        total += counts[k]
        if counts[k] > 0:
            classes += 1
    return counts, total, impurity(counts, criterion), classes <= 1


@njit(cache=True, no_cfunc_wrapper=True)
def total_and_errors(counts):
    """(N, E) of a leaf with these class counts: N their total (added in order), E = N - the
    largest count (the weight not in the majority class)."""
    n = 0.0
    top = counts[0]
    for k in range(counts.shape[0]):
        n += counts[k]
        if counts[k] > top:
            top = counts[k]
    return n, n - top
