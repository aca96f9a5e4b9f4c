"""The test oracle for rootwise.prune.reduced_error: the former numpy implementation, kept as it
was (a Python loop over the nodes; per node a prediction of the rows it can change when C4.5
splits validation rows fractionally). The compiled pass must give the same trees and steps, bit
for bit (tests/test_prune_validation.py).

Reduced-error pruning (seed 000 §3.2): a post-pruning pass judged on validation data."""

from __future__ import annotations

import numpy as np

from rootwise._config import LEAF, MISSING_FRACTIONAL
from rootwise.prune.collapse import collapse
from rootwise.prune.steps import PruningStep, better_or_tie, score
from rootwise.tree import Tree


def leaf_losses(tree: Tree, y_val: np.ndarray, w_val: np.ndarray, rows: np.ndarray,
                nodes: np.ndarray, regression: bool) -> np.ndarray:
    """Per node: the weighted validation loss if the node predicted, as a leaf, the rows paired
    with it in (rows, nodes): 0/1 error of its majority class, or squared error of its value."""
    if regression:
        err = (y_val[rows] - tree.value[nodes, 0]) ** 2
    else:
        err = (y_val[rows] != np.argmax(tree.value, axis=1)[nodes]).astype(np.float64)
    return np.bincount(nodes, weights=err * w_val[rows], minlength=tree.node_count)


def reduced_error_prune(tree: Tree, X_val: np.ndarray, y_val: np.ndarray, w_val: np.ndarray, *,
                        regression: bool = False, prune_on_tie: bool = True):
    """Seed 000 §3.2: visit internal nodes bottom-up (children before parents) and make a node a
    leaf whenever that does not lower the validation score (on a tie only if ``prune_on_tie``).

    A node's decision changes only the rows that reach it, so it is judged on those rows; the score
    reported is that of the whole tree. Returns (pruned tree, list of PruningStep).

    Rows are scored as ``predict`` scores them: a row stops where prediction stops it (a leaf, or a
    split without a branch for its value) and is charged that node's prediction. When a validation
    row reaches a C4.5 split with its value missing, its prediction combines the branches by r_v
    and no longer adds up over them: the candidates are then scored by predicting the rows they
    can change (``_prune_by_prediction``)."""
    ends = tree.apply(X_val)
    if _fractional_rows(tree, X_val, ends).any():
        return _prune_by_prediction(tree, X_val, y_val, w_val, ends, regression, prune_on_tie)
    paths = tree.decision_path(X_val)
    rows = np.repeat(np.arange(X_val.shape[0]), np.diff(paths.indptr))
    as_leaf = leaf_losses(tree, y_val, w_val, rows, paths.indices, regression)
    # rows that stop at a node (a leaf, or a split node with no branch for their value)
    stop_loss = leaf_losses(tree, y_val, w_val, np.arange(len(ends)), ends, regression)
    reach_w = np.bincount(paths.indices, weights=w_val[rows], minlength=tree.node_count)
    total_w = w_val.sum()
    current = float(stop_loss.sum())
    subtree = stop_loss.copy()
    make_leaf = np.zeros(tree.node_count, dtype=bool)
    steps = []
    # children have larger ids than their parents: descending ids visit every child first
    for node in range(tree.node_count - 1, -1, -1):
        if tree.kind[node] == LEAF:
            continue
        below = stop_loss[node] + sum(subtree[c] for c in tree.children(node))
        subtree[node] = below
        after_loss = current - below + as_leaf[node]
        prune = better_or_tie(as_leaf[node], below, prune_on_tie)
        steps.append(PruningStep(node, float(reach_w[node]), score(current, total_w, regression),
                                 score(after_loss, total_w, regression), prune))
        if prune:
            make_leaf[node] = True
            subtree[node] = as_leaf[node]
            current = after_loss
    return collapse(tree, make_leaf), steps


def _fractional_rows(tree: Tree, X: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Rows whose path ends at a C4.5 split because their tested value is missing: prediction
    sends them down every branch with weight r_v."""
    at_split = tree.kind[ends] != LEAF
    tested = np.where(at_split, tree.feature[ends], 0)
    value = np.asarray(X, dtype=np.float64)[np.arange(len(ends)), tested]
    return at_split & (tree.missing_branch[ends] == MISSING_FRACTIONAL) & np.isnan(value)


def _prune_by_prediction(tree: Tree, X_val, y_val, w_val, ends, regression: bool,
                         prune_on_tie: bool):
    """``reduced_error_prune`` for validation rows that C4.5 splits fractionally: each candidate
    is scored by C4.5's prediction (``fractional_distribution``) with the node as a subtree and as
    a leaf, on the rows it can change: those whose path passes the node, and those split
    fractionally at one of its ancestors. ``n_validation`` counts a fractional row's share r_v."""
    X = np.ascontiguousarray(X_val, dtype=np.float64)
    n_nodes = tree.node_count
    value = tree.value if regression else tree.value / tree.value.sum(axis=1, keepdims=True)

    def predict(rows, kind, val):
        return tree.fractional_distribution(X[rows], val, kind)

    def loss(rows, kind) -> float:
        out = predict(rows, kind, value)
        err = (y_val[rows] - out[:, 0]) ** 2 if regression else np.argmax(out, axis=1) != y_val[rows]
        return _ordered(err * w_val[rows])

    paths = tree.decision_path(X).tocsc()
    frag = _fractional_rows(tree, X, ends)
    split_at = {int(s): np.flatnonzero(frag & (ends == s)) for s in np.unique(ends[frag])}
    all_rows = np.arange(X.shape[0])
    kind = tree.kind.copy()
    total_w = _ordered(w_val)
    current = loss(all_rows, kind)
    steps = []
    for node in range(n_nodes - 1, -1, -1):  # children before parents
        if tree.kind[node] == LEAF:
            continue
        reach = [paths.indices[paths.indptr[node]: paths.indptr[node + 1]]]
        a = int(tree.parent[node])
        while a >= 0:
            if a in split_at:
                reach.append(split_at[a])
            a = int(tree.parent[a])
        rows = np.unique(np.concatenate(reach))
        as_leaf = kind.copy()
        as_leaf[node] = LEAF
        below, above = loss(rows, kind), loss(rows, as_leaf)
        after = current - below + above
        only_here = np.zeros((n_nodes, 1))
        only_here[node, 0] = 1.0  # the share of each row that reaches the node, and stops there
        n_val = _ordered(predict(rows, as_leaf, only_here)[:, 0] * w_val[rows])
        prune = better_or_tie(above, below, prune_on_tie)
        steps.append(PruningStep(node, n_val, score(current, total_w, regression),
                                 score(after, total_w, regression), prune))
        if prune:
            kind = as_leaf
            current = after
    return collapse(tree, (kind == LEAF) & (tree.kind != LEAF)), steps


def _ordered(a) -> float:
    """The values added in order from 0 (the package's sums; numpy's pairwise sum differs in the
    last bits)."""
    total = 0.0
    for v in np.asarray(a, dtype=np.float64).ravel():
        total += float(v)
    return total
