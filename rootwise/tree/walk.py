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
def _walk_rows(X, lo, hi, ends, feature, kind, threshold, first_child, pool_offset, pool,
               n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
               s_left, s_pool_offset):
    """The general walk, node kind by node kind, for each row i of lo..hi-1 with ends[i] <= -2:
    from node -2 - ends[i] to the node the row ends in, which replaces it. Other rows are left
    as they are."""
    for i in range(lo, hi):
        if ends[i] > -2:
            continue
        node = -2 - ends[i]
        while kind[node] != LEAF:
            # _step's threshold test, written out here: calling _step (even with numba's
            # inline="always") measured 10x slower on 10^6 rows than this loop, and moving the
            # loop into a function called per row 2.5x slower
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
        ends[i] = node


@njit(cache=True)
def apply_rows(X, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
               missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left,
               s_pool_offset, max_depth):
    """Index of the node each row ends in. A row stops at a split node that has no branch for
    it (unseen category, or a missing value routed nowhere, e.g. C4.5's fractional split).
    The general walk alone, from the root: the reference for the compact walk below."""
    out = np.full(X.shape[0], -2, dtype=np.int64)  # -2 - 0: every row starts at the root
    _walk_rows(X, 0, X.shape[0], out, feature, kind, threshold, first_child, pool_offset, pool,
               n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
               s_left, s_pool_offset)
    return out


# ------------------------------------------------------------------ the compact walk
#
# Most steps of most rows are threshold tests on known values. For them one record per node is
# enough: (threshold, feature, left), the right child being left + 1. The records are laid out in
# depth-first order of the child pairs, so a node's children sit next to the records the walk has
# just read. A record with feature < 0 ends the walk: COMPACT_LEAF (left = the leaf's id in the
# Tree) or COMPACT_OTHER (a multiway or subset test; left = its id in the Tree). There, and at a
# threshold test on a missing value, the row goes on with the general walk from that node.

COMPACT_NODE = np.dtype([("threshold", np.float64), ("feature", np.int32), ("left", np.int32)])
COMPACT_LEAF = -1
COMPACT_OTHER = -2
# rows walked at once by one thread: while one row waits for a node record or an X value from
# memory the others go on. 16 measured best on trees of 2,000 to 2,000,000 nodes (8: up to 15 %
# slower on the large ones, 32: slower on the small ones).
LANES = 8
# rows per block: a block is walked, then its outputs are written while its end nodes are still
# in cache; the unit of work of a thread
BLOCK = 4096


@njit(cache=True)
def compact_layout(kind, feature, threshold, first_child, out, origin):
    """Fill ``out`` (COMPACT_NODE records) with the records of the nodes reachable from the root
    through threshold tests, and ``origin`` with each record's node id; returns how many.
    Depth-first: when a threshold node is visited its two children get the next two records."""
    n = kind.shape[0]
    where = np.empty(n, dtype=np.int64)  # record of each node
    stack = np.empty(n, dtype=np.int64)
    where[0] = 0
    stack[0] = 0
    top = 1
    used = 1
    while top > 0:
        top -= 1
        node = stack[top]
        r = where[node]
        origin[r] = node
        if kind[node] == THRESHOLD:
            c = first_child[node]
            out[r].threshold = threshold[node]
            out[r].feature = feature[node]
            out[r].left = used
            where[c] = used
            where[c + 1] = used + 1
            used += 2
            stack[top] = c + 1  # the left child is popped first: its pair comes next
            stack[top + 1] = c
            top += 2
        else:
            out[r].threshold = np.inf
            out[r].feature = COMPACT_LEAF if kind[node] == LEAF else COMPACT_OTHER
            out[r].left = node
    return used


@njit(cache=True)
def _mark_infinite(X, lo, hi, ends):
    """ends[i] = -1 for the rows of lo..hi-1 holding an infinite value (the caller refuses
    them), 0 for the others. One branch-free pass per row, which the compiler vectorises."""
    for i in range(lo, hi):
        bad = False
        for j in range(X.shape[1]):
            v = X[i, j]
            bad |= (v - v) != 0.0  # v - v: 0 for a number, NaN for NaN and +-inf
        ends[i] = 0
        if bad:
            for j in range(X.shape[1]):
                if np.isinf(X[i, j]):
                    ends[i] = -1


@njit(cache=True)
def _next_row(ends, i, hi):
    """The first row from ``i`` not marked -1 by ``_mark_infinite`` (``hi`` if none)."""
    while i < hi and ends[i] == -1:
        i += 1
    return i


