"""C4.5's error-based (pessimistic) pruning with subtree raising (Quinlan 1993, ch. 4).

A leaf holding N training cases (weighted, fractional) with E errors is expected to make
E + pessimistic_errors(N, E, CF) errors on unseen cases. Bottom-up, each node is compared as
  - a leaf:                      the estimate for its own class distribution;
  - its subtree:                 the sum of the estimates of its leaves;
  - its largest branch (raising): that branch's subtree with all the node's cases sent into it.
The node becomes a leaf if that is no worse than both others (within 0.1 case, as release 8 and
J48 do), else it is replaced by its largest branch if that is no worse than the subtree. Raising
moves cases, so distributions are recomputed by routing the training rows again.
"""

from __future__ import annotations

import numpy as np

from ._config import LEAF, MISSING_FRACTIONAL
from ._core.criteria import impurity
from ._core.stats import class_counts
from ._pruning import pessimistic_errors
from ._splitter import NodeData, Splitter
from ._tree import Tree

_SLACK = 0.1  # release 8 prefers the simpler tree unless it is worse by more than 0.1 case


class _Node:
    """A mutable node used only while pruning (the fitted model keeps flat arrays)."""

    __slots__ = ("feature", "kind", "threshold", "branch_of_category", "children")

    def __init__(self, feature, kind, threshold, branch_of_category, children):
        self.feature = feature
        self.kind = kind
        self.threshold = threshold
        self.branch_of_category = branch_of_category
        self.children = children  # None for a leaf

    @property
    def n_branches(self) -> int:
        return len(self.children)


def _from_tree(tree: Tree, node: int) -> _Node:
    if tree.kind[node] == LEAF:
        return _Node(-1, LEAF, np.nan, None, None)
    boc = tree.branch_of_category(node).copy() if tree.pool_offset[node] >= 0 else None
    return _Node(int(tree.feature[node]), int(tree.kind[node]), float(tree.threshold[node]), boc,
                 [_from_tree(tree, c) for c in tree.children(node)])


class _Pruner:
    def __init__(self, splitter: Splitter, confidence: float, subtree_raising: bool):
        self.sp = splitter
        self.cf = confidence
        self.raising = subtree_raising

    def counts(self, data: NodeData) -> np.ndarray:
        return class_counts(self.sp.y, data.idx, data.w, self.sp.n_classes)

    def leaf_errors(self, data: NodeData) -> float:
        """Estimated errors of a leaf holding ``data``: E + pessimistic_errors(N, E, CF)."""
        counts = self.counts(data)
        n = counts.sum()
        if n <= 0:
            return 0.0
        e = n - counts.max()
        return e + pessimistic_errors(n, e, self.cf)

    def parts(self, node: _Node, data: NodeData) -> list[NodeData]:
        return self.sp.partition(data, node, MISSING_FRACTIONAL)[0]

    def subtree_errors(self, node: _Node, data: NodeData) -> float:
        """Sum of the leaves' estimates when ``data`` is routed through ``node``'s subtree."""
        if node.children is None:
            return self.leaf_errors(data)
        pairs = zip(node.children, self.parts(node, data), strict=True)
        return sum(self.subtree_errors(c, p) for c, p in pairs)

    def prune(self, node: _Node, data: NodeData) -> None:
        if node.children is None:
            return
        parts = self.parts(node, data)
        for child, part in zip(node.children, parts, strict=True):
            self.prune(child, part)
        sizes = [p.w.sum() for p in parts]
        largest = node.children[int(np.argmax(sizes))]
        as_leaf = self.leaf_errors(data)
        as_tree = self.subtree_errors(node, data)
        as_largest = self.subtree_errors(largest, data) if self.raising else np.inf
        if as_leaf <= as_tree + _SLACK and as_leaf <= as_largest + _SLACK:
            node.children = None
            node.kind, node.feature, node.threshold, node.branch_of_category = LEAF, -1, np.nan, None
        elif as_largest <= as_tree + _SLACK:
            # subtree raising: the largest branch takes the node's place and all its cases
            node.feature, node.kind, node.threshold = largest.feature, largest.kind, largest.threshold
            node.branch_of_category, node.children = largest.branch_of_category, largest.children
            self.prune(node, data)


def error_based_prune(tree: Tree, splitter: Splitter, w: np.ndarray, *, confidence: float = 0.25,
                      subtree_raising: bool = True) -> Tree:
    """The pruned tree; ``splitter`` holds the training rows the tree was grown on, weighted ``w``."""
    from ._builder import _Recorder

    root = _from_tree(tree, 0)
    data = NodeData(np.arange(len(w), dtype=np.int64), np.asarray(w, dtype=np.float64))
    pruner = _Pruner(splitter, confidence, subtree_raising)
    pruner.prune(root, data)

    # write the pruned tree with distributions recomputed from the rows that now reach each node
    rec = _Recorder(splitter.n_classes)
    first = rec.new_node(parent=-1, depth=0, branch_fraction=1.0)
    stack = [(first, root, data, None)]
    crit = splitter.criterion
    while stack:
        nid, node, d, parent_counts = stack.pop()
        counts = pruner.counts(d)
        total = counts.sum()
        value = counts if total > 0 else parent_counts
        rec.value[nid] = value.copy()
        rec.set(nid, impurity=impurity(value, crit), n_node_samples=len(d.idx),
                weighted_n_node_samples=float(total))
        if node.children is None:
            continue
        parts, fractions = splitter.partition(d, node, MISSING_FRACTIONAL)
        kids = [rec.new_node(parent=nid, depth=rec.fields["depth"][nid] + 1,
                             branch_fraction=float(fractions[b])) for b in range(len(parts))]
        pool_offset = rec.add_to_pool(node.branch_of_category) \
            if node.branch_of_category is not None else -1
        rec.set(nid, feature=node.feature, kind=node.kind, threshold=node.threshold,
                first_child=kids[0], n_children=len(kids), pool_offset=pool_offset,
                missing_branch=MISSING_FRACTIONAL)
        for b in range(len(parts) - 1, -1, -1):
            stack.append((kids[b], node.children[b], parts[b], value))
    return rec.tree(tree.n_categories)
