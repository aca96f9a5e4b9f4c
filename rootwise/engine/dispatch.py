"""The one dispatcher: from an encoded matrix and a ``Policy``, the bundles the engine reads, one call
of the growth loop (``loop.grow``), and the ``Tree``.

How each column is searched (``bundles.Features.search``):

    categorical, at most 255 categories      BINNED (its category codes, one byte per row)
    categorical, more                        WIDE (codes read from X)
    continuous, splitter="exact"             SORTED (presorted once per fit)
    continuous, splitter="hist"              BINNED (histogram bins, ``hist.make_bins``)

Every algorithm and option runs the same loop; the reference builder (``rootwise.reference``) is
the oracle it is tested against, and nothing here calls it.
"""

from __future__ import annotations

import numpy as np

from .._config import CATEGORICAL, MIN_ADJUSTED_AGREEMENT, MIN_SURROGATE_SIDE
from .._policy import Policy
from ..input.encode import writable
from ..prune.steps import PruningStep
from ..tree import Tree
from .bundles import (
    BINNED,
    MISSING_ERROR,
    MISSING_FRACTIONAL,
    MISSING_SURROGATE,
    SORTED,
    WIDE,
    Features,
    Holdout,
    Params,
    Rows,
)
from .j48 import MIN_SPLIT_CAP, MIN_SPLIT_SHARE, distinct_values, in_average_mask
from .monotone import clip_values
from .presort import SharedPresort, presort_table
from .segments import MAX_CLASSES, MAX_ROWS

BYTE_CODES = 255  # categories a byte code holds (the missing code takes the 256th)
_MISSING = {"error": MISSING_ERROR, "fractional": MISSING_FRACTIONAL,
            "surrogate": MISSING_SURROGATE}
_NO_DEPTH_LIMIT = np.iinfo(np.int64).max


