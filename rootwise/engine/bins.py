"""Binning for the histogram splitter (``splitter="hist"``): each value of a column -> a small code.

Continuous column j gets ``n_bins[j]`` <= max_bins bins. Bin b holds the values in
(upper[b - 1], upper[b]], where ``upper`` are training values in ascending order; missing values
(NaN) get their own code, ``n_bins[j]``. A split "codes <= b | codes > b" is then the threshold
split at midpoint(max value in bin b, min value in the next bin present), a midpoint of two real
training values, as the exact splitter would place it.

* A column with at most max_bins distinct values: one bin per value (``upper`` = the distinct
  values), so every split of the exact splitter is a split between bins: the trees are the same.
* Otherwise about equal-count bins (quantiles): walking the sorted distinct values, a bin is closed
  once the rows seen reach the next multiple of n / max_bins. Bin edges fall between distinct
  values, never inside a run of equal values.

The quantiles are taken from a strided sample (every ``step``-th row, at most ``SAMPLE_ROWS``
rows): sorting every column in full costs more than growing a depth-10 tree. Exactness does not
depend on the sample: a column whose sample has at most max_bins distinct values is checked row
by row against them (``map_rows`` flags any value not among them) and, if one is missing, binned
again from all its rows (``column_upper`` on the whole column).

Categorical columns are binned by their category code (code k_j = missing), done by the caller.
"""

import numpy as np
from numba import njit, prange

from .radix import radix_sort

SAMPLE_ROWS = 200_000  # rows of the quantile sample (LightGBM's bin_construct_sample_cnt)
SEARCH_SIZE = 256  # edge tables are padded to this power of two for the branch-free search


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def distinct_counts(sorted_values):
    """(distinct values, how many rows hold each) of an ascending array without NaN."""
    n = sorted_values.shape[0]
    values = np.empty(n)
    counts = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if m > 0 and sorted_values[i] == values[m - 1]:  # -0.0 == 0.0: one value
            counts[m - 1] += 1
        else:
            values[m] = sorted_values[i]
            counts[m] = 1
            m += 1
    return values[:m], counts[:m]


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def equal_count_upper(values, counts, max_bins):
    """Upper edges of about equal-count bins over distinct ``values`` holding ``counts`` rows:
    bin b is closed after the first value at which the rows seen reach (b + 1) * n / max_bins.
    With at most max_bins distinct values every value is its own bin."""
    m = values.shape[0]
    if m <= max_bins:
        return values.copy()
    n = 0
    for i in range(m):
        n += counts[i]
    upper = np.empty(max_bins)
    b = 0
    seen = 0
    for i in range(m):
        seen += counts[i]
        last = i == m - 1
        if last or (b < max_bins - 1 and seen * max_bins >= (b + 1) * n):
            upper[b] = values[i]
            b += 1
    return upper[:b]


