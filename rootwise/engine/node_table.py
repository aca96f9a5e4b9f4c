"""The tree being grown: node arrays and the surrogate table (``loop.grow`` grows them, and the
category -> branch pool, with ``growable``), and their conversion into a ``Tree`` once growth
ends (the one place that does it).

Children of a node get consecutive ids, created when the node is split; a new node starts as a
leaf and is filled in when it is visited (its statistics) and when it is split (its test).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import LEAF, MISSING_STOP, MULTIWAY
from .arrays import unset


class NodeTable(NamedTuple):
    feature: np.ndarray
    kind: np.ndarray
    threshold: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    pool_offset: np.ndarray
    missing_branch: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    impurity: np.ndarray
    n_samples: np.ndarray
    weight: np.ndarray
    fraction: np.ndarray
    improvement: np.ndarray
    s_offset: np.ndarray
    s_count: np.ndarray
    value: np.ndarray  # (nodes, classes) or (nodes, 1)
    # the bounds of the node's value under monotonic constraints (``monotone``): growth only,
    # written by a fit with constraints alone (a fit without leaves their pages unreached)
    lower: np.ndarray
    upper: np.ndarray


class SurrogateTable(NamedTuple):
    feature: np.ndarray
    kind: np.ndarray
    threshold: np.ndarray
    left_branch: np.ndarray
    pool_offset: np.ndarray
    agreement: np.ndarray
    adjusted: np.ndarray


def new_nodes(capacity, n_out):
    """The node table with room for ``capacity`` nodes, in the ``Tree``'s dtypes (``tree.
    NODE_FIELDS``): 93 bytes a node with one output instead of 136 in int64, and ``to_tree``
    makes no converted copy of a table that fills the fit's memory (a fully grown tree of 10^6
    rows has 2 x 10^6 nodes). The bounds of monotonic constraints (16 bytes more) are not the
    ``Tree``'s: only a fit with constraints writes them."""
    c = max(capacity, 1)
    i32 = np.int32
    return NodeTable(unset(c, i32), unset(c, np.int8), unset(c), unset(c, i32), unset(c, i32),
                     unset(c, i32), unset(c, i32), unset(c, i32), unset(c, i32), unset(c),
                     unset(c, np.int64), unset(c), unset(c), unset(c), unset(c, i32),
                     unset(c, i32), unset((c, n_out)),  # a node's values are zeroed by ``init_leaf``
                     unset(c), unset(c))


def new_surrogates(capacity):
    """The surrogate table with room for ``capacity`` rows, in the ``Tree``'s dtypes (``tree.
    SURROGATE_FIELDS``)."""
    c = max(capacity, 1)
    return SurrogateTable(unset(c, np.int32), unset(c, np.int8), unset(c), unset(c, np.int8),
                          unset(c, np.int32), unset(c), unset(c))


# no reference counting (``bundles``): called twice per split with the 17 arrays of the table
@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def init_leaf(t, node, parent, depth, fraction):
    """A new node: a leaf under ``parent`` until it is visited and perhaps split."""
    t.feature[node] = -1
    t.kind[node] = LEAF
    t.threshold[node] = np.nan
    t.first_child[node] = -1
    t.n_children[node] = 0
    t.pool_offset[node] = -1
    t.missing_branch[node] = MISSING_STOP
    t.parent[node] = parent
    t.depth[node] = depth
    t.impurity[node] = 0.0
    t.n_samples[node] = 0
    t.weight[node] = 0.0
    t.fraction[node] = fraction
    t.improvement[node] = 0.0
    t.s_offset[node] = -1
    t.s_count[node] = 0
    for k in range(t.value.shape[1]):
        t.value[node, k] = 0.0


def to_tree(t: NodeTable, n_nodes: int, pool, n_pool: int, s: SurrogateTable, n_sur: int,
            n_categories):
    """The grown tree as a ``Tree``: its dtypes, each table's first rows as they are (``loop.
    grow`` hands over finished tables, ``Growable.finished``: a mostly unused reservation is
    copied out there, so the model keeps none)."""
    from ..tree import Tree

    nodes = {"feature": t.feature, "kind": t.kind, "threshold": t.threshold,
             "first_child": t.first_child, "n_children": t.n_children,
             "pool_offset": t.pool_offset, "missing_branch": t.missing_branch,
             "parent": t.parent, "depth": t.depth, "impurity": t.impurity,
             "n_node_samples": t.n_samples, "weighted_n_node_samples": t.weight,
             "branch_fraction": t.fraction, "surrogate_offset": t.s_offset,
             "n_surrogates": t.s_count, "improvement": t.improvement}
    nodes = {name: a[:n_nodes] for name, a in nodes.items()}
    surrogates = {"feature": s.feature, "kind": s.kind, "threshold": s.threshold,
                  "left_branch": s.left_branch, "pool_offset": s.pool_offset,
                  "agreement": s.agreement, "adjusted_agreement": s.adjusted}
    surrogates = {name: a[:n_sur] for name, a in surrogates.items()}
    pool = with_multiway_slices(pool[:n_pool], nodes["kind"], nodes["feature"],
                                 nodes["pool_offset"], n_categories)
    return Tree(nodes, t.value[:n_nodes], pool, n_categories, surrogates)


def with_multiway_slices(pool, kind, feature, pool_offset, n_categories):
    """The growth's int8 pool with each multiway test's slice written (category c -> branch c:
    ``chosen.record_split`` only reserves them, for a test of more than 128 branches does not
    fit int8); int32 when the tree has such a test (``Tree`` narrows it again if it fits)."""
    multiway = np.flatnonzero(kind == MULTIWAY)
    if multiway.size == 0:
        return pool
    k = np.asarray(n_categories, dtype=np.int64)[feature[multiway]]
    within = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
    full = pool.astype(np.int32)
    full[np.repeat(pool_offset[multiway].astype(np.int64), k) + within] = within
    return full
