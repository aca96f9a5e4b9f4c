"""The workers' kernels of a distributed fit: each partition's share of a level, in numba.

A partition holds its rows for the whole fit: the encoded matrix X, the bin codes (one byte per
cell: a continuous column's histogram bin, a categorical column's category code; the column's
value count = missing), targets, weights, and ``node``, the open node each row is in (-1: a leaf).
Open nodes of a round are numbered by ``slot_of`` (node id -> slot, -1: not in this round).

Every sum adds the partition's rows in row order, exactly as the local engine adds a node's rows
(``engine.node_stats``, ``engine.entries``); the client then adds the partitions' sums
(``reduce``). Classification statistics are weights, so with integer weights every partial sum is
an integer below 2^53 and the total is exact in any order: the same numbers as the local fit.
"""

import numpy as np
from numba import njit

from .._config import THRESHOLD
from ..engine.route import branch_of_value


@njit(cache=True, no_cfunc_wrapper=True)
def class_node_stats(node, slot_of, n_slots, yc, w, n_classes):
    """Per slot: rows, weight (every row, row order), weighted class counts."""
    rows = np.zeros(n_slots, dtype=np.int64)
    wsum = np.zeros(n_slots)
    counts = np.zeros((n_slots, n_classes))
    for r in range(node.shape[0]):
        if node[r] < 0:
            continue
        s = slot_of[node[r]]
        if s < 0:
            continue
        rows[s] += 1
        wsum[s] += w[r]
        counts[s, yc[r]] += w[r]
    return rows, wsum, counts


@njit(cache=True, no_cfunc_wrapper=True)
def regression_node_stats(node, slot_of, n_slots, yr, w):
    """Per slot: rows, weight (every row), then over the rows of positive weight: sum w, sum w y,
    smallest and largest y (a node is pure when they agree)."""
    rows = np.zeros(n_slots, dtype=np.int64)
    wsum = np.zeros(n_slots)
    sums = np.zeros((n_slots, 2))
    y_min = np.full(n_slots, np.inf)
    y_max = np.full(n_slots, -np.inf)
    for r in range(node.shape[0]):
        if node[r] < 0:
            continue
        s = slot_of[node[r]]
        if s < 0:
            continue
        rows[s] += 1
        wsum[s] += w[r]
        if w[r] > 0.0:
            sums[s, 0] += w[r]
            sums[s, 1] += w[r] * yr[r]
            y_min[s] = min(y_min[s], yr[r])
            y_max[s] = max(y_max[s], yr[r])
    return rows, wsum, sums, y_min, y_max


@njit(cache=True, no_cfunc_wrapper=True)
def squared_deviations(node, slot_of, n_slots, yr, w, means):
    """Per slot: sum w (y - mean)^2 over the rows of positive weight (a regression node's
    impurity times its weight, ``engine.node_stats.regression_stats``)."""
    out = np.zeros(n_slots)
    for r in range(node.shape[0]):
        if node[r] < 0:
            continue
        s = slot_of[node[r]]
        if s < 0 or not w[r] > 0.0:
            continue
        dev = yr[r] - means[s]
        out[s] += w[r] * (dev * dev)
    return out


@njit(cache=True, no_cfunc_wrapper=True)
def histograms(codes, node, slot_of, n_slots, n_codes, yc, yr, w, regression, width):
    """Per slot, column and code: weighted class counts, or (sum w, sum w y, sum w y^2), over the
    rows of positive weight (``engine.entries.binned_split_entries``' cells)."""
    d = codes.shape[1]
    h = np.zeros((n_slots, d, n_codes, width))
    for r in range(node.shape[0]):
        if node[r] < 0:
            continue
        s = slot_of[node[r]]
        wt = w[r]
        if s < 0 or not wt > 0.0:
            continue
        if regression:
            wy = wt * yr[r]
            wyy = wy * yr[r]
            for j in range(d):
                c = codes[r, j]
                h[s, j, c, 0] += wt
                h[s, j, c, 1] += wy
                h[s, j, c, 2] += wyy
        else:
            k = yc[r]
            for j in range(d):
                h[s, j, codes[r, j], k] += wt
    return h


