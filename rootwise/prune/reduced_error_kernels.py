"""The kernels of reduced-error pruning (``reduced_error``): one pass over the validation rows, one
over the nodes, children before parents.

Losses are added in the order of the validation rows, node by node, as ``np.bincount`` over the
decision paths adds them, so the scores are the numbers the former numpy code computed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import LEAF
from ..engine.arrays import total as ordered_sum
from ..tree.walk import fractional_distribution


class Validation(NamedTuple):
    """Validation rows: encoded matrix, targets (class codes or values, as float64), weights."""

    X: np.ndarray
    y: np.ndarray
    w: np.ndarray


class FractionalTree(NamedTuple):
    """The tree arrays C4.5's prediction reads (``walk.fractional_distribution``), and parents."""

    feature: np.ndarray
    kind: np.ndarray
    threshold: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    pool_offset: np.ndarray
    pool: np.ndarray
    n_categories: np.ndarray
    missing_branch: np.ndarray
    branch_fraction: np.ndarray
    parent: np.ndarray


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _loss(y, prediction, regression):
    """0/1 error of a class, or squared error of a value."""
    if regression:
        d = y - prediction
        return d * d
    return 1.0 if y != prediction else 0.0


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _score(loss, total_w, regression):
    """Validation score from a weighted loss: accuracy, or minus the mean squared error."""
    if regression:
        return -loss / total_w
    return 1.0 - loss / total_w


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _better_or_tie(leaf_loss, subtree_loss, prune_on_tie):
    """``steps.better_or_tie``: within np.isclose(rtol=1e-12, atol=1e-12) a tie."""
    if abs(leaf_loss - subtree_loss) <= 1e-12 + 1e-12 * abs(subtree_loss):
        return prune_on_tie
    return leaf_loss < subtree_loss


@njit(cache=True, no_cfunc_wrapper=True)
def validation_losses(ends, parent, y, w, prediction, regression):
    """Per node, over the validation rows whose path passes it (the ancestors of the node each row
    ends in): the loss if the node predicted them as a leaf, and their weight; and the loss of the
    rows that stop at the node (a leaf, or a split without a branch for them)."""
    n_nodes = parent.shape[0]
    as_leaf = np.zeros(n_nodes)
    reach_w = np.zeros(n_nodes)
    stop_loss = np.zeros(n_nodes)
    for i in range(ends.shape[0]):
        node = ends[i]
        stop_loss[node] += _loss(y[i], prediction[node], regression) * w[i]
        while node >= 0:
            as_leaf[node] += _loss(y[i], prediction[node], regression) * w[i]
            reach_w[node] += w[i]
            node = parent[node]
    return as_leaf, reach_w, stop_loss


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _new_steps(kind):
    n = 0
    for node in range(kind.shape[0]):
        if kind[node] != LEAF:
            n += 1
    return (np.empty(n, dtype=np.int64), np.empty(n), np.empty(n), np.empty(n),
            np.empty(n, dtype=np.bool_))


@njit(cache=True, no_cfunc_wrapper=True)
def prune_bottom_up(kind, first_child, n_children, as_leaf, reach_w, stop_loss, current, total_w,
                    regression, prune_on_tie):
    """Seed 000 §3.2 over the split nodes, children first (descending ids): a node's subtree loses
    what stops at it plus its branches' (pruned) subtrees; it becomes a leaf when that loses no
    more (ties: ``prune_on_tie``). ``current`` is the whole tree's loss. Returns (make_leaf, the
    steps: node, validation weight, score as subtree, score as leaf, pruned)."""
    n_nodes = kind.shape[0]
    subtree = stop_loss.copy()
    make_leaf = np.zeros(n_nodes, dtype=np.bool_)
    node_of, n_val, as_subtree_score, as_leaf_score, pruned = _new_steps(kind)
    j = 0
    for node in range(n_nodes - 1, -1, -1):
        if kind[node] == LEAF:
            continue
        branches = 0.0
        for c in range(first_child[node], first_child[node] + n_children[node]):
            branches += subtree[c]
        below = stop_loss[node] + branches
        subtree[node] = below
        after = current - below + as_leaf[node]
        prune = _better_or_tie(as_leaf[node], below, prune_on_tie)
        node_of[j] = node
        n_val[j] = reach_w[node]
        as_subtree_score[j] = _score(current, total_w, regression)
        as_leaf_score[j] = _score(after, total_w, regression)
        pruned[j] = prune
        j += 1
        if prune:
            make_leaf[node] = True
            subtree[node] = as_leaf[node]
            current = after
    return make_leaf, (node_of, n_val, as_subtree_score, as_leaf_score, pruned)


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _preorder(first_child, n_children, parent):
    """(tin, tout): node i's subtree holds the nodes numbered tin[i] .. tout[i] - 1 in pre-order."""
    n = first_child.shape[0]
    tin = np.zeros(n, dtype=np.int64)
    size = np.ones(n, dtype=np.int64)
    for node in range(n - 1, 0, -1):  # children have larger ids than their parents
        size[parent[node]] += size[node]
    stack = np.empty(n, dtype=np.int64)
    stack[0] = 0
    top = 1
    count = 0
    while top > 0:
        top -= 1
        node = stack[top]
        tin[node] = count
        count += 1
        for c in range(first_child[node] + n_children[node] - 1, first_child[node] - 1, -1):
            stack[top] = c
            top += 1
    return tin, tin + size


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _prediction_loss(rows, v, t, kind, value, regression):
    """The weighted loss of C4.5's prediction (``fractional_distribution``) for the validation
    rows ``rows`` on the tree with node kinds ``kind``, added in order."""
    out = fractional_distribution(v.X[rows], t.feature, kind, t.threshold, t.first_child,
                                  t.n_children, t.pool_offset, t.pool, t.n_categories,
                                  t.missing_branch, t.branch_fraction, value)
    err = np.empty(rows.shape[0])
    for j in range(rows.shape[0]):
        if regression:
            d = v.y[rows[j]] - out[j, 0]
            err[j] = d * d * v.w[rows[j]]
        else:
            best = 0
            for k in range(1, out.shape[1]):
                if out[j, k] > out[j, best]:
                    best = k
            err[j] = (1.0 if v.y[rows[j]] != best else 0.0) * v.w[rows[j]]
    return ordered_sum(err)