def build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy: Policy,
                           validation=None, names=None, bin_edges=None,
                           cost_floor=0.0, floor_cost="impurity", train=None,
                           presort=None, n_threads=1) -> tuple[Tree, list[PruningStep]]:
    """(tree, pre-pruning steps): the tree of ``policy`` on the encoded matrix ``X`` (rows
    weighted by ``w``; ``y`` class codes when n_classes > 0, else regression targets).
    ``validation`` = (X_val, y_val, w_val) turns on pre-pruning; ``names`` name the columns in
    messages; ``bin_edges``: splitter="hist" with the caller's bin edges (``hist.make_bins``).
    ``cost_floor`` > 0: a node whose cost under ``floor_cost`` ("misclassification": W - max_k w_k,
    "impurity": W I(t)) is at most this is not split (``cp``, ``prune.cost_complexity``).
    ``train``: grow on these rows of X, y, w only (the tree of X[train], y[train], w[train]),
    read in place, their order by each column kept from ``presort`` (``shared_presort`` of the
    same X and w, made here when not given: cross-validation's folds share one).
    ``n_threads``: threads growing the tree's subtrees side by side (``subtrees``; the tree does
    not depend on it)."""
    from .loop import fit
    from .node_table import to_tree

    X = writable(np.ascontiguousarray(X, dtype=np.float64))
    w = writable(np.ascontiguousarray(w, dtype=np.float64))
    if train is not None:
        train = np.asarray(train)
        train = np.ascontiguousarray(np.flatnonzero(train) if train.dtype == bool else train,
                                     dtype=np.int64)
        if not _reads_in_place(train, len(X), policy):
            X, y, w = X[train], np.asarray(y)[train], w[train]
            train, presort = None, None
        elif presort is None:
            presort = shared_presort(X, w, kinds, policy)
    w_train = w if train is None else w[train]
    n, d = X.shape
    if not np.any(w_train > 0):
        raise ValueError("sample weights sum to zero: there is nothing to grow a tree on.")
    if n >= MAX_ROWS:
        raise ValueError(f"rootwise grows a tree on at most {MAX_ROWS - 1} rows, got {n}.")
    if n_classes > MAX_CLASSES:
        raise ValueError(f"rootwise grows a classifier for at most {MAX_CLASSES} classes, got "
                         f"{n_classes}.")
    kinds = np.asarray(kinds, dtype=np.int64)
    n_categories = np.asarray(n_categories, dtype=np.int64)
    rows = _rows(X, y, w, n_classes, policy)
    features, binned_codes = _features(X, kinds, n_categories, policy, bin_edges, train)
    params = params_of(policy, n_classes, validation is not None, cost_floor, floor_cost)
    holdout = _holdout(validation, d, n_classes)

    binned = np.flatnonzero(features.search == BINNED).astype(np.int64)
    binned = binned[np.argsort(features.slot[binned])]
    from_bins = ~features.categorical[binned]
    sorted_columns = np.flatnonzero(features.search == SORTED).astype(np.int64)
    categorical = features.categorical
    max_categories = int(max(n_categories[categorical].max(initial=2), 2))
    max_wide = int(n_categories[features.search == WIDE].max(initial=0))
    layout = (sorted_columns, binned, from_bins, binned_codes, max_categories, max_wide)
    unit_input = bool(np.all((w_train == 0.0) | (w_train == 1.0)))
    del w_train
    if presort is not None and presort.order.shape != (len(sorted_columns), n):
        raise ValueError(f"presort holds {presort.order.shape[0]} column(s) of "
                         f"{presort.order.shape[1]} rows; this fit presorts "
                         f"{len(sorted_columns)} of {n}.")
    g = fit(rows, features, params, holdout, layout, 1 if policy.regression else n_classes,
            unit_input, train, presort, n_threads)
    tree = to_tree(g.nodes, g.n_nodes, g.pool, g.n_pool, g.surrogates, g.n_surrogates,
                   n_categories)
    if params.monotonic.shape[0] > 0:  # each node's value within its bounds (``monotone``)
        clip_values(tree.value, g.nodes.lower[:g.n_nodes], g.nodes.upper[:g.n_nodes],
                    policy.regression)
    steps = [PruningStep(int(g.step_node[i]), float(g.step_weight[i]),
                         float(g.step_subtree[i]), float(g.step_leaf[i]), bool(g.step_pruned[i]))
             for i in range(g.n_steps)]
    return tree, steps


def build_tree(X, y, w, kinds, n_categories, n_classes, policy: Policy, validation=None) -> Tree:
    """The tree alone (``build_tree_with_report``)."""
    return build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy, validation)[0]


def shared_presort(X, w, kinds, policy: Policy) -> SharedPresort | None:
    """Every row of X (weighted by ``w``) sorted once by each column that the fits of ``policy``
    presort, for fits on subsets of its rows (``build_tree_with_report``'s ``train``): one sort
    for all of cross-validation's folds (``presort``). None when those fits copy their rows
    instead (``_reads_in_place``). Hist presorts no column: its table is empty."""
    if policy.release8:
        return None
    sorted_columns = np.flatnonzero(np.asarray(kinds) != CATEGORICAL).astype(np.int64)
    if policy.splitter == "hist":
        sorted_columns = sorted_columns[:0]
    return presort_table(np.ascontiguousarray(X, dtype=np.float64),
                         np.ascontiguousarray(w, dtype=np.float64), sorted_columns)


