"""When and how to grow with the fast exact builder (``grow.py``).

It covers CART on continuous columns: no categorical column, no missing cell, positive weights,
depth-first growth, mean leaves, at most 256 classes. Anything else goes to the reference
builder, which grows the same tree the slow way (and is what the fast one is tested against).
"""

from __future__ import annotations

import numba
import numpy as np

from .._config import CONTINUOUS, LEAF, MIN_ADJUSTED_AGREEMENT, MIN_SURROGATE_SIDE, THRESHOLD
from .._policy import Policy
from ..tree import Tree


def applies(X: np.ndarray, w: np.ndarray, kinds: np.ndarray, policy: Policy,
            n_classes: int = 0) -> bool:
    """Whether the fast builder grows this fit (class codes travel as bytes: at most 256)."""
    return (n_classes <= 256 and policy.categorical_split == "subset" and policy.selection == "gain"
            and policy.max_leaf_nodes is None and policy.leaf_value == "mean"
            and policy.epsilon == 0.0 and policy.min_leaf_rule == "all_branches"
            and bool(np.all(kinds == CONTINUOUS)) and X.shape[0] > 0
            and not np.isnan(X).any() and bool(np.all(w > 0)))


def grow_fast(X, y, w, n_categories, n_classes: int, policy: Policy,
              reserve_bytes: int | None = None) -> Tree:
    """The tree the reference builder grows for this policy, grown in one numba call.
    ``reserve_bytes``: address space for the node arrays before they grow by doubling
    (``arrays.RESERVE_BYTES``; tests pass a few bytes to exercise the doubling)."""
    # here: fits that never take this path do not load its kernels
    from .arrays import RESERVE_BYTES
    from .grow import PARALLEL_MIN_WORK, grow

    max_depth = np.iinfo(np.int64).max if policy.max_depth is None else int(policy.max_depth)
    max_sur = int(policy.max_surrogates) if policy.missing == "surrogate" else 0
    # one compiled signature for both tasks: the unused target is an empty array
    n_threads = numba.get_num_threads()
    if n_threads == 1 or X.shape[0] * X.shape[1] < PARALLEL_MIN_WORK:
        # no node would be split on several threads (nodes only shrink): None compiles and loads
        # the specialisation of grow without its parallel kernels
        n_threads = None
    if policy.regression:
        yc, yr = np.zeros(0, dtype=np.int64), np.asarray(y, dtype=np.float64)
    else:
        yc, yr = np.asarray(y, dtype=np.int64), np.zeros(0, dtype=np.float64)
    (feature, threshold, first_child, parent, depth, impurity, n_samples, wsum, fraction,
     missing_branch, improvement, s_offset, s_count, value, s_feature, s_threshold, s_left,
     s_agree, s_adj) = grow(
        np.ascontiguousarray(X, dtype=np.float64), yc, yr, np.asarray(w, dtype=np.float64),
        n_classes, policy.criterion_code, policy.regression, max_depth,
        float(policy.min_samples_split), float(policy.min_samples_leaf),
        float(policy.min_impurity_decrease), float(policy.impurity_threshold), max_sur,
        MIN_SURROGATE_SIDE, MIN_ADJUSTED_AGREEMENT, n_threads,
        RESERVE_BYTES if reserve_bytes is None else int(reserve_bytes))
    split = first_child >= 0
    # built in the Tree's dtypes, so that Tree copies none of them (a fully grown tree has about
    # two nodes per row)
    nodes = {
        "feature": feature, "kind": np.where(split, np.int8(THRESHOLD), np.int8(LEAF)),
        "threshold": threshold, "first_child": first_child,
        "n_children": split.astype(np.int32) * np.int32(2),
        "pool_offset": np.full(len(feature), -1, dtype=np.int32), "missing_branch": missing_branch,
        "parent": parent, "depth": depth, "impurity": impurity, "n_node_samples": n_samples,
        "weighted_n_node_samples": wsum, "branch_fraction": fraction,
        "surrogate_offset": s_offset, "n_surrogates": s_count, "improvement": improvement,
    }
    surrogates = {"feature": s_feature, "kind": np.full(len(s_feature), THRESHOLD, dtype=np.int8),
                  "threshold": s_threshold, "left_branch": s_left,
                  "pool_offset": np.full(len(s_feature), -1, dtype=np.int32), "agreement": s_agree,
                  "adjusted_agreement": s_adj}
    return Tree(nodes, value, np.zeros(0, dtype=np.int32), n_categories, surrogates)