@njit(cache=True, no_cfunc_wrapper=True)
def surrogate_histograms(codes, X, node, slot_of, n_slots, n_codes, w, split_feature, split_kind,
                         split_threshold, split_sides):
    """Per split slot, column and code, over the rows of positive weight: the weight and rows the
    primary split sends each way and the rows without a primary branch (``engine.entries.
    binned_surrogate_entries``' cells: w0, w1, n0, n1, missing), missing codes left out."""
    d = codes.shape[1]
    h = np.zeros((n_slots, d, n_codes, 5))
    for r in range(node.shape[0]):
        if node[r] < 0:
            continue
        s = slot_of[node[r]]
        wt = w[r]
        if s < 0 or not wt > 0.0:
            continue
        b = branch_of_value(X[r, split_feature[s]], split_kind[s], split_threshold[s],
                            split_sides[s])
        for j in range(d):
            c = codes[r, j]
            if b < 0:
                h[s, j, c, 4] += 1.0
            else:
                h[s, j, c, b] += wt
                h[s, j, c, 2 + b] += 1.0
    return h


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _branch(X, r, s, split_feature, split_kind, split_threshold, split_sides, n_surrogates,
            sur_feature, sur_kind, sur_threshold, sur_left, sur_sides):
    """Row r's branch at split slot s from its own value, else the first surrogate that gives it
    one (``engine.route.by_surrogates``); -1 when none does."""
    b = branch_of_value(X[r, split_feature[s]], split_kind[s], split_threshold[s],
                        split_sides[s])
    if b >= 0:
        return b
    for t in range(n_surrogates[s]):
        x = X[r, sur_feature[s, t]]
        if np.isnan(x):
            continue
        if sur_kind[s, t] == THRESHOLD:
            return sur_left[s, t] if x <= sur_threshold[s, t] else 1 - sur_left[s, t]
        c = np.int64(x)
        b = sur_sides[s, t, c] if 0 <= c < sur_sides.shape[2] else -1
        if b >= 0:
            return b
    return -1


@njit(cache=True, no_cfunc_wrapper=True)
def routed_weights(X, node, slot_of, n_slots, w, split_feature, split_kind, split_threshold,
                   split_sides, n_surrogates, sur_feature, sur_kind, sur_threshold, sur_left,
                   sur_sides):
    """Per split slot, the weight each branch receives from the rows the primary or a surrogate
    routes (``engine.route.to_majority``'s h0, h1: where the rest goes when the primary tied)."""
    out = np.zeros((n_slots, 2))
    for r in range(node.shape[0]):
        if node[r] < 0:
            continue
        s = slot_of[node[r]]
        if s < 0:
            continue
        b = _branch(X, r, s, split_feature, split_kind, split_threshold, split_sides,
                    n_surrogates, sur_feature, sur_kind, sur_threshold, sur_left, sur_sides)
        if b >= 0:
            out[s, b] += w[r]
    return out


@njit(cache=True, no_cfunc_wrapper=True)
def route(X, node, slot_of, split_feature, split_kind, split_threshold, split_sides,
          n_surrogates, sur_feature, sur_kind, sur_threshold, sur_left, sur_sides, majority,
          first_child):
    """Each row's node after the round's splits (``engine.route``: its own value, else the first
    surrogate that gives it a branch, else the majority branch); rows of nodes that stay leaves
    (slot -1) leave the fit (-1)."""
    out = np.empty_like(node)
    for r in range(node.shape[0]):
        if node[r] < 0:
            out[r] = -1
            continue
        s = slot_of[node[r]]
        if s < 0:
            out[r] = -1
            continue
        b = _branch(X, r, s, split_feature, split_kind, split_threshold, split_sides,
                    n_surrogates, sur_feature, sur_kind, sur_threshold, sur_left, sur_sides)
        if b < 0:
            b = majority[s]
        out[r] = first_child[s] + b
    return out
