"""``splitter="hist"``: binning the continuous columns (``bins``).

A continuous column with at most ``max_bins`` distinct values gets one bin per value, so its
splits are exactly the exact splitter's; a column with more gets about equal-count bins, and a
split between bins is placed at the midpoint of the largest training value of the left bin and
the smallest of the next bin present at the node (a midpoint of real values, as the exact splitter
places it). Missing cells have a bin of their own. Categorical columns are not binned: their
category codes serve as they are, whatever their number (``engine.bundles``: BINNED up to 255
categories, WIDE above). The engine grows the tree (``engine.loop``); its reference is
``reference.hist``: the exact reference builder on the bins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import CATEGORICAL
from .bins import SAMPLE_ROWS, SEARCH_SIZE, all_upper, map_rows

MAX_BINS_LIMIT = 255  # codes are bytes, and the missing bin needs one code of its own
_CHUNKS = 16  # row chunks of the binning pass (fixed, so results do not depend on threads)


@dataclass
class Bins:
    """The binned continuous columns.

    codes       rows x columns (uint8): bin of a continuous value, ``n_bins[j]`` for a missing
                one; meaningless in categorical columns
    n_bins      bins of each continuous column (a categorical column: its number of categories)
    upper       continuous columns' bin edges (``bins.bin_of``), one row per column
    bin_min, bin_max  smallest and largest training value in each bin (continuous columns)
    """

    codes: np.ndarray
    n_bins: np.ndarray
    categorical: np.ndarray
    upper: np.ndarray
    bin_min: np.ndarray
    bin_max: np.ndarray


def make_bins(X: np.ndarray, kinds: np.ndarray, n_categories: np.ndarray, max_bins: int) -> Bins:
    """Bin every continuous column of the encoded matrix (see the module docstring)."""
    n, d = X.shape
    categorical = np.asarray(kinds) == CATEGORICAL
    n_categories = np.asarray(n_categories, dtype=np.int64)
    X = np.ascontiguousarray(X, dtype=np.float64)
    columns = np.flatnonzero(~categorical).astype(np.int64)
    step = max(1, -(-n // SAMPLE_ROWS))
    upper, nb, exact = all_upper(X, columns, step, max_bins)
    codes = np.zeros((n, d), dtype=np.uint8)
    bin_min, bin_max, missed = map_rows(X, columns, upper, nb, exact, categorical, codes, _CHUNKS)
    if missed.any():  # the sample missed a value of a column meant to be exact: bin it from all rows
        again = np.flatnonzero(missed)
        u2, nb2, ex2 = all_upper(X, columns[again], 1, max_bins)
        upper[again], nb[again], exact[again] = u2, nb2, ex2
        bin_min, bin_max, _ = map_rows(X, columns, upper, nb, exact, categorical, codes, _CHUNKS)
    n_bins = n_categories.copy()
    n_bins[columns] = nb
    full = lambda a, fill: _per_feature(a, columns, d, fill)  # noqa: E731
    return Bins(codes, n_bins, categorical, full(upper, np.inf), full(bin_min, np.nan),
                full(bin_max, np.nan))


def _per_feature(a: np.ndarray, columns: np.ndarray, d: int, fill: float) -> np.ndarray:
    out = np.full((d, SEARCH_SIZE), fill)
    out[columns] = a
    return out
