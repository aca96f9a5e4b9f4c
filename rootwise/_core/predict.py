"""Routing rows through the flat tree arrays: apply (node reached) and decision paths."""

import numpy as np
from numba import njit

from .._config import LEAF, THRESHOLD


@njit(cache=True)
def _branch(x, node, feature, kind, threshold, pool_offset, pool, n_categories):
    """Child slot a known value ``x`` takes at ``node``; -1 when the node has no branch for it
    (a category never seen in training, or without a branch here)."""
    if kind[node] == THRESHOLD:
        return 0 if x <= threshold[node] else 1
    code = np.int64(x)
    if code < 0 or code >= n_categories[feature[node]]:
        return -1
    return pool[pool_offset[node] + code]


@njit(cache=True)
def _route(X, i, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
           missing_branch, path, depth_limit):
    """Walk row ``i`` from the root; record visited nodes into ``path`` (if non-empty).
    Returns (node reached, number of nodes visited). A row stops at a split node when its value is
    missing and the node routes missing values nowhere, or when the node has no branch for it."""
    node = 0
    n = 0
    while True:
        if path.shape[0] > 0:
            path[n] = node
        n += 1
        if kind[node] == LEAF or n > depth_limit:
            return node, n
        x = X[i, feature[node]]
        if np.isnan(x):
            b = missing_branch[node]
        else:
            b = _branch(x, node, feature, kind, threshold, pool_offset, pool, n_categories)
        if b < 0:
            return node, n
        node = first_child[node] + b


@njit(cache=True)
def apply_rows(X, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
               missing_branch, max_depth):
    """Index of the node each row ends in."""
    out = np.empty(X.shape[0], dtype=np.int64)
    empty = np.empty(0, dtype=np.int64)
    for i in range(X.shape[0]):
        node, _ = _route(X, i, feature, kind, threshold, first_child, pool_offset, pool,
                         n_categories, missing_branch, empty, max_depth + 1)
        out[i] = node
    return out


@njit(cache=True)
def path_rows(X, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
              missing_branch, max_depth):
    """Decision paths as CSR parts (indptr, indices): the nodes each row visits, root first."""
    n = X.shape[0]
    buf = np.empty((n, max_depth + 1), dtype=np.int64)
    lengths = np.empty(n, dtype=np.int64)
    for i in range(n):
        _, m = _route(X, i, feature, kind, threshold, first_child, pool_offset, pool,
                      n_categories, missing_branch, buf[i], max_depth + 1)
        lengths[i] = m
    indptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        indptr[i + 1] = indptr[i] + lengths[i]
    indices = np.empty(indptr[n], dtype=np.int64)
    for i in range(n):
        indices[indptr[i]:indptr[i + 1]] = buf[i, :lengths[i]]
    return indptr, indices
