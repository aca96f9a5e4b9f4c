"""Writing a pruned tree: every pruning pass only decides which internal nodes become leaves;
``collapse`` then writes the smaller tree, keeping node order (so children stay consecutive and
every index stays valid)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .._config import LEAF, MISSING_STOP
from ..tree import NODE_FIELDS, Tree


@njit(cache=True, no_cfunc_wrapper=True)
def below_a_leaf(parent, leaf):
    """Per node: whether some proper ancestor is in ``leaf``. Parents come before their children,
    so one pass in id order decides every node from its parent."""
    n = parent.shape[0]
    removed = np.zeros(n, dtype=np.bool_)
    for i in range(1, n):
        p = parent[i]
        removed[i] = removed[p] or leaf[p]
    return removed


def collapse(tree: Tree, make_leaf: np.ndarray) -> Tree:
    """The tree in which every node of ``make_leaf`` is a leaf and its descendants are gone."""
    n = tree.node_count
    leaf = np.asarray(make_leaf, dtype=bool) | (tree.kind == LEAF)
    removed = below_a_leaf(tree.parent, leaf)
    keep = np.flatnonzero(~removed)
    new_id = np.full(n, -1, dtype=np.int64)
    new_id[keep] = np.arange(len(keep))
    nodes = {name: getattr(tree, name)[keep].copy() for name in NODE_FIELDS}
    now_leaf = leaf[keep]
    nodes["kind"][now_leaf] = LEAF
    nodes["feature"][now_leaf] = -1
    nodes["threshold"][now_leaf] = np.nan
    nodes["n_children"][now_leaf] = 0
    nodes["pool_offset"][now_leaf] = -1
    nodes["missing_branch"][now_leaf] = MISSING_STOP
    nodes["surrogate_offset"][now_leaf] = -1
    nodes["n_surrogates"][now_leaf] = 0
    if "improvement" in nodes:  # a leaf made by pruning reads as one grown as a leaf
        nodes["improvement"][now_leaf] = 0.0
    fc = nodes["first_child"]
    fc[now_leaf] = -1
    fc[~now_leaf] = new_id[fc[~now_leaf]]
    par = nodes["parent"]
    par[par >= 0] = new_id[par[par >= 0]]
    return Tree(nodes, tree.value[keep], tree.pool, tree.n_categories, tree.surrogates)
