"""``splitter="hist"``: when the histogram grower applies, binning, and the Tree it returns.

Binning (``bins``): a continuous column with at most ``max_bins`` distinct values gets one bin
per value, so its splits are exactly the exact splitter's; a column with more gets about
equal-count bins, and a split between bins is placed at the midpoint of the largest training
value of the left bin and the smallest of the next bin present at the node (a midpoint of real
values, as the exact splitter places it). Missing cells have a bin of their own. A categorical
column is binned by its category code, every category its own bin whatever ``max_bins`` (which
is about continuous columns): its subset search is the exact one. A column with more than 255
categories is refused (``ValueError``): codes are bytes, and ``splitter="exact"`` handles it.

``hist_grow`` grows the tree in one numba call: depth-first growth without validation data, mean
leaves, positive weights. Its reference, for the tests and for what it does not cover, is
``reference.hist``: the exact reference builder on the bins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from .._config import CATEGORICAL, LEAF, MIN_ADJUSTED_AGREEMENT, MIN_SURROGATE_SIDE
from .._policy import Policy
from ..tree import Tree
from .bins import SAMPLE_ROWS, SEARCH_SIZE, all_upper, map_rows
from .hist_grow import grow_hist

MAX_BINS_LIMIT = 255  # codes are bytes, and the missing bin needs one code of its own
# nodes with fewer rows get no histogram: their bins present cost less than all bins x features
# (measured at 10^6 x 20, fully grown classification, once the codes moved with their rows and
# the scan ran on prefix sums: 1024 to 4096 about 6 % faster than 512, 256 10 % slower; depth 10
# and fully grown regression the same within noise for 512-2048)
SMALL_NODE = 1024
_CHUNKS = 16  # row chunks of the binning pass (fixed, so results do not depend on threads)


@dataclass
class Bins:
    """The binned training matrix.

    codes       rows x features (uint8): bin of a continuous value, code of a category;
                ``n_bins[j]`` marks a missing value
    n_bins      bins (continuous) or categories (categorical) per feature
    upper       continuous columns' bin edges (``bins.bin_of``), one row per feature
    bin_min, bin_max  smallest and largest training value in each bin (continuous columns)
    """

    codes: np.ndarray
    n_bins: np.ndarray
    categorical: np.ndarray
    upper: np.ndarray
    bin_min: np.ndarray
    bin_max: np.ndarray


def applies(X: np.ndarray, w: np.ndarray, policy: Policy) -> bool:
    """Whether the numba grower grows this fit (else the reference builder on coded columns)."""
    return (policy.splitter == "hist" and policy.max_leaf_nodes is None
            and policy.leaf_value == "mean" and policy.categorical_split == "subset"
            and policy.selection == "gain" and policy.epsilon == 0.0
            and policy.min_leaf_rule == "all_branches" and policy.missing == "surrogate"
            and X.shape[0] > 0 and bool(np.all(w > 0)))


def make_bins(X: np.ndarray, kinds: np.ndarray, n_categories: np.ndarray, max_bins: int,
              names=None) -> Bins:
    """Bin every column of the encoded matrix (see the module docstring)."""
    n, d = X.shape
    categorical = np.asarray(kinds) == CATEGORICAL
    n_categories = np.asarray(n_categories, dtype=np.int64)
    too_many = np.flatnonzero(categorical & (n_categories > MAX_BINS_LIMIT))
    if len(too_many):
        j = int(too_many[0])
        name = names[j] if names is not None else f"column {j}"
        raise ValueError(f"splitter='hist': categorical feature {name!r} has {n_categories[j]} "
                         f"categories; the histogram splitter takes at most {MAX_BINS_LIMIT} "
                         f"(one byte per code). Use splitter='exact' for this data, or merge rare "
                         f"categories.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    columns = np.flatnonzero(~categorical).astype(np.int64)
    step = max(1, -(-n // SAMPLE_ROWS))
    upper, nb, exact = all_upper(X, columns, step, max_bins)
    codes = np.empty((n, d), dtype=np.uint8)
    bin_min, bin_max, missed = map_rows(X, columns, upper, nb, exact, categorical, n_categories,
                                        codes, _CHUNKS)
    if missed.any():  # the sample missed a value of a column meant to be exact: bin it from all rows
        again = np.flatnonzero(missed)
        u2, nb2, ex2 = all_upper(X, columns[again], 1, max_bins)
        upper[again], nb[again], exact[again] = u2, nb2, ex2
        bin_min, bin_max, _ = map_rows(X, columns, upper, nb, exact, categorical, n_categories,
                                       codes, _CHUNKS)
    n_bins = n_categories.copy()
    n_bins[columns] = nb
    full = lambda a, fill: _per_feature(a, columns, d, fill)  # noqa: E731
    return Bins(codes, n_bins, categorical, full(upper, np.inf), full(bin_min, np.nan),
                full(bin_max, np.nan))


def _per_feature(a: np.ndarray, columns: np.ndarray, d: int, fill: float) -> np.ndarray:
    out = np.full((d, SEARCH_SIZE), fill)
    out[columns] = a
    return out


def grow(X, y, w, kinds, n_categories, n_classes: int, policy: Policy, names=None) -> Tree:
    """The hist tree grown by the numba grower (``applies`` must hold)."""
    b = make_bins(X, kinds, n_categories, policy.max_bins, names)
    max_depth = np.iinfo(np.int64).max if policy.max_depth is None else int(policy.max_depth)
    if policy.regression:
        yc, yr = np.zeros(0, dtype=np.int64), np.asarray(y, dtype=np.float64)
    else:
        yc, yr = np.asarray(y, dtype=np.int64), np.zeros(0, dtype=np.float64)
    (feature, kind, threshold, first_child, pool_offset, parent, depth, impurity, n_samples, wsum,
     fraction, missing_branch, improvement, s_offset, s_count, value, pool, s_feature, s_kind,
     s_threshold, s_left, s_pool, s_agree, s_adj) = grow_hist(
        b.codes, b.n_bins, b.categorical, b.bin_min, b.bin_max, yc, yr,
        np.asarray(w, dtype=np.float64), n_classes, policy.criterion_code, policy.regression,
        max_depth, float(policy.min_samples_split), float(policy.min_samples_leaf),
        float(policy.min_impurity_decrease), float(policy.impurity_threshold),
        int(policy.max_exhaustive), int(policy.max_surrogates), MIN_SURROGATE_SIDE,
        MIN_ADJUSTED_AGREEMENT, SMALL_NODE, numba.get_num_threads())
    nodes = {"feature": feature, "kind": kind, "threshold": threshold, "first_child": first_child,
             "n_children": np.where(kind != LEAF, 2, 0), "pool_offset": pool_offset,
             "missing_branch": missing_branch, "parent": parent, "depth": depth,
             "impurity": impurity, "n_node_samples": n_samples, "weighted_n_node_samples": wsum,
             "branch_fraction": fraction, "surrogate_offset": s_offset, "n_surrogates": s_count,
             "improvement": improvement}
    surrogates = {"feature": s_feature, "kind": s_kind, "threshold": s_threshold,
                  "left_branch": s_left, "pool_offset": s_pool, "agreement": s_agree,
                  "adjusted_agreement": s_adj}
    return Tree(nodes, value, pool, n_categories, surrogates)