def fold_workspace(n_rows: int, n_ids: int, kinds, n_categories, policy: Policy,
                   n_classes: int) -> int:
    """Bytes a fit on ``n_rows`` of a table of ``n_ids`` rows allocates for itself, an upper
    estimate (what cross-validation weighs before growing folds side by side): per row, a
    presorted column's 8-byte word, the segment arrays (row, weight, target: 8 bytes each; 8
    code bytes per word; the fold's row ids), the partition's block, the scan's two by-row
    arrays, the class histograms of large nodes (at most 8 / RATIO bytes per row and binned
    column), the by-row arrays of regression, entropy and C4.5, hist's bin codes; and release
    8, which cannot read its rows in place, copies them (X's row, target and weight)."""
    kinds = np.asarray(kinds)
    n_categories = np.asarray(n_categories)
    d = kinds.shape[0]
    categorical = kinds == CATEGORICAL
    hist = policy.splitter == "hist"
    n_sorted = 0 if hist else int(np.count_nonzero(~categorical))
    n_binned = d if hist else int(np.count_nonzero(categorical & (n_categories <= BYTE_CODES)))
    code_words = (n_binned + 7) // 8
    per_row = 8 * n_sorted + 32 + 16 * max(code_words, 1) + 16 + 4 * n_binned
    if policy.regression:
        per_row += 16
    if policy.criterion == "entropy":
        per_row += 8
    if policy.categorical_split == "multiway" or policy.missing == "fractional":
        per_row += 32  # the multiway partition's rows and fractions, weights by row id
    total = per_row * n_rows + 3 * n_ids  # two class bytes and a kept flag by row id
    if hist:
        total += d * n_ids  # the bin codes, at the rows' own ids
    if policy.release8:
        total += (8 * d + 16) * n_rows + 8 * n_sorted * n_rows  # copied rows, column-major copy
    return int(total)


def _reads_in_place(train: np.ndarray, n: int, policy: Policy) -> bool:
    """Whether a fit on the rows ``train`` of a table of n rows can read them where they are: it
    needs distinct ascending row ids (the words keep rows that tie in row order; hist's bins
    are learnt from the rows in that order), and release 8's facts about its own rows (the
    distinct values, a column-major copy) come from a copy of them."""
    return (not policy.release8 and train.ndim == 1
            and len(train) > 0 and 0 <= train[0] and train[-1] < n
            and bool(np.all(train[1:] > train[:-1])))


def _rows(X, y, w, n_classes, policy) -> Rows:
    if policy.regression:
        return Rows(X, np.zeros(0, dtype=np.int64),
                    writable(np.ascontiguousarray(y, dtype=np.float64)), w)
    return Rows(X, writable(np.ascontiguousarray(y, dtype=np.int64)), np.zeros(0), w)


def _features(X, kinds, n_categories, policy, bin_edges=None,
              train=None) -> tuple[Features, np.ndarray]:
    """How each column is searched, and the histogram codes of binned continuous columns (of
    the rows ``train`` only, at their own rows, when given)."""
    n, d = X.shape
    categorical = kinds == CATEGORICAL
    search = np.where(categorical, np.where(n_categories <= BYTE_CODES, BINNED, WIDE), SORTED)
    n_values = n_categories.copy()
    bin_min = np.zeros((0, 256))
    bin_max = np.zeros((0, 256))
    binned_codes = np.zeros((0, 0), dtype=np.uint8)
    if policy.splitter == "hist":
        from .hist import make_bins

        bins = make_bins(X, kinds, n_categories, policy.max_bins, bin_edges, train)
        search[~categorical] = BINNED
        n_values = bins.n_bins.astype(np.int64)
        bin_min, bin_max, binned_codes = bins.bin_min, bins.bin_max, bins.codes
    slot = np.full(d, -1, dtype=np.int64)
    for kind in (SORTED, BINNED):
        columns = np.flatnonzero(search == kind)
        slot[columns] = np.arange(len(columns))
    distinct_at = np.zeros(d + 1, dtype=np.int64)
    distinct_first = np.zeros(0, dtype=np.uint32)
    values = np.zeros((0, 0))
    in_average = np.ones(d, dtype=bool)
    log2_cuts = np.zeros(1)
    if policy.release8:  # J48's thresholds are training values; numpy's log2 of the cut counts
        empty = np.zeros(0, dtype=np.uint32)
        parts = [distinct_values(X[:, j])[1] if not categorical[j] else empty for j in range(d)]
        distinct_at = np.cumsum([0] + [len(p) for p in parts], dtype=np.int64)
        if parts:
            distinct_first = np.concatenate(parts)
        in_average = in_average_mask(kinds, n_categories, n)
        # the scan compares sorted neighbours' values: read from one column (n x 8 bytes, in
        # cache), not from rows of the matrix (a cache line per value)
        values = np.ascontiguousarray(X[:, search == SORTED].T)
        with np.errstate(divide="ignore"):
            log2_cuts = np.log2(np.arange(n + 1, dtype=np.int64))
    features = Features(search.astype(np.int64), categorical, n_values, slot,
                        np.ascontiguousarray(bin_min), np.ascontiguousarray(bin_max),
                        np.ascontiguousarray(distinct_first, dtype=np.uint32), distinct_at, values,
                        np.asarray(in_average, dtype=bool), np.ascontiguousarray(log2_cuts))
    return features, np.ascontiguousarray(binned_codes)


