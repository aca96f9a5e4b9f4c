"""Reduced-error pruning (Zhou 2016, §4.3.2): a post-pruning pass judged on validation data.

Two kernel calls, whatever the size of the tree (``reduced_error_kernels``): the validation rows'
losses at every node of their paths, then the decisions over the split nodes, children first.
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF, MISSING_FRACTIONAL
from ..tree import Tree
from .collapse import collapse
from .reduced_error_kernels import (
    FractionalTree,
    Validation,
    prune_bottom_up,
    prune_by_prediction,
    validation_losses,
)
from .steps import StepTable


def reduced_error_prune(tree: Tree, X_val: np.ndarray, y_val: np.ndarray, w_val: np.ndarray, *,
                        regression: bool = False, prune_on_tie: bool = True
                        ) -> tuple[Tree, StepTable]:
    """Seed 000 §3.2: visit internal nodes bottom-up (children before parents) and make a node a
    leaf whenever that does not lower the validation score (on a tie only if ``prune_on_tie``).

    A node's decision changes only the rows that reach it, so it is judged on those rows; the score
    reported is that of the whole tree. Returns (pruned tree, the decisions as a ``StepTable``).

    Rows are scored as ``predict`` scores them: a row stops where prediction stops it (a leaf, or a
    split without a branch for its value) and is charged that node's prediction. When a validation
    row reaches a C4.5 split with its value missing, its prediction combines the branches by r_v
    and no longer adds up over them: the candidates are then scored by predicting the rows they
    can change (``reduced_error_kernels.prune_by_prediction``)."""
    X = np.ascontiguousarray(X_val, dtype=np.float64)
    v = Validation(X, np.ascontiguousarray(y_val, dtype=np.float64),
                   np.ascontiguousarray(w_val, dtype=np.float64))
    ends = tree.apply(X)
    fractional = _fractional_rows(tree, X, ends)
    if fractional.any():
        value = tree.value if regression else tree.value / tree.value.sum(axis=1, keepdims=True)
        t = FractionalTree(tree.feature, tree.kind, tree.threshold, tree.first_child,
                           tree.n_children, tree.pool_offset, tree.pool, tree.n_categories,
                           tree.missing_branch, tree.branch_fraction, tree.parent)
        kind, steps = prune_by_prediction(v, t, ends, fractional, value, bool(regression),
                                          bool(prune_on_tie))
        return collapse(tree, (kind == LEAF) & (tree.kind != LEAF)), StepTable(*steps)
    # what each node predicts as a leaf: its value, or its most probable class
    prediction = tree.value[:, 0].copy() if regression else \
        np.argmax(tree.value, axis=1).astype(np.float64)
    as_leaf, reach_w, stop_loss = validation_losses(ends, tree.parent.astype(np.int64), v.y, v.w,
                                                    prediction, bool(regression))
    make_leaf, steps = prune_bottom_up(tree.kind, tree.first_child, tree.n_children, as_leaf,
                                       reach_w, stop_loss, float(stop_loss.sum()),
                                       float(v.w.sum()), bool(regression), bool(prune_on_tie))
    return collapse(tree, make_leaf), StepTable(*steps)


def _fractional_rows(tree: Tree, X: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Rows whose path ends at a C4.5 split because their tested value is missing: prediction
    sends them down every branch with weight r_v."""
    at_split = tree.kind[ends] != LEAF
    tested = np.where(at_split, tree.feature[ends], 0)
    value = X[np.arange(len(ends)), tested]
    return at_split & (tree.missing_branch[ends] == MISSING_FRACTIONAL) & np.isnan(value)
