"""Node records grown one node at a time, then written as a flat ``Tree``."""

from __future__ import annotations

import numpy as np

from .._config import LEAF, MISSING_STOP
from .tree import NODE_FIELDS, SURROGATE_FIELDS, Tree


class NodeRecords:
    """Growable node records for the Python builders (the reference builder, tests' hand-made
    trees); node ids are handed out in allocation order. ``tree`` writes the flat ``Tree``."""

    # a new node's fields, except parent, depth and branch_fraction (given to new_nodes)
    _DEFAULTS = dict(feature=-1, kind=LEAF, threshold=np.nan, first_child=-1, n_children=0,
                     pool_offset=-1, missing_branch=MISSING_STOP, impurity=0.0, n_node_samples=0,
                     weighted_n_node_samples=0.0, surrogate_offset=-1, n_surrogates=0,
                     improvement=0.0)

    def __init__(self, n_outputs: int):
        self.fields = {name: [] for name in NODE_FIELDS}
        self.value: list[np.ndarray] = []
        self.pool: list[int] = []
        self.surrogates = {name: [] for name in SURROGATE_FIELDS}
        self.n_outputs = n_outputs
        self._empty = np.zeros(n_outputs)  # every node's value until it is recorded
        self._defaults = [(self.fields[name], v) for name, v in self._DEFAULTS.items()]

    def new_node(self, parent: int, depth: int, branch_fraction: float) -> int:
        return self.new_nodes(parent, depth, [branch_fraction])

    def new_nodes(self, parent: int, depth: int, branch_fractions) -> int:
        """Consecutive new nodes, one per branch fraction, with the same parent and depth; returns
        the first id."""
        first, k = len(self.value), len(branch_fractions)
        for column, v in self._defaults:
            column.extend([v] * k)
        self.fields["parent"].extend([parent] * k)
        self.fields["depth"].extend([depth] * k)
        self.fields["branch_fraction"].extend(branch_fractions)
        self.value.extend([self._empty] * k)
        return first

    def set(self, node: int, **values) -> None:
        for name, v in values.items():
            self.fields[name][node] = v

    def add_to_pool(self, branch_of_category: np.ndarray) -> int:
        offset = len(self.pool)
        self.pool.extend(int(b) for b in branch_of_category)
        return offset

    def add_surrogates(self, node: int, surrogates) -> None:
        if not surrogates:
            return
        self.set(node, surrogate_offset=len(self.surrogates["feature"]),
                 n_surrogates=len(surrogates))
        for s in surrogates:
            pool_offset = self.add_to_pool(s.side) if s.side is not None else -1
            for name, v in (("feature", s.feature), ("kind", s.kind), ("threshold", s.threshold),
                            ("left_branch", s.left_branch), ("pool_offset", pool_offset),
                            ("agreement", s.agreement),
                            ("adjusted_agreement", s.adjusted_agreement)):
                self.surrogates[name].append(v)

    def tree(self, n_categories: np.ndarray) -> Tree:
        return Tree(self.fields, np.array(self.value), np.array(self.pool, dtype=np.int32),
                    n_categories, self.surrogates)
