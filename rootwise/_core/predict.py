"""Routing rows through the flat tree arrays: apply (node reached), decision paths, and C4.5's
fractional prediction for rows with missing values."""

import numpy as np
from numba import njit, prange

from .._config import LEAF, MISSING_FRACTIONAL, SUBSET, THRESHOLD


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
def _surrogate_branch(X, i, node, pool, n_categories, sur_offset, n_sur, s_feature, s_kind,
                      s_threshold, s_left, s_pool_offset):
    """Child slot given by the first surrogate of ``node`` whose value row ``i`` has; -1 if none."""
    for s in range(sur_offset[node], sur_offset[node] + n_sur[node]):
        x = X[i, s_feature[s]]
        if np.isnan(x):
            continue
        if s_kind[s] == THRESHOLD:
            return s_left[s] if x <= s_threshold[s] else 1 - s_left[s]
        code = np.int64(x)
        if code < 0 or code >= n_categories[s_feature[s]]:
            continue
        b = pool[s_pool_offset[s] + code]
        if b >= 0:
            return b
    return -1


@njit(cache=True)
def _next(X, i, node, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
          missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left, s_pool_offset):
    """The child row ``i`` moves to from split ``node``, or -1 to stop there. A missing value
    tries the surrogates, then ``missing_branch`` (a child, or a negative code meaning stop). At a
    subset node (CART) a category without a branch there says nothing about the split, so it is
    treated as missing too (rpart); at a multiway node it stops (seed 000's empty branch)."""
    x = X[i, feature[node]]
    b = -1
    if not np.isnan(x):
        b = _branch(x, node, feature, kind, threshold, pool_offset, pool, n_categories)
    if np.isnan(x) or (b < 0 and kind[node] == SUBSET):
        b = _surrogate_branch(X, i, node, pool, n_categories, sur_offset, n_sur, s_feature,
                              s_kind, s_threshold, s_left, s_pool_offset)
        if b < 0:
            b = missing_branch[node]
    if b < 0:
        return -1
    return first_child[node] + b


@njit(cache=True)
def _step(X, i, node, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
          missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left, s_pool_offset):
    """The next node of row ``i`` from split ``node``, or -1 to stop. A threshold test on a known
    value is decided here directly: passing the many arrays on to ``_next`` costs more than the
    test itself, and it is by far the most common step."""
    x = X[i, feature[node]]
    if kind[node] == THRESHOLD and not np.isnan(x):
        return first_child[node] + (0 if x <= threshold[node] else 1)
    return _next(X, i, node, feature, kind, threshold, first_child, pool_offset, pool,
                 n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind,
                 s_threshold, s_left, s_pool_offset)


@njit(cache=True)
def _apply_range(X, lo, hi, out, feature, kind, threshold, first_child, pool_offset, pool,
                 n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
                 s_left, s_pool_offset):
    for i in range(lo, hi):
        node = np.int64(0)  # a literal 0 would compile _next once more, for Literal[int](0)
        while kind[node] != LEAF:
            # _step's threshold test, written out here: calling _step (even with numba's
            # inline="always") measured 10x slower on 10^6 rows than this loop
            x = X[i, feature[node]]
            if kind[node] == THRESHOLD and not np.isnan(x):
                node = first_child[node] + (0 if x <= threshold[node] else 1)
                continue
            nxt = _next(X, i, node, feature, kind, threshold, first_child, pool_offset, pool,
                        n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind,
                        s_threshold, s_left, s_pool_offset)
            if nxt < 0:
                break
            node = nxt
        out[i] = node


@njit(cache=True)
def apply_rows(X, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
               missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left,
               s_pool_offset, max_depth):
    """Index of the node each row ends in. A row stops at a split node that has no branch for
    it (unseen category, or a missing value routed nowhere, e.g. C4.5's fractional split)."""
    out = np.empty(X.shape[0], dtype=np.int64)
    _apply_range(X, 0, X.shape[0], out, feature, kind, threshold, first_child, pool_offset, pool,
                 n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
                 s_left, s_pool_offset)
    return out


@njit(cache=True, parallel=True)
def apply_rows_parallel(X, feature, kind, threshold, first_child, pool_offset, pool,
                        n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind,
                        s_threshold, s_left, s_pool_offset, max_depth):
    """``apply_rows`` with the rows split into blocks shared among the threads."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    block = 4096
    for b in prange((n + block - 1) // block):
        lo = b * block
        _apply_range(X, lo, min(n, lo + block), out, feature, kind, threshold, first_child,
                     pool_offset, pool, n_categories, missing_branch, sur_offset, n_sur,
                     s_feature, s_kind, s_threshold, s_left, s_pool_offset)
    return out


@njit(cache=True)
def path_rows(X, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
              missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left,
              s_pool_offset, max_depth):
    """Decision paths as CSR parts (indptr, indices): the nodes each row visits, root first."""
    n = X.shape[0]
    buf = np.empty((n, max_depth + 1), dtype=np.int64)
    lengths = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = np.int64(0)  # as in _apply_range: one compiled _step
        m = 0
        while True:
            buf[i, m] = node
            m += 1
            if kind[node] == LEAF:
                break
            nxt = _step(X, i, node, feature, kind, threshold, first_child, pool_offset, pool,
                        n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind,
                        s_threshold, s_left, s_pool_offset)
            if nxt < 0:
                break
            node = nxt
        lengths[i] = m
    indptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        indptr[i + 1] = indptr[i] + lengths[i]
    indices = np.empty(indptr[n], dtype=np.int64)
    for i in range(n):
        indices[indptr[i]:indptr[i + 1]] = buf[i, :lengths[i]]
    return indptr, indices


@njit(cache=True)
def fractional_distribution(X, feature, kind, threshold, first_child, n_children, pool_offset,
                            pool, n_categories, missing_branch, branch_fraction, value):
    """C4.5's prediction (seed 000 §4.2): a row whose tested value is missing at a node with
    fractional routing goes down every branch with weight r_v (``branch_fraction``), and the
    class distributions it reaches are combined with those weights. ``value`` rows must already
    be normalised distributions. Returns one combined distribution per row."""
    n = X.shape[0]
    n_nodes = feature.shape[0]
    out = np.zeros((n, value.shape[1]))
    stack_node = np.empty(n_nodes, dtype=np.int64)
    stack_w = np.empty(n_nodes, dtype=np.float64)
    for i in range(n):
        top = 1
        stack_node[0] = 0
        stack_w[0] = 1.0
        while top > 0:
            top -= 1
            node = stack_node[top]
            w = stack_w[top]
            if kind[node] == LEAF:
                out[i] += w * value[node]
                continue
            x = X[i, feature[node]]
            if np.isnan(x):
                if missing_branch[node] == MISSING_FRACTIONAL:
                    for c in range(first_child[node], first_child[node] + n_children[node]):
                        if branch_fraction[c] > 0.0:
                            stack_node[top] = c
                            stack_w[top] = w * branch_fraction[c]
                            top += 1
                    continue
                b = missing_branch[node]
            else:
                b = _branch(x, node, feature, kind, threshold, pool_offset, pool, n_categories)
            if b < 0:
                out[i] += w * value[node]
            else:
                stack_node[top] = first_child[node] + b
                stack_w[top] = w
                top += 1
    return out
