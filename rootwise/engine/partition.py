"""Sending a node's rows down the branches of its test (``Splitter.partition`` and C4.5's pruning).

Two passes, so that the caller can decide from the known weight per branch where the rows with a
missing value go (C4.5: every branch, or every branch whose fraction r_v is large enough):

    branch_of_rows   the branch of each row (-1: value missing, or a category without a branch)
                     and the known weight per branch
    split_rows       the rows of every branch, concatenated, each branch's in node order: its own
                     rows and, if the branch receives them, the rows without a branch, with
                     weight w * r_v

and ``subtree_leaf_counts`` sends rows through a whole subtree that way (C4.5's pruning, when it
asks what a branch would make of its parent's rows). The arithmetic is numpy's (``np.bincount``
adds the weights in row order), so the partitions are the ones the numpy code made, bit for bit.
"""

import numpy as np
from numba import njit

from .._config import THRESHOLD
from .arrays import copy_into, grown
from .arrays import total as ordered_sum


@njit(cache=True)
def branch_of_rows(X, j, kind, threshold, branch_of_category, idx, w, n_branches):
    """(branch per row, known weight per branch) for the test on column j: ``kind`` THRESHOLD sends
    x <= threshold to branch 0 and the rest to 1; otherwise a category code c goes to
    branch_of_category[c] (-1 for a code outside it, e.g. an unseen category)."""
    n = idx.shape[0]
    branch = np.full(n, -1, dtype=np.int64)
    known_w = np.zeros(n_branches)
    n_codes = branch_of_category.shape[0]
    for t in range(n):
        x = X[idx[t], j]
        if np.isnan(x):
            continue
        if kind == THRESHOLD:
            b = 0 if x <= threshold else 1
        else:
            code = np.int64(x)
            b = branch_of_category[code] if 0 <= code < n_codes else -1
        branch[t] = b
        if b >= 0:
            known_w[b] += w[t]
    return branch, known_w


@njit(cache=True)
def split_rows(idx, w, branch, fractions, receives):
    """The rows of every branch, concatenated in branch order: (idx, w, offsets), branch b holding
    entries offsets[b]:offsets[b + 1] in the node's row order. A row with branch -1 goes to every
    branch b with receives[b], weighted w * fractions[b], in its place in that order."""
    n_branches = fractions.shape[0]
    n = idx.shape[0]
    size = np.zeros(n_branches, dtype=np.int64)
    n_lost = 0
    for t in range(n):
        if branch[t] >= 0:
            size[branch[t]] += 1
        else:
            n_lost += 1
    offsets = np.zeros(n_branches + 1, dtype=np.int64)
    for b in range(n_branches):
        offsets[b + 1] = offsets[b] + size[b] + (n_lost if receives[b] else 0)
    out_idx = np.empty(offsets[n_branches], dtype=idx.dtype)
    out_w = np.empty(offsets[n_branches])
    fill = offsets[:n_branches].copy()
    for t in range(n):
        b = branch[t]
        if b >= 0:
            out_idx[fill[b]] = idx[t]
            out_w[fill[b]] = w[t]
            fill[b] += 1
        else:
            for c in range(n_branches):
                if receives[c]:
                    out_idx[fill[c]] = idx[t]
                    out_w[fill[c]] = w[t] * fractions[c]
                    fill[c] += 1
    return out_idx, out_w, offsets


@njit(cache=True)
def subtree_leaf_counts(X, y, idx, w, feature, kind, threshold, first_child, n_children, pool,
                        pool_offset, pool_size, tol, n_classes):
    """The rows (idx, w) sent through a subtree as C4.5's pruning sends them, and the class counts
    each leaf gets. The subtree is given breadth-first (node 0 its root, a node's children
    consecutive from first_child); a node's test is that of ``branch_of_rows`` (categories:
    pool[pool_offset:pool_offset + pool_size]). At every split node the fractions r_v come from
    the known weight of the rows reaching it, r_v = known_v / sum_v known_v as numpy sums (equal
    shares when nothing is known), and a row without a branch goes down every branch with
    r_v > tol, weighted w * r_v (``split_rows``). Row counts[i] is leaf i's ``class_counts``, the
    rows added in the order ``split_rows`` lays them out; rows of split nodes are left at 0."""
    n_nodes = feature.shape[0]
    counts = np.zeros((n_nodes, n_classes))
    start = np.zeros(n_nodes, dtype=np.int64)
    stop = np.zeros(n_nodes, dtype=np.int64)
    rows = np.empty(max(16, 2 * idx.shape[0]), dtype=idx.dtype)
    weights = np.empty(rows.shape[0])
    copy_into(rows, np.int64(0), idx)  # loops, not slice assignments: see ``arrays``
    copy_into(weights, np.int64(0), w)
    stop[0] = used = idx.shape[0]
    for i in range(n_nodes):  # breadth-first: a node's rows are known before its children's
        if n_children[i] == 0:
            for t in range(start[i], stop[i]):
                counts[i, y[rows[t]]] += weights[t]
            continue
        node_idx = rows[start[i]:stop[i]].copy()
        node_w = weights[start[i]:stop[i]].copy()
        n_b = n_children[i]
        categories = pool[pool_offset[i]:pool_offset[i] + pool_size[i]]
        branch, known_w = branch_of_rows(X, feature[i], kind[i], threshold[i], categories,
                                         node_idx, node_w, n_b)
        total = ordered_sum(known_w)
        if total > 0:
            fractions = known_w / total
        else:
            fractions = np.full(n_b, 1.0 / n_b)
        part_idx, part_w, offsets = split_rows(node_idx, node_w, branch, fractions, fractions > tol)
        if used + part_idx.shape[0] > rows.shape[0]:  # grow the buffers
            size = max(2 * rows.shape[0], used + part_idx.shape[0])
            rows, weights = grown(rows, size), grown(weights, size)
        copy_into(rows, used, part_idx)
        copy_into(weights, used, part_w)
        for b in range(n_b):
            start[first_child[i] + b] = used + offsets[b]
            stop[first_child[i] + b] = used + offsets[b + 1]
        used += part_idx.shape[0]
    return counts
