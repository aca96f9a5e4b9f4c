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


def make_bins(X: np.ndarray, kinds: np.ndarray, n_categories: np.ndarray, max_bins: int,
              edges=None, rows=None) -> Bins:
    """Bin every continuous column of the encoded matrix (see the module docstring).

    ``edges``: the continuous columns' upper bin edges given by the caller, one entry per column
    (``None`` for a categorical one; ``given_edges`` checks them), instead of learning them from X:
    the same edges give the same bins on any rows (a distributed fit's edges, ``rootwise.dask``).
    ``rows``: bin these rows of X only (ascending ids), as if they were a table of their own (a
    cross-validation fold, read in place); their codes sit at their own rows of ``codes``, the
    other rows' are left at 0."""
    n_all, d = X.shape
    rows = np.zeros(0, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    n = len(rows) if len(rows) else n_all
    categorical = np.asarray(kinds) == CATEGORICAL
    n_categories = np.asarray(n_categories, dtype=np.int64)
    X = np.ascontiguousarray(X, dtype=np.float64)
    columns = np.flatnonzero(~categorical).astype(np.int64)
    codes = np.zeros((n_all, d), dtype=np.uint8)
    if edges is not None:
        upper, nb = given_edges(edges, columns, max_bins)
        exact = np.zeros(len(columns), dtype=bool)  # given edges are used as they are
        bin_min, bin_max, _ = map_rows(X, columns, upper, nb, exact, categorical, codes, _CHUNKS,
                                       rows)
        return _bins(codes, n_categories, categorical, columns, nb, upper, bin_min, bin_max)
    step = max(1, -(-n // SAMPLE_ROWS))
    upper, nb, exact = all_upper(X, columns, step, max_bins, rows)
    bin_min, bin_max, missed = map_rows(X, columns, upper, nb, exact, categorical, codes, _CHUNKS,
                                        rows)
    if missed.any():  # the sample missed a value of a column meant to be exact: bin it from all rows
        again = np.flatnonzero(missed)
        u2, nb2, ex2 = all_upper(X, columns[again], 1, max_bins, rows)
        upper[again], nb[again], exact[again] = u2, nb2, ex2
        bin_min, bin_max, _ = map_rows(X, columns, upper, nb, exact, categorical, codes, _CHUNKS,
                                       rows)
    return _bins(codes, n_categories, categorical, columns, nb, upper, bin_min, bin_max)


def given_edges(edges, columns: np.ndarray, max_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(upper edges padded with +inf to SEARCH_SIZE, bins per column) of the continuous
    ``columns`` from the caller's ``edges`` (one entry per column of X): each a non-empty,
    strictly ascending sequence of finite numbers, at most ``max_bins`` long."""
    upper = np.full((len(columns), SEARCH_SIZE), np.inf)
    nb = np.zeros(len(columns), dtype=np.int64)
    for c, j in enumerate(columns):
        e = edges[j]
        if e is None:
            raise ValueError(f"bin_edges[{j}] is None, but column {j} is continuous: give its "
                             "upper bin edges.")
        e = np.asarray(e, dtype=np.float64).reshape(-1)
        if not 1 <= e.size <= max_bins:
            raise ValueError(f"bin_edges[{j}] holds {e.size} edges; expected 1 to max_bins="
                             f"{max_bins}.")
        if not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
            raise ValueError(f"bin_edges[{j}] must be finite and strictly ascending.")
        upper[c, :e.size] = e
        nb[c] = e.size
    return upper, nb


def _bins(codes, n_categories, categorical, columns, nb, upper, bin_min, bin_max) -> Bins:
    d = codes.shape[1]
    n_bins = n_categories.copy()
    n_bins[columns] = nb
    full = lambda a, fill: _per_feature(a, columns, d, fill)  # noqa: E731
    return Bins(codes, n_bins, categorical, full(upper, np.inf), full(bin_min, np.nan),
                full(bin_max, np.nan))


def _per_feature(a: np.ndarray, columns: np.ndarray, d: int, fill: float) -> np.ndarray:
    out = np.full((d, SEARCH_SIZE), fill)
    out[columns] = a
    return out