def params_of(policy: Policy, n_classes: int, prepruning: bool, cost_floor: float = 0.0,
              floor_cost: str = "impurity") -> Params:
    """The ``Policy`` as the engine's ``Params`` (``prepruning``: validation rows are given;
    ``cost_floor``, ``floor_cost``: ``build_tree_with_report``)."""
    surrogate = policy.missing == "surrogate"
    return Params(
        n_classes=int(n_classes), criterion=int(policy.criterion_code),
        regression=bool(policy.regression), by_ratio=policy.selection == "gain_ratio",
        multiway=policy.categorical_split == "multiway", missing=_MISSING[policy.missing],
        release8=bool(policy.release8),
        max_depth=_NO_DEPTH_LIMIT if policy.max_depth is None else int(policy.max_depth),
        min_samples_split=float(policy.min_samples_split),
        min_leaf=float(policy.min_samples_leaf),
        two_branches=policy.min_leaf_rule == "two_branches", epsilon=float(policy.epsilon),
        min_impurity_decrease=float(policy.min_impurity_decrease),
        impurity_threshold=float(policy.impurity_threshold),
        cost_floor=float(cost_floor),
        floor_misclassified=floor_cost == "misclassification" and not policy.regression,
        max_leaf_nodes=0 if policy.max_leaf_nodes is None else int(policy.max_leaf_nodes),
        median=policy.leaf_value == "median",
        max_surrogates=int(policy.max_surrogates) if surrogate else 0,
        max_exhaustive=int(policy.max_exhaustive), min_side=MIN_SURROGATE_SIDE,
        min_adjusted=MIN_ADJUSTED_AGREEMENT,
        prepruning=bool(prepruning), prune_on_tie=bool(policy.prune_on_tie),
        r8_min_objects=float(policy.min_samples_leaf), r8_share=MIN_SPLIT_SHARE,
        r8_cap=MIN_SPLIT_CAP, n_threads=1, monotonic=_monotonic(policy),
        min_split_rows=int(policy.min_split_rows), min_leaf_rows=int(policy.min_leaf_rows))


def _monotonic(policy: Policy) -> np.ndarray:
    """``Params.monotonic``: the constraints on the node value, empty when there are none. A
    classifier's are on the second class's probability, the engine's on the first class's
    proportion (its complement): their signs flip, as in scikit-learn."""
    c = np.asarray(policy.monotonic, dtype=np.int64).reshape(-1)
    if not np.any(c != 0):
        return np.zeros(0, dtype=np.int64)
    return np.ascontiguousarray(c if policy.regression else -c)


def _holdout(validation, d: int, n_classes: int) -> Holdout:
    if validation is None:
        return Holdout(np.zeros((0, d)), np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0))
    X_val, y_val, w_val = validation
    X_val = writable(np.ascontiguousarray(X_val, dtype=np.float64))
    w_val = writable(np.ascontiguousarray(w_val, dtype=np.float64))
    if n_classes > 0:
        return Holdout(X_val, writable(np.ascontiguousarray(y_val, dtype=np.int64)), np.zeros(0),
                       w_val)
    return Holdout(X_val, np.zeros(0, dtype=np.int64),
                   writable(np.ascontiguousarray(y_val, dtype=np.float64)), w_val)