@njit(cache=True, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def row_at(rows, t):
    """The t-th row binned: ``rows[t]``, or t itself when ``rows`` is empty (every row)."""
    return t if rows.shape[0] == 0 else rows[t]


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def column_upper(column, step, max_bins, rows):
    """``equal_count_upper`` of the known values among every ``step``-th of the rows ``rows``
    (empty: every row) of column; also whether that sample has at most max_bins distinct values
    (then the bins are meant to be exact)."""
    n_rows = rows.shape[0] if rows.shape[0] > 0 else column.shape[0]
    n = (n_rows + step - 1) // step
    sample = np.empty(n)
    m = 0
    for i in range(n):
        x = column[row_at(rows, i * step)]
        if not np.isnan(x):
            sample[m] = x
            m += 1
    values, counts = distinct_counts(radix_sort(sample[:m]))
    return equal_count_upper(values, counts, max_bins), values.shape[0] <= max_bins


@njit(cache=True, parallel=True, no_cfunc_wrapper=True)
def all_upper(X, columns, step, max_bins, rows):
    """``column_upper`` of each listed column of X over the rows ``rows`` (empty: every row), in
    parallel: (upper edges padded with +inf to SEARCH_SIZE, bins per column, whether each is
    meant to be exact)."""
    d = columns.shape[0]
    upper = np.full((d, SEARCH_SIZE), np.inf)
    n_bins = np.zeros(d, dtype=np.int64)
    exact = np.zeros(d, dtype=np.bool_)
    for c in prange(d):
        u, ex = column_upper(X[:, columns[c]], step, max_bins, rows)
        upper[c, :u.shape[0]] = u
        n_bins[c] = u.shape[0]
        exact[c] = ex
    return upper, n_bins, exact


@njit(cache=True, no_cfunc_wrapper=True)
def bin_of(upper, n_bins, x):
    """The bin of a known value: the number of edges upper[0..n_bins - 2] below x (the last bin
    takes everything above). Binary search over the SEARCH_SIZE padded edges, unrolled and
    branch-free (a comparison's outcome is added, not branched on: with random values half the
    branches would be mispredicted)."""
    b = 128 * np.int64(upper[127] < x)
    b += 64 * np.int64(upper[b + 63] < x)
    b += 32 * np.int64(upper[b + 31] < x)
    b += 16 * np.int64(upper[b + 15] < x)
    b += 8 * np.int64(upper[b + 7] < x)
    b += 4 * np.int64(upper[b + 3] < x)
    b += 2 * np.int64(upper[b + 1] < x)
    b += np.int64(upper[b] < x)
    return min(b, n_bins - 1)


@njit(cache=True, parallel=True, no_cfunc_wrapper=True)
def map_rows(X, columns, upper, n_bins, exact, categorical, codes, n_chunks, rows):
    """Fill ``codes`` (rows x all columns, uint8) for the continuous ``columns`` with their bins
    (NaN -> the missing code n_bins), chunks of rows in parallel; categorical columns are left
    alone. Only the rows ``rows`` are binned (empty: every row; a cross-validation fold reads
    its rows in place), each at its own row of ``codes``. Returns per continuous column the
    smallest and largest training value of each bin, and whether a value meant for an exact bin
    matched no edge (the sample missed it).

    Both extremes are tracked from the rows: an edge learnt here is a training value (the largest
    of its bin), but edges given by the caller (``hist.make_bins(edges=...)``, a distributed fit's
    edges) need not be, and a bin they leave empty keeps (+inf, -inf)."""
    d_all = X.shape[1]
    n = rows.shape[0] if rows.shape[0] > 0 else X.shape[0]
    d = columns.shape[0]
    lo = np.full((n_chunks, d, SEARCH_SIZE), np.inf)
    hi = np.full((n_chunks, d, SEARCH_SIZE), -np.inf)
    missed = np.zeros((n_chunks, d), dtype=np.bool_)
    size = (n + n_chunks - 1) // n_chunks
    for chunk in prange(n_chunks):
        low = lo[chunk]
        high = hi[chunk]
        for t in range(chunk * size, min(n, (chunk + 1) * size)):
            i = row_at(rows, t)
            c = 0
            for j in range(d_all):
                x = X[i, j]
                if categorical[j]:
                    continue  # a category's code is read from X where it is needed
                if np.isnan(x):
                    codes[i, j] = n_bins[c]
                else:
                    b = bin_of(upper[c], n_bins[c], x)
                    codes[i, j] = b
                    low[c, b] = min(low[c, b], x)
                    high[c, b] = max(high[c, b], x)
                    if exact[c] and upper[c, b] != x:
                        missed[chunk, c] = True
                c += 1
    bin_min = np.full((d, SEARCH_SIZE), np.inf)
    bin_max = np.full((d, SEARCH_SIZE), -np.inf)
    any_missed = np.zeros(d, dtype=np.bool_)
    for c in range(d):  # min and max do not depend on the order: any chunking agrees
        for chunk in range(n_chunks):
            any_missed[c] |= missed[chunk, c]
            for b in range(SEARCH_SIZE):
                bin_min[c, b] = min(bin_min[c, b], lo[chunk, c, b])
                bin_max[c, b] = max(bin_max[c, b], hi[chunk, c, b])
    return bin_min, bin_max, any_missed