@njit(cache=True)
def _walk_compact(X, lo, hi, nodes, origin, ends):
    """Rows lo..hi-1 through the compact layout: ends[i] = the leaf reached, or -2 - node when
    the row must go on from that node with the general walk, or -1 for a row holding an infinite
    value. LANES rows are walked together, each lane taking the next row as soon as its own is
    done. For a known x, x > t is exactly "not x <= t" (child 1)."""
    _mark_infinite(X, lo, hi, ends)
    lane_row = np.empty(LANES, dtype=np.int64)
    lane_node = np.zeros(LANES, dtype=np.int64)
    nxt = lo
    active = 0
    for g in range(LANES):
        r = _next_row(ends, nxt, hi)
        lane_row[g] = r
        if r < hi:
            nxt = r + 1
            active += 1
        else:
            nxt = hi
    while active > 0:
        for g in range(LANES):
            r = lane_row[g]
            if r >= hi:
                continue
            n = lane_node[g]
            f = nodes[n].feature
            if f >= 0:
                x = X[r, f]
                if x == x:  # known
                    lane_node[g] = nodes[n].left + (1 if x > nodes[n].threshold else 0)
                    continue
                ends[r] = -2 - origin[n]
            elif f == COMPACT_LEAF:
                ends[r] = nodes[n].left
            else:
                ends[r] = -2 - nodes[n].left
            lane_node[g] = 0
            r = _next_row(ends, nxt, hi)
            lane_row[g] = r
            if r < hi:
                nxt = r + 1
            else:
                nxt = hi
                active -= 1


@njit(cache=True)
def _route_block(X, lo, hi, ends, table, out, nodes, origin, feature, kind, threshold, first_child,
                 pool_offset, pool, n_categories, missing_branch, sur_offset, n_sur, s_feature,
                 s_kind, s_threshold, s_left, s_pool_offset):
    """Rows lo..hi-1: their end nodes into ``ends`` and table[end] into ``out`` (a class label,
    a distribution, a value; nothing when the table has no columns). Returns the first row with
    an infinite value, or -1."""
    _walk_compact(X, lo, hi, nodes, origin, ends)
    _walk_rows(X, lo, hi, ends, feature, kind, threshold, first_child, pool_offset, pool,
               n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
               s_left, s_pool_offset)
    first_inf = -1
    k = table.shape[1]
    for i in range(lo, hi):
        if ends[i] == -1:  # refused by the caller; any node will do meanwhile
            ends[i] = 0
            if first_inf < 0:
                first_inf = i
        e = ends[i]
        for c in range(k):
            out[i, c] = table[e, c]
    return first_inf


@njit(cache=True)
def route_rows(X, table, nodes, origin, feature, kind, threshold, first_child, pool_offset, pool,
               n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
               s_left, s_pool_offset):
    """(ends, out, first_inf): the node each row ends in (as ``apply_rows``), table[end] per row,
    and the first row holding an infinite value (-1: none; then ``ends``/``out`` are not
    meaningful for it). ``nodes``, ``origin``: the tree's compact layout (``compact_layout``)."""
    n = X.shape[0]
    ends = np.empty(n, dtype=np.int64)
    out = np.empty((n, table.shape[1]), dtype=table.dtype)
    first_inf = -1
    for lo in range(0, n, BLOCK):
        bad = _route_block(X, lo, min(n, lo + BLOCK), ends, table, out, nodes, origin, feature, kind,
                           threshold, first_child, pool_offset, pool, n_categories,
                           missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
                           s_left, s_pool_offset)
        if bad >= 0 and first_inf < 0:
            first_inf = bad
    return ends, out, first_inf


@njit(cache=True, parallel=True)
def route_rows_parallel(X, table, nodes, origin, feature, kind, threshold, first_child, pool_offset,
                        pool, n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind,
                        s_threshold, s_left, s_pool_offset):
    """``route_rows`` with the blocks of rows shared among the threads (each row's result does
    not depend on the others, so it is the same)."""
    n = X.shape[0]
    ends = np.empty(n, dtype=np.int64)
    out = np.empty((n, table.shape[1]), dtype=table.dtype)
    n_blocks = (n + BLOCK - 1) // BLOCK
    bad = np.empty(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        lo = b * BLOCK
        bad[b] = _route_block(X, lo, min(n, lo + BLOCK), ends, table, out, nodes, origin, feature, kind,
                              threshold, first_child, pool_offset, pool, n_categories,
                              missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
                              s_left, s_pool_offset)
    first_inf = -1
    for b in range(n_blocks):
        if bad[b] >= 0:
            first_inf = bad[b]
            break
    return ends, out, first_inf


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
        for m in range(lengths[i]):  # a loop: see ``arrays``
            indices[indptr[i] + m] = buf[i, m]
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
                for k in range(value.shape[1]):  # loops: see ``arrays``
                    out[i, k] += w * value[node, k]
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
                for k in range(value.shape[1]):
                    out[i, k] += w * value[node, k]
            else:
                stack_node[top] = first_child[node] + b
                stack_w[top] = w
                top += 1
    return out
