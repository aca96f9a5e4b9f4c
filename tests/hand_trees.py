"""Hand-built fitted models for the exporters' tests."""

from __future__ import annotations

import numpy as np

import rootwise
from rootwise._config import LEAF, THRESHOLD
from rootwise.tree import Tree


def chain_model(depth: int):
    """A fitted CART classifier whose tree is a chain of ``depth`` tests x <= k + 0.5 (node 2k),
    each with a leaf (2k + 1) on one side: deeper than any recursion could go."""
    model = rootwise.CARTClassifier(pruning=None).fit([[0.0], [1.0]], ["a", "b"])
    n = 2 * depth + 1
    kind = np.full(n, LEAF)
    kind[0:n - 1:2] = THRESHOLD
    first = np.where(kind == THRESHOLD, np.arange(n) + 1, -1)
    parent = np.full(n, -1)
    parent[1::2] = np.arange(0, n - 1, 2)
    parent[2::2] = np.arange(0, n - 1, 2)
    fields = {"feature": np.where(kind == THRESHOLD, 0, -1), "kind": kind,
              "threshold": np.where(kind == THRESHOLD, np.arange(n) / 2 + 0.5, np.nan),
              "first_child": first, "n_children": np.where(kind == THRESHOLD, 2, 0),
              "pool_offset": np.full(n, -1), "missing_branch": np.where(kind == THRESHOLD, 0, -1),
              "parent": parent, "depth": (np.arange(n) + 1) // 2, "impurity": np.full(n, 0.5),
              "n_node_samples": np.full(n, 2), "weighted_n_node_samples": np.full(n, 2.0),
              "branch_fraction": np.ones(n)}
    model.tree_ = Tree(fields, np.ones((n, 2)), np.zeros(0), model.tree_.n_categories)
    return model