@njit(cache=True, no_cfunc_wrapper=True)
def prune_by_prediction(v, t, ends, fractional, value, regression, prune_on_tie):
    """``prune_bottom_up`` for validation rows that C4.5 splits fractionally (a missing value at a
    split: ``fractional``, where the row's walk ends). Each split node, children first, is scored
    by C4.5's prediction with the node as a subtree and as a leaf, on the rows it can change:
    those whose path passes it and those split fractionally at one of its ancestors. Its
    validation weight counts a fractional row's share r_v. Returns (kind after pruning, steps)."""
    n_nodes = t.kind.shape[0]
    n_rows = ends.shape[0]
    tin, tout = _preorder(t.first_child, t.n_children, t.parent)
    # rows by the pre-order number of their end: a node's subtree is one block
    keys = tin[ends]
    by_end = np.argsort(keys, kind="mergesort")
    sorted_keys = keys[by_end]
    # the fractional rows, grouped by the split where they end
    start = np.zeros(n_nodes + 1, dtype=np.int64)
    for i in range(n_rows):
        if fractional[i]:
            start[ends[i] + 1] += 1
    for node in range(n_nodes):
        start[node + 1] += start[node]
    split_rows = np.empty(start[n_nodes], dtype=np.int64)
    fill = start[:n_nodes].copy()
    for i in range(n_rows):
        if fractional[i]:
            split_rows[fill[ends[i]]] = i
            fill[ends[i]] += 1
    kind = t.kind.copy()
    total_w = ordered_sum(v.w)
    current = _prediction_loss(np.arange(n_rows), v, t, kind, value, regression)
    here = np.zeros((n_nodes, 1))  # 1 at the node judged: the share of a row stopping there
    node_of, n_val, as_subtree_score, as_leaf_score, pruned = _new_steps(t.kind)
    j = 0
    for node in range(n_nodes - 1, -1, -1):
        if t.kind[node] == LEAF:
            continue
        lo = np.searchsorted(sorted_keys, tin[node])
        hi = np.searchsorted(sorted_keys, tout[node])
        n_reach = hi - lo
        a = t.parent[node]
        while a >= 0:
            n_reach += start[a + 1] - start[a]
            a = t.parent[a]
        rows = np.empty(n_reach, dtype=np.int64)
        for q in range(lo, hi):
            rows[q - lo] = by_end[q]
        used = hi - lo
        a = t.parent[node]
        while a >= 0:
            for q in range(start[a], start[a + 1]):
                rows[used] = split_rows[q]
                used += 1
            a = t.parent[a]
        rows = np.sort(rows)
        below = _prediction_loss(rows, v, t, kind, value, regression)
        was = kind[node]
        kind[node] = LEAF
        above = _prediction_loss(rows, v, t, kind, value, regression)
        here[node, 0] = 1.0
        share = fractional_distribution(v.X[rows], t.feature, kind, t.threshold, t.first_child,
                                        t.n_children, t.pool_offset, t.pool, t.n_categories,
                                        t.missing_branch, t.branch_fraction, here)
        here[node, 0] = 0.0
        weighted = np.empty(rows.shape[0])
        for q in range(rows.shape[0]):
            weighted[q] = share[q, 0] * v.w[rows[q]]
        after = current - below + above
        prune = _better_or_tie(above, below, prune_on_tie)
        node_of[j] = node
        n_val[j] = ordered_sum(weighted)
        as_subtree_score[j] = _score(current, total_w, regression)
        as_leaf_score[j] = _score(after, total_w, regression)
        pruned[j] = prune
        j += 1
        if prune:
            current = after
        else:
            kind[node] = was
    return kind, (node_of, n_val, as_subtree_score, as_leaf_score, pruned)
