"""One dispatcher: which grower runs a fit.

    splitter="hist"                      ``hist`` (binned columns, ``hist_grow``)
    ID3 / C4.5 without validation data   ``grow_multiway``
    CART on continuous columns           ``exact`` (presorted columns, ``grow``)

Anything else still runs the reference builder (``rootwise.reference``), which every one of these
growers is tested against.
"""

from __future__ import annotations

import numpy as np

from .._config import CATEGORICAL, TIE_TOLERANCE
from .._policy import Policy
from ..tree import SURROGATE_FIELDS, Tree


def build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy: Policy,
                           validation=None, names=None):
    """(tree, pre-pruning steps): the tree of ``policy`` on the encoded matrix ``X`` (rows
    weighted by ``w``; ``y`` class codes when n_classes > 0, else regression targets), grown by
    the fastest grower that covers the fit. ``validation`` = (X_val, y_val, w_val) turns on
    pre-pruning; ``names`` are the feature names for error messages."""
    if not np.any(w > 0):
        raise ValueError("sample weights sum to zero: there is nothing to grow a tree on.")
    if validation is None:
        if policy.splitter == "hist":
            from . import hist

            if hist.applies(X, w, policy):
                return hist.grow(X, y, w, kinds, n_categories, n_classes, policy, names), []
        elif _grows_in_one_call(policy, n_classes):
            return _grow_multiway(X, y, w, kinds, n_categories, n_classes, policy), []
        elif policy.categorical_split == "subset":
            # CART only: importing exact sets up the kernels of grow.py, which ID3 and C4.5
            # never call
            from . import exact

            if exact.applies(X, w, kinds, policy, n_classes):
                return exact.grow_fast(X, y, w, n_categories, n_classes, policy), []
    from .. import reference

    return reference.build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy,
                                            validation)


def build_tree(X, y, w, kinds, n_categories, n_classes, policy: Policy, validation=None) -> Tree:
    """The tree alone (``build_tree_with_report``)."""
    return build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy, validation)[0]


def _grows_in_one_call(policy: Policy, n_classes: int) -> bool:
    """ID3 and C4.5 (classification, multiway categorical tests, missing values fractional or
    refused), grown depth-first without validation data: ``grow_multiway``."""
    return (n_classes > 0 and not policy.regression and policy.categorical_split == "multiway"
            and policy.missing in ("fractional", "error") and policy.max_leaf_nodes is None)



def _grow_multiway(X, y, w, kinds, n_categories, n_classes: int, policy: Policy) -> Tree:
    """The tree ``_depth_first`` grows with the splitter of this policy, grown in one numba call
    (``grow_multiway``) from the same kernels: the same tree, bit for bit."""
    if not np.any(w > 0):
        raise ValueError("sample weights sum to zero: there is nothing to grow a tree on.")
    from ..reference.release8 import AVERAGE_SLACK, MIN_SPLIT_CAP, MIN_SPLIT_SHARE
    from ..reference.splitters import make_splitter
    from .grow_multiway import grow_multiway

    splitter = make_splitter(X, y, kinds, n_categories, n_classes, policy)
    ranks, rank_row = splitter._rank_matrix()
    X = np.ascontiguousarray(X, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    max_depth = np.iinfo(np.int64).max if policy.max_depth is None else int(policy.max_depth)
    min_objects = float(policy.min_samples_leaf)
    release8 = None  # None: numba leaves release 8's code out of the compiled kernel
    if ranks.shape[0] == 0 and not policy.release8:
        ranks = None  # no continuous column (ID3): nor the threshold search (evaluate_node)
    if policy.release8:  # what Release8Splitter needs: its averaging rule, J48's thresholds, log2(cuts)
        in_average = np.asarray(splitter._in_average, dtype=bool)
        columns = [X[:, j] for j in np.flatnonzero(splitter._kinds != CATEGORICAL)]
        distinct = [np.unique(c[~np.isnan(c)]) for c in columns]
        distinct_at = np.cumsum([0] + [len(d) for d in distinct], dtype=np.int64)
        flat = np.concatenate(distinct) if distinct else np.zeros(0)
        with np.errstate(divide="ignore"):
            log2_table = np.log2(np.arange(X.shape[0] + 1, dtype=np.int64))  # as np.log2(cuts)
        release8 = (min_objects, MIN_SPLIT_SHARE, MIN_SPLIT_CAP, in_average, log2_table,
                    AVERAGE_SLACK, flat, distinct_at)
    (feature, kind, threshold, first_child, n_children, pool_offset, missing_branch, parent, depth,
     impurity, n_samples, weighted, fraction, improvement, value, pool) = grow_multiway(
        X, np.asarray(y, dtype=np.int64), w, splitter._kinds, splitter._n_categories, n_classes,
        ranks, rank_row, policy.criterion_code, policy.selection == "gain_ratio", min_objects,
        policy.min_leaf_rule == "two_branches", TIE_TOLERANCE, policy.missing == "fractional",
        max_depth, float(policy.min_samples_split), float(policy.impurity_threshold),
        float(policy.epsilon), float(policy.min_impurity_decrease), float(w.sum()), release8)
    n = len(feature)
    nodes = {"feature": feature, "kind": kind, "threshold": threshold, "first_child": first_child,
             "n_children": n_children, "pool_offset": pool_offset, "missing_branch": missing_branch,
             "parent": parent, "depth": depth, "impurity": impurity, "n_node_samples": n_samples,
             "weighted_n_node_samples": weighted, "branch_fraction": fraction,
             "surrogate_offset": np.full(n, -1), "n_surrogates": np.zeros(n),
             "improvement": improvement}
    return Tree(nodes, value, pool.astype(np.int32), n_categories,
                {name: [] for name in SURROGATE_FIELDS})
