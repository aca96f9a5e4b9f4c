"""Very deep trees for the tests of the passes that walk them (issue 15: depth 10^4 and more)."""

from __future__ import annotations

import numpy as np

from rootwise._config import LEAF, MISSING_FRACTIONAL, THRESHOLD
from rootwise.tree import Tree


def staircase(depth: int) -> tuple[Tree, np.ndarray]:
    """A staircase of ``depth`` threshold tests on one column x = 0, 1, ..., 2 depth + 1: node 2d
    tests x <= 2d + 1.5, its first child 2d + 1 is a leaf holding the pair x = 2d, 2d + 1, its
    second child 2d + 2 the next test; the last node, 2 depth, is a leaf holding the last pair.
    Returns the tree and X."""
    n = 2 * depth + 1
    split = np.arange(0, 2 * depth, 2)
    kind = np.full(n, LEAF)
    kind[split] = THRESHOLD
    feature = np.where(kind == THRESHOLD, 0, -1)
    threshold = np.full(n, np.nan)
    threshold[split] = split + 1.5
    first_child = np.full(n, -1)
    first_child[split] = split + 1
    ids = np.arange(n)
    nodes = dict(feature=feature, kind=kind, threshold=threshold, first_child=first_child,
                 n_children=np.where(kind == THRESHOLD, 2, 0), pool_offset=np.full(n, -1),
                 missing_branch=np.where(kind == THRESHOLD, MISSING_FRACTIONAL, -1),
                 parent=np.where(ids > 0, 2 * ((ids - 1) // 2), -1), depth=(ids + 1) // 2,
                 impurity=np.zeros(n), n_node_samples=np.zeros(n),
                 weighted_n_node_samples=np.zeros(n), branch_fraction=np.ones(n))
    tree = Tree(nodes, np.ones((n, 2)), np.zeros(0, dtype=np.int32), np.array([0]))
    return tree, np.arange(2 * depth + 2, dtype=np.float64).reshape(-1, 1)


def staircase_classes(depth: int) -> np.ndarray:
    """Pair p (rows 2p, 2p + 1) has class p % 2 in the upper half (p < depth / 2, an even number
    of pairs), class 0 below."""
    pair = np.arange(2 * depth + 2) // 2
    return np.where(pair < depth // 2, pair % 2, 0).astype(np.int64)


def class_counts_of_staircase(depth: int, y: np.ndarray, n_classes: int = 2) -> np.ndarray:
    """The class counts of the rows reaching each node of ``staircase(depth)`` (x = row index):
    split 2d holds the pairs d .. depth, leaf 2d + 1 the pair d, the last leaf the last pair."""
    pair_counts = np.zeros((depth + 1, n_classes))
    np.add.at(pair_counts, (np.arange(len(y)) // 2, y), 1.0)
    below = np.cumsum(pair_counts[::-1], axis=0)[::-1]  # pairs d .. depth
    value = np.zeros((2 * depth + 1, n_classes))
    value[0:2 * depth:2] = below[:depth]
    value[1:2 * depth:2] = pair_counts[:depth]
    value[2 * depth] = pair_counts[depth]
    return value
