"""TreeGenerate (seed 000, figure 2): the depth-first growth loop and its stopping rules.

A node becomes a leaf when
  1. all its rows belong to one class (stopping case 1);
  2. no attribute can split it: none left, or all rows agree on the remaining ones (case 2);
  3. it is an empty branch: it takes its parent's class distribution (case 3);
plus the user's limits: max_depth, min_samples_split (weighted mass), min_samples_leaf (checked by
the splitter) and epsilon (best score below it, seed 002 step 4).
"""

from __future__ import annotations

import numpy as np

from ._config import LEAF, MISSING_STOP
from ._core.criteria import impurity
from ._core.stats import class_counts
from ._policy import Policy
from ._splitter import NodeData, Splitter
from ._tree import NODE_FIELDS, Tree


class _Recorder:
    """Growable node records; node ids are handed out in allocation order, so the children of a
    node, allocated together, are consecutive."""

    def __init__(self, n_outputs: int):
        self.fields = {name: [] for name in NODE_FIELDS}
        self.value: list[np.ndarray] = []
        self.pool: list[int] = []
        self.n_outputs = n_outputs

    def new_node(self, parent: int, depth: int, branch_fraction: float) -> int:
        node = len(self.value)
        defaults = dict(feature=-1, kind=LEAF, threshold=np.nan, first_child=-1, n_children=0,
                        pool_offset=-1, missing_branch=MISSING_STOP, parent=parent, depth=depth,
                        impurity=0.0, n_node_samples=0, weighted_n_node_samples=0.0,
                        branch_fraction=branch_fraction)
        for name, v in defaults.items():
            self.fields[name].append(v)
        self.value.append(np.zeros(self.n_outputs))
        return node

    def set(self, node: int, **values) -> None:
        for name, v in values.items():
            self.fields[name][node] = v

    def tree(self, n_categories: np.ndarray) -> Tree:
        return Tree(self.fields, np.array(self.value), np.array(self.pool, dtype=np.int32),
                    n_categories)


def build_tree(X, y, w, kinds, n_categories, n_classes, policy: Policy) -> Tree:
    """Grow a classification tree on the encoded matrix ``X`` (rows weighted by ``w``)."""
    # The root has no parent distribution to fall back on (stopping case 3), so it needs weight.
    if not np.sum(w) > 0:
        raise ValueError("sample weights sum to zero; at least one row needs a positive weight")
    splitter = Splitter(X, y, kinds, n_categories, n_classes, policy)
    rec = _Recorder(n_classes)
    max_depth = np.inf if policy.max_depth is None else policy.max_depth
    crit = policy.criterion_code

    root = rec.new_node(parent=-1, depth=0, branch_fraction=1.0)
    all_features = np.ones(X.shape[1], dtype=bool)
    # work item: (node id, rows, attributes still available, parent's class counts)
    stack = [(root, NodeData(np.arange(X.shape[0], dtype=np.int64), w.astype(np.float64)),
              all_features, None)]
    while stack:
        node, data, available, parent_counts = stack.pop()
        counts = class_counts(y, data.idx, data.w, n_classes)
        total = counts.sum()
        empty = total <= 0.0
        value = parent_counts if empty else counts  # stopping case 3: the parent's distribution
        rec.value[node] = value.copy()
        rec.set(node, impurity=impurity(value, crit), n_node_samples=len(data.idx),
                weighted_n_node_samples=total)
        if (empty or np.count_nonzero(counts > 0) <= 1 or rec.fields["depth"][node] >= max_depth
                or total < policy.min_samples_split):
            continue
        live = NodeData(data.idx[data.w > 0], data.w[data.w > 0])
        split, score = splitter.select(splitter.evaluate_candidates(live, available))
        if split is None or score < policy.epsilon:
            continue
        parts = splitter.partition(data, split)
        known_total = sum(p.w.sum() for p in parts)
        first = None
        for part in parts:
            frac = part.w.sum() / known_total if known_total > 0 else 0.0
            child = rec.new_node(parent=node, depth=rec.fields["depth"][node] + 1,
                                 branch_fraction=frac)
            first = child if first is None else first
        pool_offset = -1
        if split.branch_of_category is not None:
            pool_offset = len(rec.pool)
            rec.pool.extend(int(b) for b in split.branch_of_category)
        rec.set(node, feature=split.feature, kind=split.kind, threshold=split.threshold,
                first_child=first, n_children=len(parts), pool_offset=pool_offset)
        child_available = available
        if not policy.reuse_categorical:
            child_available = available.copy()
            child_available[split.feature] = False
        # push in reverse so that branch 0 is grown first (depth-first, left to right)
        for b in range(len(parts) - 1, -1, -1):
            stack.append((first + b, parts[b], child_available, counts))
    return rec.tree(n_categories)
